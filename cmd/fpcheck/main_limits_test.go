package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusDir is the shared reference corpus the end-to-end tests derive
// their hostile inputs from.
const corpusDir = "../../../shared/reference-corpus"

// lostFindingStream is the dangling-reference corpus stream with its one
// finding event dropped, as a capped stream loses it, and its ledger's
// findings count written as count.
func lostFindingStream(t *testing.T, count string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, "dangling-reference", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if strings.Contains(line, `"type":"agentfootprint.integrity.context_error"`) {
			continue
		}
		if strings.Contains(line, `"type":"agentfootprint.integrity.disposition"`) {
			if !strings.Contains(line, `"findings":6`) {
				t.Fatal("the corpus ledger no longer counts 6 findings")
			}
			line = strings.Replace(line, `"findings":6`, `"findings":`+count, 1)
		}
		kept = append(kept, line)
	}
	return []byte(strings.Join(kept, ""))
}

// TestDamagedLedgerCountIsNeverGreen: a run that lost its finding and
// whose ledger still counts it is evidence missing (exit 1); every other
// spelling of that count once read as 0 and made the run green.
func TestDamagedLedgerCountIsNeverGreen(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		count string
		code  int
		want  string
	}{
		{"6", 1, "EVIDENCE MISSING"},
		{"-6", 3, "is -6, not a count"},
		{"9007199254740992", 3, "is 9007199254740992, not a count"},
		{"1e21", 3, "is 1e21, not a count"},
		{"1234567890123456789012345678901", 3, "is 1234567890123456789012345678901, not a count"},
		{`"6"`, 3, `is "6", not a count`},
		{"6.5", 3, "is 6.5, not a count"},
		{"6,\"findings\":0", 3, "findings is repeated"},
	}
	for i, tt := range tests {
		t.Run(tt.count, func(t *testing.T) {
			path := filepath.Join(dir, "run"+string(rune('a'+i))+".jsonl")
			if err := os.WriteFile(path, lostFindingStream(t, tt.count), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, format := range []string{"text", "json", "sarif"} {
				code, stdout, stderr := run(t, nil, "analyze", "--color=never", "--format", format, path)
				if code != tt.code {
					t.Errorf("%s: exit %d, want %d; stderr %q", format, code, tt.code, stderr)
				}
				if format == "text" && !strings.Contains(stdout, tt.want) {
					t.Errorf("text report lacks %q:\n%s", tt.want, stdout)
				}
				if tt.code == 3 && format == "text" && !strings.Contains(stdout, "EVIDENCE DAMAGED — a ledger count is unusable (line 193): payload.rows[") {
					t.Errorf("text report does not name the line and field:\n%s", stdout)
				}
			}
		})
	}
}
