package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fpcheck/fpcheck/internal/hostile"
	"github.com/fpcheck/fpcheck/internal/synth"
	"github.com/fpcheck/fpcheck/recording"
)

// synthStream is a generated stream; prefix, when set, renames its runs so
// that streams can be put one after the other.
func synthStream(t *testing.T, c synth.Config, prefix string) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := synth.WriteNDJSON(&b, c); err != nil {
		t.Fatal(err)
	}
	if prefix == "" {
		return b.Bytes()
	}
	return bytes.ReplaceAll(b.Bytes(), []byte(`"runId":"run-`), []byte(`"runId":"`+prefix+`-run-`))
}

// followUpTurns is hostile.NamelessFollowUps of the empty-lookup fixture:
// the second turn's finding needs the book of call names, written at the
// first turn's end.
func followUpTurns(t *testing.T, n int) []byte {
	t.Helper()
	data, err := os.ReadFile("../../testdata/recordings/claims/empty-lookup-earlier-turn/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return hostile.NamelessFollowUps(data, n)
}

// deadRuns puts, after every run of stream, a run whose model call
// completed with nothing else recorded: in dev posture its wire check is
// dead, which travels with the run.
func deadRuns(stream []byte) []byte {
	var out bytes.Buffer
	seen := map[string]bool{}
	for _, line := range bytes.SplitAfter(stream, []byte("\n")) {
		out.Write(line)
		if !bytes.Contains(line, []byte(`"agentfootprint.integrity.disposition"`)) {
			continue
		}
		id := fmt.Sprintf("dead-%d", len(seen))
		seen[id] = true
		fmt.Fprintf(&out, `{"type":"agentfootprint.agent.run_configured","payload":{"agentId":"a"},"meta":{"runId":%q}}`+"\n", id)
		fmt.Fprintf(&out, `{"type":"agentfootprint.stream.llm_end","payload":{"content":"done","toolCallCount":0},"meta":{"runId":%q}}`+"\n", id)
	}
	return out.Bytes()
}

// foldCase is an input of the tests that hold one way of folding runs to
// another: its file, the flags to read it with, how many runs must be
// stopped at a limit and how often the follow-up turns' finding named.
type foldCase struct {
	name           string
	path           string
	flags          []string
	stopped, finds int
}

// foldCases writes the inputs of those tests into a temporary directory:
// interleaved runs, follow-up turns that read the book of call names, runs
// stopped at their limits and dead checks in dev posture.
func foldCases(t *testing.T) []foldCase {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	decls := write("armed.yaml", []byte(armed))
	followDecls := "../../testdata/recordings/claims/empty-lookup-earlier-turn/declarations.yaml"
	interleaved := synth.Config{Runs: 8, Iterations: 6, ToolResultBytes: 512, Evictions: true, Findings: true, Interleave: true, Seed: 5}
	long := synth.Config{Runs: 4, Iterations: 9, ToolResultBytes: 4096, LongResultEvery: 3, Findings: true, Seed: 9}
	short := synth.Config{Runs: 4, Iterations: 3, ToolResultBytes: 256, Findings: true, Seed: 11}
	mixed := append(synthStream(t, short, "short"), synthStream(t, long, "long")...)
	mixed = append(mixed, synthStream(t, interleaved, "pair")...)
	cases := []struct {
		name  string
		input []byte
		flags []string
		// stopped is how many runs must be stopped at a limit, finds how
		// often the report must name the follow-up turns' finding.
		stopped, finds int
	}{
		{name: "interleaved runs", input: synthStream(t, interleaved, ""), flags: []string{"--declarations", decls}},
		{name: "interleaved runs, nothing declared", input: synthStream(t, interleaved, "")},
		{name: "session-less follow-up turns with argumentsFrom", input: followUpTurns(t, 12), flags: []string{"--declarations", followDecls}, finds: 12},
		{name: "runs stopped at --max-run-bytes", input: mixed, flags: []string{"--declarations", decls, "--max-run-bytes", "300000"}, stopped: 4},
		{name: "runs stopped at --max-events-per-run", input: mixed, flags: []string{"--declarations", decls, "--max-events-per-run", "100"}, stopped: 12},
		{name: "dead checks in dev posture", input: deadRuns(mixed), flags: []string{"--declarations", decls, "--posture", "dev"}},
	}
	var out []foldCase
	for _, c := range cases {
		out = append(out, foldCase{name: c.name, path: write(strings.ReplaceAll(c.name, " ", "-")+".jsonl", c.input), flags: c.flags, stopped: c.stopped, finds: c.finds})
	}
	return out
}

// TestFoldPoolMatchesSerial: runs folded on the pool's goroutines give the
// report, the exit code and the messages of a fold on the loader's own,
// for interleaved runs, follow-up turns that read the book of call names,
// runs stopped at their limits and dead checks in dev posture.
func TestFoldPoolMatchesSerial(t *testing.T) {
	tests := foldCases(t)
	for _, tc := range tests {
		path := tc.path
		for _, format := range [][]string{{"--format", "json"}, {"--format", "text", "--color=never"}} {
			args := append(append([]string{"analyze"}, format...), tc.flags...)
			code1, out1, err1 := run(t, nil, append(args, "-j", "1", path)...)
			for _, j := range []string{"2", "3", "4"} {
				code, out, errOut := run(t, nil, append(args, "-j", j, path)...)
				if code != code1 || out != out1 || errOut != err1 {
					t.Errorf("%s %v: -j %s differs from -j 1 (exit %d vs %d)\n-j 1:\n%s\n-j %s:\n%s\nstderr %q vs %q",
						tc.name, format, j, code, code1, head(out1), j, head(out), errOut, err1)
				}
			}
			if format[1] != "json" {
				continue
			}
			var rep struct {
				Inputs []struct {
					StoppedRuns []json.RawMessage `json:"stoppedRuns"`
				} `json:"inputs"`
				Runs []struct {
					CheckerDead string `json:"checkerDead"`
				} `json:"runs"`
			}
			if err := json.Unmarshal([]byte(out1), &rep); err != nil || len(rep.Inputs) != 1 {
				t.Fatalf("%s: reading the report: %v\n%s", tc.name, err, head(out1))
			}
			if got := len(rep.Inputs[0].StoppedRuns); got != tc.stopped {
				t.Errorf("%s: %d runs stopped, want %d", tc.name, got, tc.stopped)
			}
			if got := strings.Count(out1, "empty-lookup @write [tool backup_status + tool fleet_report]"); tc.finds > 0 && got < tc.finds {
				t.Errorf("%s: the follow-up turns' finding is named %d times, want at least %d", tc.name, got, tc.finds)
			}
			dead := 0
			for _, r := range rep.Runs {
				if r.CheckerDead != "" {
					dead++
				}
			}
			if strings.Contains(tc.name, "dead") != (dead > 0) {
				t.Errorf("%s: %d runs with a dead check", tc.name, dead)
			}
		}
	}
}

// fakeFold records what it is handed; its End may take a while.
type fakeFold struct {
	name   string
	log    *foldLog
	slow   time.Duration
	events int
}

type foldLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *foldLog) add(s string) {
	l.mu.Lock()
	l.lines = append(l.lines, s)
	l.mu.Unlock()
}

