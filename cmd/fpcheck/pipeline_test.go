package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/internal/synth"
)

// armed declares something for the generated agent's tools, so the
// replays have work to do.
const armed = `
tools:
  backup_status: { argumentsFrom: [fleet_report], noticeEmptyLookups: true }
  fleet_report: { resultColumns: { host: string, zone: string } }
dials:
  noticePriorTurnEvidence: true
`

// TestRunsReplayedApartMatchSerial: with cores to spare for one input, its
// runs are replayed on other goroutines while the loader reads on. The
// report must be the bytes a serial replay gives, in every posture, and an
// input that a run's own declarations stop must stop at that run.
func TestRunsReplayedApartMatchSerial(t *testing.T) {
	dir := t.TempDir()
	var stream bytes.Buffer
	c := synth.DefaultConfig()
	c.Runs, c.Iterations, c.Seed = 6, 12, 7
	if _, err := synth.WriteNDJSON(&stream, c); err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("runs.jsonl", stream.Bytes())
	stopped := write("stopped.jsonl", refuseDeclarationsOfRun(t, stream.Bytes(), 3))
	decls := write("armed.yaml", []byte(armed))
	held := write("held.jsonl", holdRunBack(t, stream.Bytes(), 0, false))
	unended := write("unended.jsonl", holdRunBack(t, stream.Bytes(), 0, true))

	inputs := map[string][]string{
		"six runs": {good}, "stopped at the fourth run": {stopped},
		"first run ends last": {held}, "first run never ends": {unended},
	}
	if fixtures, err := filepath.Glob("../../testdata/recordings/replay/*/events.jsonl"); err != nil || len(fixtures) == 0 {
		t.Fatalf("no replay fixtures: %v", err)
	} else {
		inputs["replay fixtures"] = fixtures
	}
	if corpus, err := filepath.Glob("../../../shared/reference-corpus/*/*.json*"); err == nil && len(corpus) > 0 {
		inputs["reference corpus"] = corpus
	}
	for name, files := range inputs {
		for _, flags := range [][]string{
			{"--format", "json"},
			{"--format", "json", "--declarations", decls},
			{"--format", "json", "--declarations", decls, "--posture", "dev"},
			{"--format", "text", "--color=never", "--declarations", decls},
		} {
			for _, f := range files {
				args := append([]string{"analyze"}, flags...)
				code1, out1, err1 := run(t, nil, append(append(args, "-j", "1"), f)...)
				code4, out4, err4 := run(t, nil, append(append(args, "-j", "4"), f)...)
				if code1 != code4 || out1 != out4 || err1 != err4 {
					t.Errorf("%s, %s %v: -j 4 differs from -j 1 (exit %d vs %d)\n-j 1 stdout:\n%s\n-j 4 stdout:\n%s\nstderr: %q vs %q",
						name, filepath.Base(f), flags, code1, code4, head(out1), head(out4), err1, err4)
				}
			}
		}
	}
	// The stopped input really stops, at the fourth run's declarations.
	_, out, _ := run(t, nil, "analyze", "--format", "json", "-j", "4", stopped)
	var rep struct {
		Inputs []struct {
			Error string `json:"error"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Inputs) != 1 {
		t.Fatalf("reading the report: %v\n%s", err, head(out))
	}
	if got := rep.Inputs[0].Error; !strings.Contains(got, `posture "loud"`) {
		t.Errorf("the stopped input's error is %q; want the fourth run's declarations refused", got)
	}
	if len(inputs) < 4 {
		t.Log("the reference corpus is not beside the repository; compared generated streams only")
	}
}

// holdRunBack moves every event of run n (from 0) of a generated stream
// but its first to the end of the stream, or drops them when drop is set:
// a run still in flight, or one that never ends, while the later runs
// complete.
func holdRunBack(t *testing.T, stream []byte, n int, drop bool) []byte {
	t.Helper()
	var front, back [][]byte
	var id string
	seen := map[string]bool{}
	for _, line := range bytes.SplitAfter(stream, []byte("\n")) {
		var ev struct {
			Meta struct {
				RunID string `json:"runId"`
			} `json:"meta"`
		}
		if json.Unmarshal(line, &ev) != nil {
			front = append(front, line)
			continue
		}
		if !seen[ev.Meta.RunID] {
			if len(seen) == n {
				id = ev.Meta.RunID
				seen[id] = true
				front = append(front, line)
				continue
			}
			seen[ev.Meta.RunID] = true
		}
		if ev.Meta.RunID == id {
			back = append(back, line)
			continue
		}
		front = append(front, line)
	}
	if id == "" || len(back) == 0 {
		t.Fatalf("the stream has no run %d to hold back", n)
	}
	if drop {
		back = nil
	}
	return bytes.Join(append(front, back...), nil)
}

// TestRunsReportedInTheOrderTheyBegan: runs are judged as they end, but
// a report lists them in the order their first events were read.
func TestRunsReportedInTheOrderTheyBegan(t *testing.T) {
	var stream bytes.Buffer
	c := synth.DefaultConfig()
	c.Runs, c.Iterations, c.Seed = 5, 4, 3
	if _, err := synth.WriteNDJSON(&stream, c); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	decls := filepath.Join(dir, "armed.yaml")
	if err := os.WriteFile(decls, []byte(armed), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		n    int
		drop bool
	}{
		{"first run ends last", 0, false},
		{"third run ends last", 2, false},
		{"first run never ends", 0, true},
	} {
		data := holdRunBack(t, stream.Bytes(), tc.n, tc.drop)
		p := filepath.Join(dir, "s.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var began []string
		for _, line := range bytes.Split(data, []byte("\n")) {
			var ev struct {
				Meta struct {
					RunID string `json:"runId"`
				} `json:"meta"`
			}
			if json.Unmarshal(line, &ev) == nil && !slices.Contains(began, ev.Meta.RunID) {
				began = append(began, ev.Meta.RunID)
			}
		}
		for _, flags := range [][]string{{"-j", "1"}, {"-j", "4"}, {"-j", "4", "--declarations", decls}} {
			_, out, _ := run(t, nil, append(append([]string{"analyze", "--format", "json"}, flags...), p)...)
			var rep struct {
				Runs []struct {
					RunID string `json:"runId"`
				} `json:"runs"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%s %v: reading the report: %v\n%s", tc.name, flags, err, head(out))
			}
			var got []string
			for _, r := range rep.Runs {
				got = append(got, r.RunID)
			}
			if !slices.Equal(got, began) {
				t.Errorf("%s %v: runs reported as %q, want the order they began %q", tc.name, flags, got, began)
			}
		}
	}
}

