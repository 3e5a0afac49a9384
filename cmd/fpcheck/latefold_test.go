package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/internal/hostile"
	"github.com/fpcheck/fpcheck/internal/synth"
)

// TestLateFoldsMatchFoldsAtOnce: runs whose folds start once they have
// collected some events (recording.Options.StartLate), and that, waiting
// for the earlier runs of their conversation, fold what reads nothing of
// the book meanwhile, give the report, the exit code and the messages of
// runs folded from their first event (or, waiting, once they may start),
// late from the first byte and at the default threshold, for
// interleaved runs, follow-up turns that read the book, runs stopped at
// their limits and dead checks in dev posture.
func TestLateFoldsMatchFoldsAtOnce(t *testing.T) {
	defer func(h bool, n int64, r int) { foldAtFirstEvent, lateFoldBytes, lateInFlight = h, n, r }(foldAtFirstEvent, lateFoldBytes, lateInFlight)
	tests := foldCases(t)
	dir := t.TempDir()
	hostileDecls := filepath.Join(dir, "hostile.yaml")
	if err := os.WriteFile(hostileDecls, []byte(hostile.ArmAll(hostile.Tools)), 0o644); err != nil {
		t.Fatal(err)
	}
	extra := []struct {
		name  string
		input []byte
		flags []string
	}{
		// The second run of each pair collects more than the default
		// threshold before the first ends.
		{name: "large interleaved runs", input: synthStream(t, synth.Config{Runs: 4, Iterations: 12, ToolResultBytes: 8192, Findings: true, Interleave: true, Seed: 13}, ""),
			flags: []string{"--declarations", tests[0].flags[1]}},
		{name: "follow-up turns behind an unfinished run", input: append(unfinishedHead(), followUpTurns(t, 6)...),
			flags: []string{"--declarations", "../../testdata/recordings/claims/empty-lookup-earlier-turn/declarations.yaml"}},
		{name: "a refused run_configured among interleaved runs", input: refuseDeclarationsOfRun(t, synthStream(t, synth.Config{Runs: 8, Iterations: 6, ToolResultBytes: 512, Findings: true, Interleave: true, Seed: 5}, ""), 3),
			flags: []string{"--declarations", tests[0].flags[1]}},
		{name: "one-event runs", input: hostileBytes(t, func(w io.Writer) (int64, error) { return hostile.ManyRuns(w, 500) })},
		{name: "one-event runs, armed", input: hostileBytes(t, func(w io.Writer) (int64, error) { return hostile.ManyRuns(w, 500) }),
			flags: []string{"--declarations", hostileDecls}},
		{name: "an unfinished run ahead of complete ones, armed", input: hostileBytes(t, func(w io.Writer) (int64, error) { return hostile.UnfinishedAhead(w, 50) }),
			flags: []string{"--declarations", hostileDecls}},
	}
	for _, c := range extra {
		p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".jsonl")
		if err := os.WriteFile(p, c.input, 0o644); err != nil {
			t.Fatal(err)
		}
		tests = append(tests, foldCase{name: c.name, path: p, flags: c.flags})
	}
	modes := []struct {
		name     string
		hold     bool
		bytes    int64
		inFlight int
	}{
		{"at once", true, 0, 0},
		{"every run late from the first byte", false, 1, -1},
		{"every run late past the default size", false, 0, -1},
		{"the defaults", false, 0, 0},
	}
	for _, tc := range tests {
		path := tc.path
		for _, format := range [][]string{{"--format", "json"}, {"--format", "text", "--color=never"}} {
			for _, j := range []string{"1", "2"} {
				args := append(append(append([]string{"analyze"}, format...), tc.flags...), "-j", j, path)
				var code0 int
				var out0, err0 string
				for i, m := range modes {
					foldAtFirstEvent, lateFoldBytes, lateInFlight = m.hold, m.bytes, m.inFlight
					code, out, errOut := run(t, nil, args...)
					if i == 0 {
						code0, out0, err0 = code, out, errOut
						continue
					}
					if code != code0 || out != out0 || errOut != err0 {
						t.Errorf("%s %v -j %s: %s differs from folds at once (exit %d vs %d)\nat once:\n%s\n%s:\n%s\nstderr %q vs %q",
							tc.name, format, j, m.name, code, code0, head(out0), m.name, head(out), errOut, err0)
					}
				}
			}
		}
	}
}

// unfinishedHead is a run that starts a stream and never ends, with no
// session: every session-less run after it that reads the book waits for
// the end of the input.
func unfinishedHead() []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"agentfootprint.agent.run_configured","payload":{"agentId":"a"},"meta":{"runId":"head"}}` + "\n")
	for i := range 3 {
		b.WriteString(`{"type":"agentfootprint.context.injected","payload":{"slot":"messages","source":"user","rawContent":"hello ` + strconv.Itoa(i) + `","contentHash":"00000000"},"meta":{"runId":"head"}}` + "\n")
	}
	return b.Bytes()
}

// hostileBytes is what one of internal/hostile's writers writes.
func hostileBytes(t *testing.T, write func(io.Writer) (int64, error)) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
