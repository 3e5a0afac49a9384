package replay

import (
	"encoding/json"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
)

func TestHoldsPlaceholder(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want bool
	}{
		{`"[REDACTED]"`, true},
		{`"REDACTED"`, true},
		{`{"machine":"REDACTED"}`, true},
		{`[1,{"a":[" [REDACTED] "]}]`, true},
		{`{"machine":"4417-ganymede"}`, false},
		{`"NOT REDACTED"`, false},
		{`"REDACTED-7"`, false},
		{``, false},
		{`{"a":`, false},
	} {
		if got := holdsPlaceholder(json.RawMessage(tc.raw)); got != tc.want {
			t.Errorf("holdsPlaceholder(%s) = %v, want %v", tc.raw, got, tc.want)
		}
	}
}

func TestRedactedReasons(t *testing.T) {
	frame := checks.Frame{System: []string{"prompt"}, Messages: []checks.Message{{Role: checks.RoleTool, Content: "[REDACTED]"}, {Role: checks.RoleUser, Content: "hi"}}}
	if got, want := redactedChoice(checks.UnsupportedArgument, checks.ChoiceView{Call: checks.CallView{Frame: frame}}, false), "the recording redacts tool results: a placeholder (REDACTED) stands where the content was"; got != want {
		t.Errorf("choice: %q, want %q", got, want)
	}
	v := checks.ClaimView{Answer: "[REDACTED]", AnswerKnown: true}
	if got, want := redactedClaim(checks.UnsupportedClaim, v, true), "the recording redacts the answer (the run was served under a redaction policy: its snapshot carries the agentfootprint.redaction marker), so a placeholder stands where the content was"; got != want {
		t.Errorf("claim: %q, want %q", got, want)
	}
	w := checks.WriteView{Result: json.RawMessage(`"[REDACTED]"`), Call: checks.ToolCall{Args: json.RawMessage(`"[REDACTED]"`)}}
	if got, want := redactedWrite(checks.EmptyLookup, w, false), "the recording redacts tool arguments and tool results: a placeholder (REDACTED) stands where the content was"; got != want {
		t.Errorf("write: %q, want %q", got, want)
	}
	if got := redactedWrite(checks.ColumnTypeMismatch, checks.WriteView{Result: json.RawMessage(`[{"host":"a"}]`)}, true); got != "" {
		t.Errorf("unredacted write: %q", got)
	}
}
