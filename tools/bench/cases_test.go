package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

func TestParseCases(t *testing.T) {
	tests := []struct {
		in   string
		want []string // must be picked
		not  []string // must not be
		bad  bool
	}{
		{in: "all", want: caseNames()},
		{in: "a, d", want: []string{"a", "d"}, not: []string{"b", "results-distinct"}},
		{in: "m", want: []string{"zstd-bomb", "results-distinct"}, not: []string{"a"}},
		{in: "gzip-bomb", want: []string{"gzip-bomb"}, not: []string{"zstd-bomb", "m"}},
		{in: "e", bad: true},
		{in: " , ", bad: true},
	}
	for _, tt := range tests {
		got, err := parseCases(tt.in)
		if (err != nil) != tt.bad {
			t.Errorf("parseCases(%q): %v", tt.in, err)
			continue
		}
		for _, w := range tt.want {
			if !got[w] {
				t.Errorf("parseCases(%q) did not pick %s", tt.in, w)
			}
		}
		for _, n := range tt.not {
			if got[n] {
				t.Errorf("parseCases(%q) picked %s", tt.in, n)
			}
		}
	}
}

func TestOutcome(t *testing.T) {
	tests := []struct {
		m    measurement
		want string
		ok   bool
	}{
		{measurement{code: 0}, "completed (exit 0)", true},
		{measurement{code: 3}, "completed (exit 3)", true},
		{measurement{code: 2, tail: "RESULT exit 2\n…\nx.jsonl: line 9: run \"r\" keeps more than 512 MiB in memory (limit set by --max-run-bytes)\n"},
			"stopped at --max-run-bytes (exit 2)", true},
		{measurement{code: 2, tail: "  x.jsonl: line 9: run \"r\" keeps more than 512 MiB (limit set by\n      --max-run-bytes)\n"},
			"stopped at --max-run-bytes (exit 2)", true},
		{measurement{code: 2, tail: "x.jsonl: cannot open: permission denied\n"}, "exit 2 naming no limit: x.jsonl: cannot open: permission denied", false},
		{measurement{code: 4}, "out of memory (exit 4)", false},
		{measurement{code: -1, timedOut: true, wall: 600 * time.Second}, "did not finish in 600.00 s", false},
	}
	for _, tt := range tests {
		got, ok := outcome(tt.m)
		if got != tt.want || ok != tt.ok {
			t.Errorf("outcome(%+v) = %q, %v; want %q, %v", tt.m, got, ok, tt.want, tt.ok)
		}
	}
}

func TestMemRow(t *testing.T) {
	c := memCases[0]
	run := func(wall time.Duration, code int, rss int64) measurement {
		return measurement{wall: wall, walls: []time.Duration{wall}, code: code, maxRSS: rss}
	}
	tests := []struct {
		name          string
		full, quarter measurement
		want          string
	}{
		{"met", run(4*time.Second, 0, 200e6), run(time.Second, 0, 100e6), met},
		{"too much memory", run(4*time.Second, 0, 300e6), run(time.Second, 0, 100e6), notMet},
		// four times the bytes in ten times the time is not linear
		{"not linear", run(10*time.Second, 0, 100e6), run(time.Second, 0, 50e6), notMet},
		{"a quarter not measured", run(4*time.Second, 0, 100e6), measurement{err: errors.New("boom")}, notMet},
		{"out of memory", run(4*time.Second, 4, 100e6), run(time.Second, 0, 50e6), notMet},
		{"failed", measurement{err: errors.New("boom")}, run(time.Second, 0, 50e6), failed},
	}
	for _, tt := range tests {
		r := memRow(c, 1, tt.full, tt.quarter, 4e9, 1e9, 4e6)
		if r.result != tt.want {
			t.Errorf("%s: result %s, want %s (%+v)", tt.name, r.result, tt.want, r)
		}
	}
	r := memRow(c, 0.01, run(4*time.Second, 0, 200e6), run(time.Second, 0, 100e6), 4e9, 1e9, 4e6)
	for _, want := range []string{"(m) one run, 655 distinct 32 KiB results, 4.00 GB, armed"} {
		if r.name != want {
			t.Errorf("name %q, want %q", r.name, want)
		}
	}
	if r := memRow(c, 1, measurement{timedOut: true, wall: time.Minute}, run(time.Second, 0, 50e6), 4e9, 1e9, 4e6); r.result != notMet || !strings.Contains(r.fpcheck, "did not finish in 60.00 s, peak RSS not measured") {
		t.Errorf("a timeout: %+v", r)
	}
	if got := memCases[len(memCases)-1].describe(0.5); got != "gzip bomb expanding to 1.07 GB" {
		t.Errorf("describe = %q", got)
	}
}

func TestHeadTail(t *testing.T) {
	var h headTail
	h.Write([]byte("start "))
	for range 5000 {
		h.Write([]byte("0123456789"))
	}
	h.Write([]byte(" the end"))
	s := h.String()
	if !strings.HasPrefix(s, "start ") || !strings.HasSuffix(s, " the end") || !strings.Contains(s, "\n…\n") || len(s) > 17<<10 {
		t.Errorf("headTail kept %d bytes: %.40q … %.40q", len(s), s, s[max(0, len(s)-40):])
	}
	var small headTail
	small.Write([]byte("all of it"))
	if small.String() != "all of it" {
		t.Errorf("a short report is %q", small.String())
	}
}

