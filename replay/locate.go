package replay

import (
	"bytes"
	"encoding/json"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// locatePayload is the part of any payload the locator reads: enough to
// tell which iteration, call and message an event belongs to.
type locatePayload struct {
	Iteration   *float64        `json:"iteration"`
	ToolName    string          `json:"toolName"`
	ToolCallID  string          `json:"toolCallId"`
	Args        json.RawMessage `json:"args"`
	Slot        string          `json:"slot"`
	Source      string          `json:"source"`
	SourceID    string          `json:"sourceId"`
	ContentHash string          `json:"contentHash"`
}

// locatedCall is one tool_start and the iteration of the model call that
// made it.
type locatedCall struct {
	pos       checks.Position
	name      string
	args      json.RawMessage
	iteration int64
	known     bool // iteration known
}

// locator indexes the events of one run by what findings name: the model
// call of an iteration, the response of a stage, a tool call and its
// result by call id, the evictions and the answer.
type locator struct {
	llmStart   map[int64]checks.Position
	llmEnd     map[int64]checks.Position
	endByStage map[string]int64
	calls      []locatedCall
	// pending are, per stage, the calls whose result is not yet
	// recorded.
	pending  map[string][]string
	callByID map[string]int
	results  map[string]checks.Position
	byStage  map[string][]checks.Position
	// hashCalls joins a messages-slot record's content hash to the call
	// whose result it carried, so an eviction names the call it dropped.
	hashCalls map[string][]string
	evictions []evictionAt
	answers   []checks.Position
}

type evictionAt struct {
	pos  checks.Position
	hash string
}

func positionOf(ev *recording.Event, what string) checks.Position {
	return checks.Position{What: what, Event: ev.Type, Line: ev.Line, Index: ev.Index, Rotated: ev.Rotated}
}

func newLocator(events []recording.Event) *locator {
	l := &locator{
		llmStart:   map[int64]checks.Position{},
		llmEnd:     map[int64]checks.Position{},
		endByStage: map[string]int64{},
		callByID:   map[string]int{},
		pending:    map[string][]string{},
		results:    map[string]checks.Position{},
		byStage:    map[string][]checks.Position{},
		hashCalls:  map[string][]string{},
	}
	iter, iterKnown := int64(0), false
	for i := range events {
		ev := &events[i]
		var p locatePayload
		if !ev.PayloadDropped {
			decodeLoose(ev.Payload, &p)
		}
		if stage := ev.Meta.RuntimeStageID; stage != "" && ev.Type != recording.TypeContextError && ev.Type != recording.TypeDisposition {
			l.byStage[stage] = append(l.byStage[stage], positionOf(ev, checks.EvidenceFiledAt))
		}
		switch ev.Type {
		case recording.TypeLLMStart:
			if it, ok := intOf(p.Iteration); ok {
				iter, iterKnown = it, true
			} else {
				iter++
			}
			pos := positionOf(ev, checks.EvidenceModelCall)
			pos.Iteration = ptrInt(iter)
			if _, seen := l.llmStart[iter]; !seen {
				l.llmStart[iter] = pos
			}
		case recording.TypeLLMEnd:
			pos := positionOf(ev, checks.EvidenceResponse)
			pos.Iteration = ptrInt(iter)
			if _, seen := l.llmEnd[iter]; !seen {
				l.llmEnd[iter] = pos
			}
			if stage := ev.Meta.RuntimeStageID; stage != "" {
				l.endByStage[stage] = iter
			}
		case recording.TypeToolStart:
			pos := positionOf(ev, checks.EvidenceToolCall)
			pos.ToolCallID = p.ToolCallID
			pos.Iteration = ptrInt(iter)
			if p.ToolCallID != "" {
				if _, seen := l.callByID[p.ToolCallID]; !seen {
					l.callByID[p.ToolCallID] = len(l.calls)
				}
			}
			if p.ToolCallID != "" {
				l.pending[ev.Meta.RuntimeStageID] = append(l.pending[ev.Meta.RuntimeStageID], p.ToolCallID)
			}
			l.calls = append(l.calls, locatedCall{pos: pos, name: p.ToolName, args: p.Args, iteration: iter, known: iterKnown || iter > 0})
		case recording.TypeToolEnd:
			if ev.PayloadDropped {
				// A result whose payload was not kept names no call: it
				// answers the stage's one call still waiting for its
				// result, and with several waiting it is not named.
				p.ToolCallID = l.onlyPending(ev.Meta.RuntimeStageID)
			}
			l.answered(ev.Meta.RuntimeStageID, p.ToolCallID)
			if _, seen := l.results[p.ToolCallID]; !seen && p.ToolCallID != "" {
				pos := positionOf(ev, checks.EvidenceResult)
				pos.ToolCallID = p.ToolCallID
				pos.Iteration = ptrInt(iter)
				l.results[p.ToolCallID] = pos
			}
		case recording.TypeContextInjected:
			if p.Slot == "messages" && p.ContentHash != "" && p.SourceID != "" && !containsString(l.hashCalls[p.ContentHash], p.SourceID) {
				l.hashCalls[p.ContentHash] = append(l.hashCalls[p.ContentHash], p.SourceID)
			}
		case recording.TypeContextEvicted:
			if p.Slot == "" || p.Slot == "messages" {
				pos := positionOf(ev, checks.EvidenceEviction)
				pos.Iteration = ptrInt(iter + 1)
				l.evictions = append(l.evictions, evictionAt{pos: pos, hash: p.ContentHash})
			}
		case recording.TypeTurnEnd:
			pos := positionOf(ev, checks.EvidenceAnswer)
			pos.Iteration = ptrInt(iter)
			l.answers = append(l.answers, pos)
		}
	}
	return l
}

// onlyPending is the call of a stage still waiting for its result, when
// there is exactly one.
func (l *locator) onlyPending(stage string) string {
	if ids := l.pending[stage]; len(ids) == 1 {
		return ids[0]
	}
	return ""
}

// answered takes a call off its stage's waiting list; an unnamed result
// of a stage with several waiting leaves the list unknowable, so it is
// dropped.
func (l *locator) answered(stage, id string) {
	ids := l.pending[stage]
	if id == "" {
		delete(l.pending, stage)
		return
	}
	for i, x := range ids {
		if x == id {
			l.pending[stage] = append(ids[:i:i], ids[i+1:]...)
			return
		}
	}
}

func ptrInt(v int64) *int64 { return &v }

// Locate fills each finding's Evidence with the recording positions of
// what it is about, read from the run's events: the model call of its
// iteration, the response it was chosen in, the tool calls it names and
// their results, the evictions that dropped a ground it names, and the
// final answer it judges. A recorded finding keeps the position of the
// event that carried it first. Positions a recording does not let the
// locator pin down are left out rather than guessed.
func Locate(events []recording.Event, fs []checks.Finding) {
	if len(fs) == 0 {
		return
	}
	l := newLocator(events)
	for i := range fs {
		fs[i].Evidence = l.locate(fs[i])
	}
}

func (l *locator) locate(f checks.Finding) []checks.Position {
	var out []checks.Position
	add := func(p checks.Position) {
		for _, q := range out {
			if q.Same(p) {
				return
			}
		}
		out = append(out, p)
	}
	for _, p := range f.Evidence {
		if p.What == checks.EvidenceFinding {
			add(p)
		}
	}
	iter, iterKnown := int64(0), false
	if f.Iteration != nil {
		iter, iterKnown = *f.Iteration, true
	} else if f.Epoch != nil {
		iter, iterKnown = *f.Epoch, true
	}
	if it, ok := l.endByStage[f.FiledAt]; ok && (f.Seam == checks.SeamChoice || f.Seam == checks.SeamWire) {
		iter, iterKnown = it, true
	}
	if iterKnown {
		if p, ok := l.llmStart[iter]; ok {
			add(p)
		}
		if f.Seam == checks.SeamChoice || f.Seam == checks.SeamWire {
			if p, ok := l.llmEnd[iter]; ok {
				add(p)
			}
		}
	}
	for _, id := range l.callsOf(f, iter, iterKnown) {
		if c, ok := l.callByID[id]; ok {
			add(l.calls[c].pos)
		}
		if p, ok := l.results[id]; ok {
			add(p)
		}
	}
	if f.Kind == checks.KindDanglingReference {
		for _, p := range l.evictionsOf(f, iter, iterKnown) {
			add(p)
		}
	}
	if f.Seam == checks.SeamClaim {
		if p, ok := l.answerOf(iter, iterKnown); ok {
			add(p)
		}
	}
	if len(out) == 0 || (len(out) == 1 && out[0].What == checks.EvidenceFinding) {
		// Nothing else pinned down: the stage that filed it is still a
		// place to look.
		if ps := l.byStage[f.FiledAt]; len(ps) > 0 && f.FiledAt != "" {
			add(ps[0])
		}
	}
	checks.SortPositions(out)
	return out
}

// callsOf names the tool calls a finding is about: the calls its check
// named, or, for a finding that names none (a recorded one), the calls of
// its iteration to the tool it is about whose arguments carry the value its
// witnesses name.
func (l *locator) callsOf(f checks.Finding, iter int64, iterKnown bool) []string {
	if len(f.CallIDs) > 0 {
		return f.CallIDs
	}
	if !iterKnown || len(f.Subjects) == 0 || f.Subjects[0].Kind != "tool" {
		return nil
	}
	if f.Seam != checks.SeamChoice && f.Seam != checks.SeamWrite {
		return nil
	}
	var ids []string
	for _, c := range l.calls {
		if c.iteration != iter || c.name != f.Subjects[0].ID || c.pos.ToolCallID == "" {
			continue
		}
		if f.Predicate != "" && !argsCarry(c.args, f) {
			continue
		}
		ids = append(ids, c.pos.ToolCallID)
	}
	return ids
}

// argsCarry reports whether a call's arguments carry a value one of the
// finding's witnesses asserts, or the finding names no such value.
func argsCarry(args json.RawMessage, f checks.Finding) bool {
	valued := false
	for _, w := range f.Witnesses {
		var s string
		if json.Unmarshal(w.Value, &s) != nil || s == "" {
			continue
		}
		valued = true
		if bytes.Contains(bytes.ToLower(args), bytes.ToLower([]byte(s))) {
			return true
		}
	}
	return !valued
}

// evictionsOf are the evictions before the finding's model call that
// dropped a result of a ground the finding names.
func (l *locator) evictionsOf(f checks.Finding, iter int64, iterKnown bool) []checks.Position {
	grounds := map[string]bool{}
	for _, s := range f.Subjects[min(1, len(f.Subjects)):] {
		grounds[s.ID] = true
	}
	limit := int64(-1)
	if p, ok := l.llmStart[iter]; ok && iterKnown {
		limit = p.Index
	}
	var out []checks.Position
	for _, e := range l.evictions {
		if limit >= 0 && e.pos.Index > limit {
			break
		}
		for _, id := range l.hashCalls[e.hash] {
			c, ok := l.callByID[id]
			if !ok || !grounds[l.calls[c].name] {
				continue
			}
			p := e.pos
			p.ToolCallID = id
			out = append(out, p)
			if r, ok := l.results[id]; ok {
				out = append(out, r)
			}
			break
		}
	}
	return out
}

// answerOf is the final answer of the iteration (or the run's last).
func (l *locator) answerOf(iter int64, iterKnown bool) (checks.Position, bool) {
	for _, p := range l.answers {
		if iterKnown && p.Iteration != nil && *p.Iteration == iter {
			return p, true
		}
	}
	if len(l.answers) > 0 {
		return l.answers[len(l.answers)-1], true
	}
	return checks.Position{}, false
}
