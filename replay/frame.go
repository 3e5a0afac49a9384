package replay

import (
	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// CallFrame is one model call of a run as the replay rebuilt it: the
// request the model was handed, by role, and what it answered with (the
// tool calls it made, or the final answer it gave).
type CallFrame struct {
	Iteration int64
	// Stage is the runtimeStageId of the call's llm_start.
	Stage string
	Frame checks.Frame
	// Served is the tool names offered on the call, in request order; nil
	// when not recorded.
	Served []string
	// Calls are the tool calls of the call's response, in order.
	Calls []checks.ToolCall
	// Answer is the final answer chosen from this call, when it was the
	// last call before one; AnswerKnown is false otherwise.
	Answer      string
	AnswerKnown bool
}

// Frames rebuilds the request frame of every model call of a run, exactly
// as the checks are handed it during a replay under decl (the frame a
// finding's message speaks of), in call order. It reads the run through the
// replay engine with one observer in place of the registry, so a frame
// shown to a reader can never differ from the frame a check judged.
func Frames(run *recording.Run, decl *checks.Declarations) ([]CallFrame, error) {
	var out []CallFrame
	byIter := map[int64]int{}
	at := func(it int64) *CallFrame {
		if i, ok := byIter[it]; ok {
			return &out[i]
		}
		byIter[it] = len(out)
		out = append(out, CallFrame{Iteration: it})
		return &out[len(out)-1]
	}
	observer := &checks.Check{
		Kind:  "frame-observer",
		Seam:  checks.SeamChoice,
		Armed: func(*checks.Declarations) bool { return true },
		OnCompose: func(v checks.ComposeView, _ *checks.Declarations) checks.Verdict {
			cf := at(v.Call.Iteration)
			cf.Stage, cf.Frame, cf.Served = v.Call.Stage, v.Call.Frame, v.Call.Served
			return checks.Verdict{None: true}
		},
		OnChoice: func(v checks.ChoiceView, _ *checks.Declarations) checks.Verdict {
			cf := at(v.Call.Iteration)
			if cf.Stage == "" {
				cf.Stage, cf.Frame, cf.Served = v.Call.Stage, v.Call.Frame, v.Call.Served
			}
			cf.Calls = append(cf.Calls, v.Calls...)
			return checks.Verdict{None: true}
		},
		OnClaim: func(v checks.ClaimView, _ *checks.Declarations) []checks.Verdict {
			cf := at(v.Frame.Iteration)
			if v.AnswerKnown {
				cf.Answer, cf.AnswerKnown = v.Answer, true
			}
			return nil
		},
	}
	if _, err := ReplayWith([]*checks.Check{observer}, run, decl, Options{Posture: checks.PostureObserve}); err != nil {
		return nil, err
	}
	return out, nil
}
