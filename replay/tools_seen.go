package replay

import (
	"slices"

	"github.com/fpcheck/fpcheck/recording"
)

// ToolsSeen lists, sorted and once each, the tools a run offered (the names
// of each llm_start's tools) or called (each tool_start's toolName): what
// the recording itself says the run's tools were, to hold declarations
// against. An event whose payload was not kept or does not read adds
// nothing.
func ToolsSeen(run *recording.Run) []string {
	var t toolsSeen
	for i := range run.Events {
		t.add(&run.Events[i])
	}
	return t.list()
}

// toolsSeen is ToolsSeen folded one event at a time: the distinct names
// and what they keep.
type toolsSeen struct {
	seen  map[string]bool
	bytes int64
	// last is the last llm_start's tools: a list met again is not read
	// again.
	last toolNamesMemo
	// start is the llm_start payload add read last.
	start llmStartPayload
}

// kept is the bytes the names and the last list hold.
func (t *toolsSeen) kept() int64 { return t.bytes + t.last.held() }

// add folds ev in. Of an llm_start it returns the payload as
// decodeLLMStart reads it off the slow path (whether it reads or not), for
// an engine off that path to take rather than decode it again; nil of any
// other event.
func (t *toolsSeen) add(ev *recording.Event) *llmStartPayload {
	switch ev.Type {
	case recording.TypeLLMStart:
		p := &t.start
		*p = llmStartPayload{}
		if decodeLLMStart(ev, p, false) {
			names, _ := t.last.namesOf(p.Tools, false, ev.PayloadValidated())
			for _, n := range names {
				t.note(n)
			}
		}
		return p
	case recording.TypeToolStart:
		if n, ok := calledTool(ev); ok {
			t.note(n)
		}
	}
	return nil
}

func (t *toolsSeen) note(name string) {
	if t.seen[name] {
		return
	}
	if t.seen == nil {
		t.seen = map[string]bool{}
	}
	t.seen[name] = true
	t.bytes += int64(entryCost + len(name))
}

// list is the names seen, sorted.
func (t *toolsSeen) list() []string {
	out := make([]string, 0, len(t.seen))
	for n := range t.seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