func TestWriteCopy(t *testing.T) {
	seed := []byte(`{"type":"x","meta":{"wallClockMs":1796026292699,"runId":"run-1"}}` + "\n" +
		`{"type":"y","payload":{"note":"\"runId\":\"inner\""},"meta":{"runId":"run-2","wallClockMs":5}}` + "\n")
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	if err := writeCopy(w, seed, 3); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	want := `{"type":"x","meta":{"wallClockMs":1796029292708,"runId":"run-1-c3"}}` + "\n" +
		`{"type":"y","payload":{"note":"\"runId\":\"inner\""},"meta":{"runId":"run-2-c3","wallClockMs":3000014}}` + "\n"
	if b.String() != want {
		t.Errorf("writeCopy:\n%s\nwant\n%s", b.String(), want)
	}
}

func TestRealShaped(t *testing.T) {
	seeds := [][]byte{
		[]byte(`{"type":"a","meta":{"wallClockMs":1,"runId":"r1"}}` + "\n"),
		[]byte(`{"type":"b","meta":{"wallClockMs":2,"runId":"r2"}}` + "\n"),
	}
	var out bytes.Buffer
	plain, packed, copies, err := writeRealShaped(&out, seeds, 500)
	if err != nil || packed != int64(out.Len()) || plain < 500 || copies < 2 {
		t.Fatalf("plain %d, packed %d (wrote %d), %d copies, %v", plain, packed, out.Len(), copies, err)
	}
	zr, err := zstd.NewReader(&out)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var lines []string
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if int64(len(lines)) != int64(copies) || !strings.Contains(lines[2], `"runId":"r1-c1"`) || !strings.Contains(lines[3], `"runId":"r2-c1"`) {
		t.Errorf("%d lines for %d copies: %q", len(lines), copies, lines[:min(4, len(lines))])
	}
	if got := seedTools([][]byte{[]byte(`{"payload":{"toolName":"b","tools":[{"name":"a"},{"name":"b"}]}}` + "\n" + `{"payload":{"toolName":"c"}}`)}); strings.Join(got, ",") != "a,b,c" {
		t.Errorf("seedTools = %v", got)
	}
	if r := corpusRatio(seeds); r <= 0 {
		t.Errorf("corpusRatio = %v", r)
	}
}

// TestCorpusSeeds reads the reference corpus when it is beside the repository.
func TestCorpusSeeds(t *testing.T) {
	seeds, err := corpusSeeds("../../../shared/reference-corpus")
	if err != nil {
		t.Skip(err)
	}
	if len(seeds) < 8 || len(seedTools(seeds)) == 0 {
		t.Errorf("%d seeds, tools %v", len(seeds), seedTools(seeds))
	}
	if _, err := corpusSeeds(t.TempDir()); err == nil {
		t.Error("an empty directory gave seeds")
	}
}

func TestFloor(t *testing.T) {
	dir := t.TempDir()
	long := `{"k":"` + strings.Repeat("x", 600<<10) + `"}`
	write := func(name, plain string) string {
		p := filepath.Join(dir, name)
		var b bytes.Buffer
		zw, _ := zstd.NewWriter(&b)
		zw.Write([]byte(plain))
		zw.Close()
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := strings.Repeat(`{"a":[1,2,"é"]}`+"\n", 200_000) + long + "\n" + `{"z":null}`
	if err := floorWork(write("good.zst", good), 2); err != nil {
		t.Errorf("a valid stream: %v", err)
	}
	bad := strings.Repeat(`{"a":1}`+"\n", 150_000) + long + "\n" + `{"a":}` + "\n" + `{"b":"\xff"}` + "\n"
	if err := floorWork(write("bad.zst", bad), 2); err == nil || err.Error() != "line 150002 is not valid JSON or not UTF-8" {
		t.Errorf("an invalid line: %v", err)
	}
	if err := floorWork(write("utf8.zst", `{"b":"`+"\xff"+`"}`), 1); err == nil {
		t.Error("invalid UTF-8 passed")
	}
}

func TestRatioRow(t *testing.T) {
	in := inputs{StreamBytes: 2000, StreamZst: 100, CorpusRatio: 14}
	if r := ratioRow(in); r.result != met {
		t.Errorf("20× against 14×: %+v", r)
	}
	in.StreamZst = 40
	if r := ratioRow(in); r.result != notMet {
		t.Errorf("50× against 14×: %+v", r)
	}
	in.CorpusRatio = 0
	if r := ratioRow(in); r.result != failed {
		t.Errorf("no corpus ratio: %+v", r)
	}
}

func TestTimeout(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	c := command{codes: memCodes, report: true, timeout: 200 * time.Millisecond, name: "sh", args: []string{"-c", "echo started; exec sleep 20"}}
	t0 := time.Now()
	m := alternate(1, c)[0]
	if !m.timedOut || m.maxRSS != 0 || time.Since(t0) > 10*time.Second {
		t.Errorf("timedOut %v, maxRSS %d, after %v (%v)", m.timedOut, m.maxRSS, time.Since(t0), m.err)
	}
}
