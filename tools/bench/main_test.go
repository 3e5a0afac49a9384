package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		bad  bool
	}{
		{"1GiB", 1 << 30, false},
		{"256MiB", 256 << 20, false},
		{"64MB", 64e6, false},
		{"512k", 512 << 10, false},
		{"1.5g", 3 << 29, false},
		{"1000", 1000, false},
		{" 2 mib ", 2 << 20, false},
		{"", 0, true},
		{"-1MiB", 0, true},
		{"lots", 0, true},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d (error %v)", tt.in, got, err, tt.want, tt.bad)
		}
	}
}

func TestCommandError(t *testing.T) {
	err := commandError("/x/bin/fpcheck", errors.New("exit status 2"), "warming up\nfpcheck: cannot read in.json: line 3: bad\n")
	if got := err.Error(); got != "fpcheck: exit status 2: fpcheck: cannot read in.json: line 3: bad" {
		t.Errorf("commandError = %q", got)
	}
	if got := cell("a\tb\nc"); strings.ContainsAny(got, "\t\n") {
		t.Errorf("cell kept a tab or newline: %q", got)
	}
}

func TestMeasureReportsFailures(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	tests := []struct {
		name   string
		script string
		codes  []int
		report bool
		ok     bool
	}{
		{"clean exit", "echo report", toolCodes, false, true},
		{"defects are a report", "echo report; exit 1", fpcheckCodes, true, true},
		{"usage error", "echo 'bad flag' >&2; exit 2", fpcheckCodes, true, false},
		{"silent exit 1", "exit 1", fpcheckCodes, true, false},
		{"tool failure", "exit 1", toolCodes, false, false},
	}
	for _, tt := range tests {
		c := command{codes: tt.codes, report: tt.report, name: "sh", args: []string{"-c", tt.script}}
		m := alternate(2, c, command{})[0]
		if m.ok() != tt.ok {
			t.Errorf("%s: ok = %v (%v), want %v", tt.name, m.ok(), m.err, tt.ok)
		}
		// As the second command of a pair, it fails the pair's second
		// measurement, and the first stands.
		ms := alternate(2, command{codes: toolCodes, name: "sh", args: []string{"-c", "true"}}, c)
		first, second := ms[0], ms[1]
		if !first.ok() || second.ok() != tt.ok {
			t.Errorf("%s as the second command: ok = %v, %v (%v), want true, %v", tt.name, first.ok(), second.ok(), second.err, tt.ok)
		}
	}
}

