package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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

// TestFrameTextsMatchLowering holds the run's lookups in frames to the
// judgement that lowers each frame itself: values in the system prompt, in
// a person's or a tool's message, only in the model's own answer or
// nowhere, in other case, in frames that carry on the texts of the one
// before, looked up again and again, with the texts held and spilled.
func TestFrameTextsMatchLowering(t *testing.T) {
	decl, err := checks.ParseDeclarations("decl.yaml", []byte("tools:\n  backup_status: { argumentsFrom: [fleet_report] }\n"))
	if err != nil {
		t.Fatal(err)
	}
	values := []string{"RACK-A1", "host-0001", "İstanbul-4417", "bkp-4417-tier2", "host-0002", "zz-none-9", "\u212a8s-node"}
	for _, budget := range []int64{1 << 20, 1} {
		t.Run(fmt.Sprintf("budget-%d", budget), func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("TMPDIR", dir)
			e := newEngine(checks.Registry, decl, checks.PostureObserve, &recording.Run{ID: "run-frames"}, false)
			e.store.budget = budget
			system := []string{"You triage rack-a1."}
			msgs := []checks.Message{{Role: checks.RoleUser, Content: "Check HOST-0001 and the K8s-node."}}
			for step := range 12 {
				switch step % 3 {
				case 0:
					msgs = append(msgs, checks.Message{Role: checks.RoleTool, ToolName: "fleet_report", Content: fmt.Sprintf("istanbul-4417 host-%04d", step)})
				case 1:
					msgs = append(msgs, checks.Message{Role: checks.RoleAssistant, Content: "The job BKP-4417-TIER2 ran on " + msgs[len(msgs)-1].Content})
				default:
					system = []string{system[0], fmt.Sprintf("Piece %d", step)}
				}
				frame := checks.Frame{Iteration: int64(step), System: system, Messages: msgs}
				held := frame
				held.Texts = e.frameTexts(frame)
				for _, v := range values {
					view := checks.ChoiceView{Calls: []checks.ToolCall{{ID: "q", Name: "backup_status", Args: json.RawMessage(fmt.Sprintf(`{"machine":%q}`, v))}}}
					view.Call.Frame = frame
					want := checks.UnsupportedArgument.OnChoice(view, decl)
					view.Call.Frame = held
					got := checks.UnsupportedArgument.OnChoice(view, decl)
					if diff := cmp.Diff(want, got); diff != "" {
						t.Fatalf("step %d, %q (-lowered +through the store):\n%s", step, v, diff)
					}
				}
			}
			e.finish()
			assertNoneLeft(t, dir)
		})
	}
}

// TestFrameTextsReadFailureIsStated: a frame text that cannot be read back
// leaves the argument unjudged and says why, never a value nothing holds.
func TestFrameTextsReadFailureIsStated(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	decl, err := checks.ParseDeclarations("decl.yaml", []byte("tools:\n  backup_status: { argumentsFrom: [fleet_report] }\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(checks.Registry, decl, checks.PostureObserve, &recording.Run{ID: "run-frames"}, false)
	e.store.budget = 1
	frame := checks.Frame{Iteration: 3, Messages: []checks.Message{{Role: checks.RoleTool, Content: "host-0001 online"}}}
	frame.Texts = e.frameTexts(frame)
	// Its text goes to the file when first looked up, and the file is then
	// lost.
	if _, err := frame.Texts.Holds(0, "rack-a1"); err != nil || !e.store.items[0].spilled {
		t.Fatalf("the text was not spilled (%v)", err)
	}
	e.store.file.Close()
	view := checks.ChoiceView{Calls: []checks.ToolCall{{ID: "q", Name: "backup_status", Args: json.RawMessage(`{"machine":"host-0001"}`)}}}
	view.Call.Frame = frame
	got := checks.UnsupportedArgument.OnChoice(view, decl)
	if got.Disposition != checks.Unreachable || len(got.Reasons) != 1 || !strings.Contains(got.Reasons[0], "cannot be looked up in the iteration 3 frame") ||
		!strings.Contains(got.Reasons[0], "could not be read back") {
		t.Errorf("verdict %+v", got)
	}
}
