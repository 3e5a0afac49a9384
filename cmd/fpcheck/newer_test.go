package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewerLiveChecksReconcile: a recording of a release that ships the
// checks fpcheck replays (its ledger registers their rows, its live
// findings carry iteration) reconciles each live finding with the replayed
// one as recorded and replayed, never as a newer check.
func TestNewerLiveChecksReconcile(t *testing.T) {
	for _, tc := range []struct {
		dir   string
		code  int // an advisory alone passes the default gate
		kinds []string
	}{
		{"live-unsupported-argument", 1, []string{"unsupported-argument"}},
		{"live-empty-lookup", 0, []string{"empty-lookup"}},
		{"live-columns-enforce", 1, []string{"column-type-mismatch", "missing-column"}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join("../../testdata/recordings/newer", tc.dir)
			code, out, errOut := run(t, nil, "analyze", "--format", "json", "--declarations", filepath.Join(dir, "declarations.yaml"), filepath.Join(dir, "events.jsonl"))
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, errOut)
			}
			var rep struct {
				Runs []struct {
					RunID    string `json:"runId"`
					Recorded struct {
						Rows []json.RawMessage `json:"rows"`
					} `json:"recorded"`
					Findings []struct {
						Kind      string `json:"kind"`
						Source    string `json:"source"`
						Why       string `json:"why"`
						Iteration *int64 `json:"iteration"`
					} `json:"findings"`
				} `json:"runs"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rep.Runs {
				if len(r.Recorded.Rows) != 8 {
					t.Errorf("%s: the live ledger has %d rows, want 8", r.RunID, len(r.Recorded.Rows))
				}
				for _, f := range r.Findings {
					got = append(got, f.Kind)
					if f.Source != "both" {
						t.Errorf("%s: %s is %s (%s), want both", r.RunID, f.Kind, f.Source, f.Why)
					}
					if f.Iteration == nil {
						t.Errorf("%s: %s carries no iteration", r.RunID, f.Kind)
					}
				}
			}
			if len(got) != len(tc.kinds) {
				t.Fatalf("findings %v, want %v", got, tc.kinds)
			}
			for i := range got {
				if got[i] != tc.kinds[i] {
					t.Fatalf("findings %v, want %v", got, tc.kinds)
				}
			}
		})
	}
}

// TestExternalGroundExcused: the argument the live run excused with an
// external ground files nothing on replay, and the report says it was
// excused and by what; without the excusal the same run files it.
func TestExternalGroundExcused(t *testing.T) {
	dir := "../../testdata/recordings/newer/external-ground"
	for _, format := range []string{"text", "json"} {
		code, out, errOut := run(t, nil, "analyze", "--color=never", "--format", format, "--declarations", filepath.Join(dir, "declarations.yaml"), filepath.Join(dir, "events.jsonl"))
		if code != 0 {
			t.Fatalf("%s: exit %d, want 0\n%s\n%s", format, code, out, errOut)
		}
		want := `Excused: 'backup_status' argument machine = \"4417-ganymede\" (call g3) is excused: the app verified it (external ground \"viewer-selection\"), as the live run recorded.`
		if format == "text" {
			want = strings.ReplaceAll(want, `\"`, `"`)
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s report does not say the argument was excused:\n%s", format, out)
		}
	}
}

// TestRedactedRunNotJudgedOnPlaceholders: the redacted twin of a run, as
// a stream (no marker) and as a recording whose snapshot carries the
// redaction marker, files no replayed finding its unredacted twin does
// not; the content checks say why they could not judge, and the
// structure-only checks run as on the twin.
func TestRedactedRunNotJudgedOnPlaceholders(t *testing.T) {
	type row struct {
		Check, Seam                         string
		Checked, NotApplicable, Unreachable int
	}
	type report struct {
		Runs []struct {
			RunID    string `json:"runId"`
			Replayed struct {
				Rows []row `json:"rows"`
			} `json:"replayed"`
			Findings []struct {
				Identity string `json:"identity"`
				Source   string `json:"source"`
				Why      string `json:"why"`
			} `json:"findings"`
		} `json:"runs"`
	}
	analyze := func(dir, file string) report {
		_, out, errOut := run(t, nil, "analyze", "--format", "json", "--declarations", filepath.Join(dir, "declarations.yaml"), filepath.Join(dir, file))
		var r report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%s: %v\n%s", file, err, errOut)
		}
		return r
	}
	twin := analyze("../../testdata/recordings/newer/live-unsupported-argument", "events.jsonl")
	twinReplayed := map[string]bool{}
	for _, r := range twin.Runs {
		for _, f := range r.Findings {
			if f.Source != "recorded" {
				twinReplayed[f.Identity] = true
			}
		}
	}
	if len(twinReplayed) == 0 {
		t.Fatal("the unredacted twin replays no finding; the comparison would prove nothing")
	}
	for _, file := range []string{"events.jsonl", "recording.json"} {
		red := analyze("../../testdata/recordings/newer/redacted", file)
		if len(red.Runs) != len(twin.Runs) {
			t.Fatalf("%s: %d runs, twin has %d", file, len(red.Runs), len(twin.Runs))
		}
		said := false
		for i, r := range red.Runs {
			for _, f := range r.Findings {
				if f.Source != "recorded" && !twinReplayed[f.Identity] {
					t.Errorf("%s: %s: replayed finding %s that the unredacted twin does not file", file, r.RunID, f.Identity)
				}
				if strings.Contains(f.Why, "replay lacked input: the recording redacts ") && strings.Contains(f.Why, "tool arguments") {
					said = true
				}
			}
			for j, rw := range r.Replayed.Rows {
				tw := twin.Runs[i].Replayed.Rows[j]
				switch rw.Seam {
				case "wire", "compose":
					if rw != tw {
						t.Errorf("%s: %s: structure-only row %+v differs from the twin's %+v", file, r.RunID, rw, tw)
					}
				case "choice":
					if rw.Unreachable == 0 {
						t.Errorf("%s: %s: the choice row %+v judged redacted content", file, r.RunID, rw)
					}
				}
			}
		}
		if !said {
			t.Errorf("%s: no finding says the recording redacts tool arguments", file)
		}
	}
}