func TestPairedMedian(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		var d []time.Duration
		for _, x := range xs {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	tests := []struct {
		name string
		a, b []time.Duration
		want float64
	}{
		{"odd", ms(400, 600, 500), ms(200, 300, 500), 2},
		{"even", ms(300, 600, 600, 800), ms(300, 300, 200, 200), 2.5},
		{"unequal lengths use the common runs", ms(600, 900, 1), ms(300, 300), 2.5},
		{"none", nil, ms(1), 0},
	}
	for _, tt := range tests {
		if got := pairedMedian(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: pairedMedian = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestMachineRead(t *testing.T) {
	dir := t.TempDir()
	var files []string
	want := uint64(0)
	for i, size := range []int{0, 5, 128<<10 + 7, 300 << 10} {
		p := filepath.Join(dir, fmt.Sprintf("f%d", i))
		data := bytes.Repeat([]byte(`{"a":1}`+"\n"), size/8+1)[:size]
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		n, err := countQuotes(p)
		if c := uint64(bytes.Count(data, []byte{'"'})); err != nil || n != c {
			t.Errorf("countQuotes(%d bytes) = %d, %v; want %d", size, n, err, c)
		}
		want += n
		files = append(files, p)
	}
	for _, threads := range []int{1, 2, 3} {
		before := machineSink.Load()
		if err := machineWork("read", threads, files); err != nil {
			t.Fatalf("%d threads: %v", threads, err)
		}
		if got := machineSink.Load() - before; got != want {
			t.Errorf("%d threads read %d quotes, want %d", threads, got, want)
		}
	}
	if err := machineWork("read", 2, append(files, filepath.Join(dir, "missing"))); err == nil {
		t.Error("a missing file was not reported")
	}
	if err := machineWork("sing", 1, nil); err == nil {
		t.Error("an unknown kind of work was not reported")
	}
}

func TestFreshCheck(t *testing.T) {
	// One byte of every 64th page is summed back: each page was written.
	if got := touchFresh(1 << 20); got != 4 {
		t.Errorf("touchFresh(1 MiB) = %d, want 4", got)
	}
	r := freshRow(measurement{wall: 131072 * time.Microsecond, cpu: 120 * time.Millisecond})
	for _, want := range []string{"(a) machine check: 256 MiB of fresh memory, each 4 KiB page touched once", "2.00 µs a page"} {
		if !strings.Contains(r.name+" "+r.ratio, want) {
			t.Errorf("row %+v lacks %q", r, want)
		}
	}
	if r.figure != "2.00 µs a page" || r.result != "—" {
		t.Errorf("figure %q, result %q", r.figure, r.result)
	}
	if r := freshRow(measurement{wall: -1, err: errors.New("boom")}); r.result != failed {
		t.Errorf("a failed check gave %+v", r)
	}
}

func TestMachineNote(t *testing.T) {
	m := func(xs ...int) measurement {
		var r measurement
		r.wall = -1
		for _, x := range xs {
			d := time.Duration(x) * time.Millisecond
			r.walls = append(r.walls, d)
			if r.wall < 0 || d < r.wall {
				r.wall = d
			}
		}
		return r
	}
	note := machineNote([]measurement{m(400, 420), m(220, 200), m(60, 70), m(40, 50)})
	for _, want := range []string{
		"a loop that touches no memory: 2.00× faster on 2 threads (median of 2 pairs 1.96×); 1 thread 400 ms to 420 ms",
		"reading the recordings (128 KiB reads, quotes counted): 1.50× faster on 2 threads (median of 2 pairs 1.45×); 1 thread 60 ms to 70 ms",
	} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q:\n%s", want, note)
		}
	}
	failedRun := measurement{wall: -1, err: errors.New("boom")}
	if note := machineNote([]measurement{failedRun, m(1), failedRun, m(1)}); note != "" {
		t.Errorf("failed checks gave a note: %q", note)
	}
}

// The summary of rounds lists each row's figure in every round and counts
// the rounds that met it; a row only for information is counted in none,
// and a failure is a round that did not meet it.
func TestPrintSummary(t *testing.T) {
	a := func(fig, res string) row { return row{name: "(a) x", target: "≥ 15×", figure: fig, result: res} }
	fl := row{name: "(b) floor", target: "— (information)", figure: "2.9× the floor", result: "—"}
	d := func(res string) row { return row{name: "(d) y", target: "≥ 1.8×", result: res} }
	var buf bytes.Buffer
	printSummary(&buf, [][]row{
		{a("15.2×", met), fl, d(failed)},
		{a("14.1×", notMet), fl, d(skipped + " (1 CPU)")},
		{a("15.0×", met), fl, d(met)},
	})
	got := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []struct{ name, figures, verdict string }{
		{"(a) x", "15.2× · 14.1× · 15.0×", "2 of 3"},
		{"(b) floor", "2.9× the floor · 2.9× the floor · 2.9× the floor", "—"},
		{"(d) y", "FAILED · SKIPPED (1 CPU) · MET", "1 of 3"},
	}
	if len(got) != len(want)+1 {
		t.Fatalf("summary:\n%s", buf.String())
	}
	for i, w := range want {
		line := got[i+1]
		if !strings.HasPrefix(line, w.name) || !strings.Contains(line, w.figures) || !strings.HasSuffix(line, w.verdict) {
			t.Errorf("line %d: %q; want %s … %s … %s", i+1, line, w.name, w.figures, w.verdict)
		}
	}
}
