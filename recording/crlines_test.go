package recording

import (
	"strings"
	"testing"
)

// TestCROnlyLineEndings: a stream whose events end in CR alone reads as
// one long line; it is said so, not taken for a killed writer, and CRLF
// stays an ordinary line ending.
func TestCROnlyLineEndings(t *testing.T) {
	ev := `{"type":"agentfootprint.agent.turn_start","payload":{"userPrompt":"q"},"meta":{"runId":"run-1"}}`
	tests := []struct {
		name      string
		input     string
		events    int64
		says      string
		truncated bool
	}{
		{"CR alone", ev + "\r" + ev + "\r" + ev + "\r", 0, "events separated by carriage returns alone (3 CR)", false},
		{"CR alone, last newline", ev + "\r" + ev + "\r\n", 0, "carriage returns alone (2 CR)", false},
		{"CRLF", ev + "\r\n" + ev + "\r\n", 2, "", false},
		{"a cut-off line with a CR inside a string", ev + "\n" + `{"type":"x","payload":"a` + "\r" + `b`, 1, "cut off mid-line", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := loadBytes(t, "s.jsonl", []byte(tt.input), Options{})
			st := res.Stats
			if st.Events != tt.events || st.TruncatedTail != tt.truncated {
				t.Errorf("events %d truncated %v, want %d %v", st.Events, st.TruncatedTail, tt.events, tt.truncated)
			}
			var msgs []string
			for _, p := range st.Problems {
				msgs = append(msgs, p.Message)
			}
			all := strings.Join(msgs, "\n")
			if tt.says == "" && all != "" || !strings.Contains(all, tt.says) {
				t.Errorf("problems %q, want %q", all, tt.says)
			}
			if tt.says != "" && !tt.truncated && strings.Contains(all, "killed") {
				t.Errorf("diagnosed as a killed writer: %q", all)
			}
		})
	}
}
