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
