package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/report"
)

// multiTurnIDs are the run ids of the corpus's multi-turn recording, in
// file order.
var multiTurnIDs = []string{"run-1796025775481-1", "run-1796025775607-2", "run-1796025775667-3"}

// rerecorded writes, under dir/{base,head}/multi-turn.jsonl, the corpus's
// three-run multi-turn recording as the base and, as the head, the same
// recording as agentfootprint would write it again: every run id new, then
// edit applied to its lines (nil: none). It returns the two directories.
func rerecorded(t *testing.T, dir string, edit func([]string) []string) (string, string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(corpusPath(t), "multi-turn", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	base, head := filepath.Join(dir, "base"), filepath.Join(dir, "head")
	var pairs []string
	for i, id := range multiTurnIDs {
		pairs = append(pairs, id, "run-1796099990"+itoa(100+i)+"-"+itoa(i+1))
	}
	lines := strings.Split(strings.TrimSuffix(strings.NewReplacer(pairs...).Replace(string(src)), "\n"), "\n")
	if edit != nil {
		lines = edit(lines)
	}
	for _, f := range []struct{ dir, text string }{{base, string(src)}, {head, strings.Join(lines, "\n") + "\n"}} {
		if err := os.MkdirAll(f.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(f.dir, "multi-turn.jsonl"), []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return base, head
}

// byRun groups a stream's lines by run, in first-seen order.
func byRun(lines []string) [][]string {
	var groups [][]string
	at := map[string]int{}
	for _, l := range lines {
		var ev struct {
			Meta struct {
				RunID string `json:"runId"`
			} `json:"meta"`
		}
		_ = json.Unmarshal([]byte(l), &ev)
		i, ok := at[ev.Meta.RunID]
		if !ok {
			i = len(groups)
			at[ev.Meta.RunID] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], l)
	}
	return groups
}

// The cohort diff of a re-recorded multi-run scenario: every run id is new,
// so runs pair by their first turn's prompt; what no key pairs is listed as
// not compared, and never makes the diff green.
func TestCohortDiffOfReRecordedScenario(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func([]string) []string
		exit int
		// want are strings the text report carries; totals the JSON's.
		want   []string
		totals map[string]int
	}{
		{name: "run ids renamed", exit: 0,
			want:   []string{"RUN 1 · run-1796025775481-1 → run-1796099990100-1 (matched by prompt)", "PERSISTING defect unsupported-claim @claim"},
			totals: map[string]int{"matched": 3, "unmatched": 0, "persistingDefects": 6, "newDefects": 0, "regressions": 0}},
		{name: "turns written in another order", exit: 0,
			edit: func(lines []string) []string {
				g := byRun(lines)
				slices.Reverse(g)
				return slices.Concat(g...)
			},
			want:   []string{"RUN 3 · run-1796025775667-3 → run-1796099990102-3 (matched by prompt)"},
			totals: map[string]int{"matched": 3, "persistingDefects": 6}},
		{name: "one turn's prompt changed", exit: 3,
			edit: func(lines []string) []string {
				for i, l := range lines {
					lines[i] = strings.Replace(l, `"userPrompt":"Re-read it: what is the nav count now?"`, `"userPrompt":"Read it again: the nav count?"`, 1)
				}
				return lines
			},
			want: []string{"RUN 2 · run-1796025775607-2 → — (not compared: base only)", "⚠ NOT COMPARED — Base run run-1796025775607-2 was not compared",
				"RESULT exit 3 (runs not compared)"},
			totals: map[string]int{"matched": 2, "unmatched": 2, "regressions": 0}},
		{name: "a turn no longer recorded", exit: 1,
			edit:   func(lines []string) []string { return slices.Concat(byRun(lines)[:2]...) },
			want:   []string{"REGRESSION — Base run run-1796025775667-3 has no counterpart in the head"},
			totals: map[string]int{"matched": 2, "baseOnly": 1, "resolvedDefects": 0, "regressions": 1}},
		{name: "damaged head", exit: 1,
			edit: func(lines []string) []string {
				return append(lines, `{"type":"agentfootprint.agent.turn_end","meta":{"runId":"run-1796099990100-1"},"payload":`)
			},
			want:   []string{"REGRESSION — Evidence damaged in the head, not in the base"},
			totals: map[string]int{"matched": 3, "regressions": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, head := rerecorded(t, t.TempDir(), tc.edit)
			code, out, stderr := run(t, nil, "diff", "--color", "never", "--format", "text", base, head)
			if code != tc.exit {
				t.Errorf("exit %d, want %d (%s)\n%s", code, tc.exit, stderr, out)
			}
			flat := strings.Join(strings.Fields(out), " ")
			for _, w := range tc.want {
				if !strings.Contains(flat, w) {
					t.Errorf("text lacks %q:\n%s", w, out)
				}
			}
			_, js, _ := run(t, nil, "diff", "--format", "json", base, head)
			var doc struct {
				Inputs []struct {
					Name     string         `json:"name"`
					ExitCode int            `json:"exitCode"`
					Totals   map[string]int `json:"totals"`
				} `json:"inputs"`
				ExitCode int `json:"exitCode"`
			}
			if err := json.Unmarshal([]byte(js), &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Inputs) != 1 || doc.Inputs[0].Name != "multi-turn.jsonl" || doc.Inputs[0].ExitCode != tc.exit || doc.ExitCode != tc.exit {
				t.Fatalf("json scenarios: %+v, exit %d", doc.Inputs, doc.ExitCode)
			}
			for k, v := range tc.totals {
				if got := doc.Inputs[0].Totals[k]; got != v {
					t.Errorf("scenario totals[%s] = %d, want %d", k, got, v)
				}
			}
		})
	}
}

// The diff of a re-recorded scenario's saved reports is the diff of its
// recordings, in every format: the prompt key travels in the evidence.
func TestCohortDiffOfSavedReports(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func([]string) []string
	}{
		{"run ids renamed", nil},
		{"one turn's prompt changed", func(lines []string) []string {
			for i, l := range lines {
				lines[i] = strings.Replace(l, "Fire screen7 once more", "Fire screen7 again", 1)
			}
			return lines
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			base, head := rerecorded(t, dir, tc.edit)
			b, h := filepath.Join(dir, "base.json"), filepath.Join(dir, "head.json")
			run(t, nil, "analyze", "--output", "json="+b, base)
			run(t, nil, "analyze", "--output", "json="+h, head)
			for _, format := range report.DiffFormats() {
				wantCode, want, _ := run(t, nil, "diff", "--format", format, base, head)
				gotCode, got, stderr := run(t, nil, "diff", "--format", format, b, h)
				if gotCode != wantCode {
					t.Errorf("%s: diff of saved reports exit %d, of recordings %d (%s)", format, gotCode, wantCode, stderr)
				}
				got = strings.NewReplacer(b, base, h, head,
					report.MarkdownEscape(b), report.MarkdownEscape(base), report.MarkdownEscape(h), report.MarkdownEscape(head)).Replace(got)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: diff of saved reports differs (-recordings +reports):\n%s", format, diff)
				}
			}
		})
	}
}
