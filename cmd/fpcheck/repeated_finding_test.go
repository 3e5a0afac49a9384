package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/internal/hostile"
)

// TestRepeatedFindingListedOnce scales down the memory case of one finding
// recorded 200,000 times: in every format the finding is listed once with
// its count and line span, the report stays small whatever the count, and
// the ledger (which counts every copy) reconciles as it would with each
// copy kept.
func TestRepeatedFindingListedOnce(t *testing.T) {
	const copies = 20_000
	path := filepath.Join(t.TempDir(), "repeated.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hostile.RepeatedFinding(f, copies); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// The head is three lines, so the copies are lines 4 to copies+3.
	tests := []struct {
		format string
		want   []string
	}{
		{"text", []string{"[1] dangling-reference @compose", "⚠ recorded 20,000 times, lines 4…20003, listed once", "✗ DEFECTS 1 defect"}},
		{"json", []string{`"copies": 20000,`, `"lastLine": 20003,`}},
		{"jsonl", []string{`"copies":20000,"lastLine":20003`}},
		{"sarif", []string{`"occurrenceCount": 20000`, `"lastLine": 20003`}},
		{"markdown", []string{"iteration 4 · recorded 20,000 times, lines 4…20003"}},
		{"html", []string{"recorded 20,000 times, lines 4…20003"}},
		{"junit", []string{"recorded 20,000 times, lines 4…20003"}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			code, stdout, stderr := run(t, nil, "analyze", "--color=never", "--format", tt.format, path)
			if code != 1 {
				t.Fatalf("exit %d, want 1\nstderr:\n%s", code, stderr)
			}
			// Each copy kept would add hundreds of bytes to the report.
			if len(stdout) > 256<<10 {
				t.Errorf("the report is %d bytes for one finding", len(stdout))
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("the report lacks %q:\n%s", w, head(stdout))
				}
			}
			if strings.Count(stdout, "results of 'whats_here' evicted") > 2 {
				t.Errorf("the finding is listed more than once:\n%s", head(stdout))
			}
		})
	}
	_, stdout, _ := run(t, nil, "analyze", "--format", "json", path)
	var rep struct {
		Runs []struct {
			Findings []struct {
				Copies   int   `json:"copies"`
				Line     int64 `json:"line"`
				LastLine int64 `json:"lastLine"`
			} `json:"findings"`
			Recorded struct {
				Defects         int   `json:"defects"`
				RowFindings     int64 `json:"rowFindings"`
				Reconciliation  bool  `json:"reconciliation"`
				EvidenceMissing bool  `json:"evidenceMissing"`
				IntegrityEvents int   `json:"integrityEvents"`
				Dispositions    int   `json:"dispositions"`
			} `json:"recorded"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || len(rep.Runs[0].Findings) != 1 {
		t.Fatalf("want one run listing one finding, got %+v", rep.Runs)
	}
	got, rec := rep.Runs[0].Findings[0], rep.Runs[0].Recorded
	if got.Copies != copies || got.Line != 4 || got.LastLine != copies+3 {
		t.Errorf("finding copies %d lines %d…%d, want %d lines 4…%d", got.Copies, got.Line, got.LastLine, copies, copies+3)
	}
	// The ledger counts every copy as a failing encounter and the events
	// carry every copy: nothing to reconcile, nothing missing, one defect.
	if rec.Defects != 1 || rec.RowFindings != copies || rec.Reconciliation || rec.EvidenceMissing || rec.IntegrityEvents != copies+1 || rec.Dispositions != 1 {
		t.Errorf("recorded side %+v", rec)
	}
}