func (f *fakeFold) Add(ev *recording.Event) error {
	if f.events == 0 {
		f.log.add(f.name + " starts")
	}
	f.events++
	return nil
}
func (f *fakeFold) Kept() int64                       { return int64(f.events) }
func (f *fakeFold) Drop()                             { f.log.add(f.name + " dropped") }
func (f *fakeFold) Fallible() (anything, config bool) { return f.events == 0, f.events == 0 }
func (f *fakeFold) ReadsNames(string) bool            { return true }
func (f *fakeFold) End() error {
	time.Sleep(f.slow)
	f.log.add(f.name + " ends")
	return nil
}

// TestFoldPoolWaitsForEarlierEnds: a run that reads the book starts only
// once every End asked for before it was created has been folded, however
// slow those Ends are, while a run that does not read it starts at once;
// and no run waits for an End asked for after it was created, so nothing
// waits in a circle.
func TestFoldPoolWaitsForEarlierEnds(t *testing.T) {
	for _, workers := range []int{2, 4} {
		log := &foldLog{}
		p := newFoldPool(workers, 0)
		ev := &recording.Event{Type: recording.TypeToolEnd, Payload: json.RawMessage(`{}`)}
		add := func(f recording.RunFold, n int) {
			for range n {
				if err := f.Add(ev); err != nil {
					t.Fatal(err)
				}
			}
		}
		a := p.wrap(&fakeFold{name: "a", log: log, slow: 30 * time.Millisecond}, false)
		b := p.wrap(&fakeFold{name: "b", log: log, slow: 30 * time.Millisecond}, true)
		add(a, 600)
		add(b, 600)
		if err := a.End(); err != nil {
			t.Fatal(err)
		}
		// c is created after a's End was asked for: it waits for it, not
		// for b's, asked for later.
		c := p.wrap(&fakeFold{name: "c", log: log}, true)
		d := p.wrap(&fakeFold{name: "d", log: log}, false)
		add(c, 300)
		add(d, 300)
		if err := b.End(); err != nil {
			t.Fatal(err)
		}
		if err := c.End(); err != nil {
			t.Fatal(err)
		}
		d.Drop()
		if err := p.close(); err != nil {
			t.Fatal(err)
		}
		at := map[string]int{}
		for i, l := range log.lines {
			at[l] = i
		}
		for _, want := range [][2]string{{"a ends", "c starts"}, {"a starts", "a ends"}, {"c starts", "c ends"}} {
			i, ok1 := at[want[0]]
			j, ok2 := at[want[1]]
			if !ok1 || !ok2 || i > j {
				t.Errorf("%d workers: %q should come before %q: %q", workers, want[0], want[1], log.lines)
			}
		}
		if _, ok := at["d dropped"]; !ok {
			t.Errorf("%d workers: d was not released: %q", workers, log.lines)
		}
	}
}

// TestFoldPoolPanicReachesMain: a panic while a run is folded on the
// pool's goroutines reaches Main's guard, as one on the loader's does.
func TestFoldPoolPanicReachesMain(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "runs.jsonl")
	if err := os.WriteFile(path, synthStream(t, synth.Config{Runs: 6, Iterations: 4, Seed: 3}, ""), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(h func()) { foldTestHook = h }(foldTestHook)
	foldTestHook = func() { panic("fold exploded") }
	code, _, errOut := run(t, nil, "analyze", "-j", "4", path)
	if code != int(ExitInternal) || !strings.Contains(errOut, "fold exploded") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want exit %d and one line naming the panic", code, errOut, ExitInternal)
	}
}
