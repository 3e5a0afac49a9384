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
			cf.Stage, cf.Frame, cf.Served = v.Call.Stage, shown(v.Call.Frame), v.Call.Served
			return checks.Verdict{None: true}
		},
		OnChoice: func(v checks.ChoiceView, _ *checks.Declarations) checks.Verdict {
			cf := at(v.Call.Iteration)
			if cf.Stage == "" {
				cf.Stage, cf.Frame, cf.Served = v.Call.Stage, shown(v.Call.Frame), v.Call.Served
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

// shown is a frame as a reader is shown it: its lookups search the run's
// store, which is let go when the replay ends.
func shown(f checks.Frame) checks.Frame {
	f.Texts = nil
	return f
}

// frameTexts is checks.FrameTexts over the run's store: each text of one
// request frame by its ref there, so that it is lowered once in the run
// however many frames carry it, and searched through the run's lookup
// memo, so that it is searched for a value once. Refs are taken when a
// value is first looked up in the frame: a frame no armed call is judged
// against costs nothing.
type frameTexts struct {
	e        *engine
	system   []string
	messages []checks.Message
	refs     []textRef
	buf      []byte
}

// frameTexts is the lookups of frame f.
func (e *engine) frameTexts(f checks.Frame) checks.FrameTexts {
	return &frameTexts{e: e, system: f.System, messages: f.Messages}
}

func (ft *frameTexts) Holds(i int, needle string) (bool, error) {
	st := ft.e.store
	if ft.refs == nil {
		st.newPlaces()
		ft.refs = make([]textRef, len(ft.system)+len(ft.messages))
		for j, s := range ft.system {
			ft.refs[j] = st.lowerAt(s)
		}
		for j, m := range ft.messages {
			ft.refs[len(ft.system)+j] = st.lowerAt(m.Content)
		}
	}
	m := &ft.e.lookups
	vm, _ := m.of(needle, nil)
	has, buf, err := m.holds(st, vm, ft.refs[i], needle, ft.buf)
	ft.buf = buf
	return has, err
}
