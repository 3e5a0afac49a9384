package replay

import (
	"os"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// TestFramesOfTheDemo rebuilds the demo's second turn: the frame of its one
// model call holds the assistant's own earlier answer, where the argument
// of the call it made was read from, and the response's call is there.
func TestFramesOfTheDemo(t *testing.T) {
	data, err := os.ReadFile("../testdata/recordings/demo/declarations.yaml")
	if err != nil {
		t.Fatal(err)
	}
	decl, err := checks.ParseDeclarations("declarations.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	var runs []*recording.Run
	if _, err := recording.Load("../testdata/recordings/demo/triage.jsonl", recording.Options{}, func(r *recording.Run) error {
		runs = append(runs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs", len(runs))
	}
	frames, err := Frames(runs[1], decl)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		ok   func([]CallFrame) bool
	}{
		{"two model calls, in order", func(fs []CallFrame) bool { return len(fs) == 2 && fs[0].Iteration == 1 && fs[1].Iteration == 2 }},
		{"the first frame is complete", func(fs []CallFrame) bool {
			return fs[0].Frame.Complete() && fs[0].Frame.Source == checks.FrameFromInjected
		}},
		{"the assistant's earlier answer is message 1", func(fs []CallFrame) bool {
			m := fs[0].Frame.Messages
			return len(m) == 3 && m[1].Role == checks.RoleAssistant && strings.Contains(m[1].Content, "bkp-4417-ganymede-tier2")
		}},
		{"the response called backup_status", func(fs []CallFrame) bool {
			c := fs[0].Calls
			return len(c) == 1 && c[0].Name == "backup_status" && c[0].ID == "g3" && strings.Contains(string(c[0].Args), "4417-ganymede")
		}},
		{"the second call's frame carries the result", func(fs []CallFrame) bool {
			m := fs[1].Frame.Messages
			return len(m) == 5 && m[4].Role == checks.RoleTool && m[4].ToolCallID == "g3"
		}},
		{"the final answer is on the last call", func(fs []CallFrame) bool { return fs[1].AnswerKnown && !fs[0].AnswerKnown }},
	}
	for _, tt := range tests {
		if !tt.ok(frames) {
			t.Errorf("%s: frames %+v", tt.name, frames)
		}
	}
}