// refuseDeclarationsOfRun gives the run_configured event of run n (from 0)
// of a generated stream declarations fpcheck refuses.
func refuseDeclarationsOfRun(t *testing.T, stream []byte, n int) []byte {
	t.Helper()
	lines := bytes.SplitAfter(stream, []byte("\n"))
	seen := 0
	for i, line := range lines {
		var ev map[string]json.RawMessage
		if json.Unmarshal(line, &ev) != nil || string(ev["type"]) != `"agentfootprint.agent.run_configured"` {
			continue
		}
		if seen == n {
			ev["payload"] = json.RawMessage(`{"integrity":{"posture":"loud"}}`)
			b, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			lines[i] = append(b, '\n')
			return bytes.Join(lines, nil)
		}
		seen++
	}
	t.Fatalf("the stream has no run %d", n)
	return nil
}

// panicReader stands for a bug under a pipeline goroutine.
type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("reader exploded") }

// A panic on one of the pipeline's goroutines reaches Main's guard: one
// line, exit 4, no stack dump.
func TestPipelinePanicReachesMain(t *testing.T) {
	for _, j := range []string{"1", "2", "4"} {
		var errOut bytes.Buffer
		ios := &IOStreams{In: panicReader{}, Out: &bytes.Buffer{}, ErrOut: &errOut, Getenv: testEnv}
		code := Main([]string{"analyze", "-j", j, "-"}, ios)
		msg := errOut.String()
		if code != int(ExitInternal) || !strings.Contains(msg, "reader exploded") || strings.Count(msg, "\n") != 1 || strings.Contains(msg, "goroutine") {
			t.Errorf("-j %s: exit %d, stderr %q; want exit %d and one line naming the panic", j, code, msg, ExitInternal)
		}
	}
}

// TestJobsCapped: a -j far past the CPUs gives an input no more decoders
// and fold goroutines than jobsPerCPU per CPU, since each costs memory
// before any work, and the report is the bytes -j 1 gives.
func TestJobsCapped(t *testing.T) {
	const demo = "../../testdata/recordings/demo/triage.jsonl"
	const decl = "../../testdata/recordings/demo/declarations.yaml"
	most := jobsPerCPU * max(runtime.NumCPU(), runtime.GOMAXPROCS(0))
	for _, j := range []int{1, most, most + 1, 100_000} {
		p, err := newPipeline(loadOptions{Jobs: j, Declarations: decl})
		if err != nil {
			t.Fatal(err)
		}
		ios := &IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}, Getenv: testEnv}
		res := p.run([]string{demo}, ios, nil)
		if len(res) != 1 || res[0].Err != nil {
			t.Fatalf("-j %d: %+v", j, res)
		}
		if want := min(j, most); p.workers != want {
			t.Errorf("-j %d: %d workers for one input, want %d", j, p.workers, want)
		}
	}
	code1, out1, _ := run(t, nil, "analyze", "--format", "json", "--declarations", decl, "-j", "1", demo)
	codeN, outN, _ := run(t, nil, "analyze", "--format", "json", "--declarations", decl, "-j", "10000000", demo)
	if code1 != 1 || codeN != code1 || outN != out1 {
		t.Errorf("-j 10000000 exits %d, -j 1 %d, or their reports differ", codeN, code1)
	}
}
