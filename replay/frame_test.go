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

// TestMessagesWithoutRawContent: a request's records without rawContent
// are named one by one up to listedUnknown and the rest counted in one
// sentence, while llm_start's messagesCount is still held to every
// record; the messages whose content is recorded are all in the frame.
func TestMessagesWithoutRawContent(t *testing.T) {
	tests := []struct {
		name           string
		known, unknown int
		wantMore       string
	}{
		{"none missing", 3, 0, ""},
		{"one missing", 2, 1, ""},
		{"as many as are listed", 1, listedUnknown, ""},
		{"one more than are listed", 1, listedUnknown + 1, "1 more message of iteration 1 carries no rawContent"},
		{"a flood", 4, listedUnknown + 5000, "5000 more messages of iteration 1 carry no rawContent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := &recording.Run{Input: "slot.jsonl", ID: "run-slot"}
			add := func(typ, payload string) {
				run.Events = append(run.Events, recording.Event{Type: typ, Payload: []byte(payload), Line: int64(len(run.Events) + 1), Index: int64(len(run.Events))})
			}
			// Known and unknown records alternate while both last.
			total, known := tt.known+tt.unknown, 0
			for i := range total {
				if known < tt.known && (i%2 == 1 || i-known >= tt.unknown) {
					known++
					add(recording.TypeContextInjected, fmt.Sprintf(`{"slot":"messages","source":"user","contentHash":"k%d","rawContent":"m%d","position":%d}`, i, i, i))
					continue
				}
				add(recording.TypeContextInjected, fmt.Sprintf(`{"slot":"messages","source":"user","contentHash":"u%d","position":%d}`, i, i))
			}
			// One more than were recorded, so the count is compared.
			add(recording.TypeLLMStart, fmt.Sprintf(`{"iteration":1,"messagesCount":%d,"systemPromptChars":0}`, total+1))
			frames, err := Frames(run, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(frames) != 1 {
				t.Fatalf("%d frames, want 1", len(frames))
			}
			f := frames[0].Frame
			if len(f.Messages) != tt.known {
				t.Errorf("%d messages in the frame, want %d", len(f.Messages), tt.known)
			}
			var want []string
			for i := range total {
				if len(want) == listedUnknown {
					break
				}
				if !strings.Contains(string(run.Events[i].Payload), "rawContent") {
					want = append(want, fmt.Sprintf("the user message at position %d of iteration 1 carries no rawContent", i))
				}
			}
			if tt.wantMore != "" {
				want = append(want, tt.wantMore)
			}
			want = append(want, fmt.Sprintf("iteration 1 recorded %d messages in context.injected but llm_start says %d", total, total+1))
			if diff := cmp.Diff(want, f.Gaps); diff != "" {
				t.Errorf("gaps (-want +got):\n%s", diff)
			}
		})
	}
}
