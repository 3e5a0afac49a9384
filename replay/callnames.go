package replay

import (
	"encoding/json"
	"sync"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// A tool call id names its tool in a few events only: the call's
// tool_start, the assistant message of a history that made the call, and
// the tool message of a history that answers it. A follow-up turn carries
// an earlier turn's result into its request by call id alone
// (context.injected, source tool-result), so the run judging it may learn
// the tool's name from an earlier run of the conversation, or only from its
// own history, written after the result it is judging. Both are facts of
// the recording, not guesses, so the write seam uses them: names from
// earlier runs are looked up in a CallNames book, and an encounter whose
// verdict hangs on a call id the run has not named yet is judged at the end
// of the run, when every name it states is known. A call id that nothing in
// the recording names stays unnamed, and what depends on it unreachable.

// CallNames is the book of the tool names the runs of one input state for
// their call ids, kept per conversation (runs sharing a session id, or
// naming none). Each run reads only what earlier runs of its conversation
// wrote, whatever order the replays run in. Safe for concurrent use.
type CallNames struct {
	mu   sync.Mutex
	runs int
	// kept counts the names written, up to maxBookNames.
	kept int
	// named maps a conversation and a call id to the runs that named it.
	named map[callKey][]namedBy
	// lookups counts the names looked up, which tests hold AsksBook to.
	lookups int
}

// maxBookNames bounds the names one book keeps, so a crafted input of
// endless call ids cannot grow it without end. A name the book did not keep
// leaves its call id unnamed, which makes what depends on it unreachable:
// never a finding and never a pass.
const maxBookNames = 1 << 20

type callKey struct{ session, id string }

type namedBy struct {
	run  int
	name string
}

// NewCallNames is an empty book, for the runs of one input.
func NewCallNames() *CallNames { return &CallNames{named: map[callKey][]namedBy{}} }

// callNamesView is one run's reading of the book: the names earlier runs of
// its conversation wrote. session is the run's conversation as far as it
// is known when a name is looked up.
type callNamesView struct {
	book    *CallNames
	session *string
	run     int
}

// start takes a run's place in the book and returns its view of what
// came before it: its place is seq, or, when seq is negative, after every
// run started so far, so runs must then start in input order. A run reads
// the names of the runs before it, once they have ended.
func (b *CallNames) start(session *string, seq int) callNamesView {
	b.mu.Lock()
	defer b.mu.Unlock()
	idx := b.runs
	b.runs++
	if seq >= 0 {
		idx = seq
	}
	return callNamesView{book: b, session: session, run: idx}
}

// write enters the names a run states (see statedNames), under its
// conversation.
func (v callNamesView) write(names map[string]string, order []string) {
	b := v.book
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range order {
		name, ok := names[id]
		if !ok {
			continue
		}
		if b.kept >= maxBookNames {
			break
		}
		b.kept++
		k := callKey{*v.session, id}
		b.named[k] = append(b.named[k], namedBy{run: v.run, name: name})
	}
}

// name is the tool earlier runs of the conversation name for a call id:
// empty when none does, or when they name different tools (a reused id
// cannot be told apart, so it is not named).
func (v callNamesView) name(id string) string {
	if v.book == nil || id == "" {
		return ""
	}
	v.book.mu.Lock()
	defer v.book.mu.Unlock()
	v.book.lookups++
	name := ""
	for _, n := range v.book.named[callKey{*v.session, id}] {
		if n.run >= v.run {
			continue
		}
		if name != "" && name != n.name {
			return ""
		}
		name = n.name
	}
	return name
}

// namedCall is a call id and the tool a run's event names for it.
type namedCall struct{ id, name string }

// statedNames are the call ids a run names, with their tool: from its
// tool_start events (every call the run made has one) and its last history
// (which also names calls of earlier turns it still carries). Earlier
// histories are not read again: they are what the later ones grew from,
// and their own calls have a tool_start. An id a run names with two tools
// is left out. order lists the ids as they were met reading the run from
// its end, so the book keeps the same names on every read.
func statedNames(run *recording.Run, slow bool) (names map[string]string, order []string) {
	var s namesStated
	for i := range run.Events {
		s.add(&run.Events[i], slow)
	}
	return s.result()
}

// namesStated is statedNames folded one event at a time: the names of the
// run's tool_start events, and of its latest history with where it stood
// among them.
type namesStated struct {
	starts  []namedCall
	history []namedCall
	// historyAt is how many tool_start names came before the history.
	historyAt int
	bytes     int64
}

func (s *namesStated) add(ev *recording.Event, slow bool) {
	switch ev.Type {
	case recording.TypeToolStart:
		var p toolStartPayload
		if decodeToolStart(ev, &p, slow, nil) {
			s.call(p.ToolCallID, p.ToolName)
		}
	case recording.TypeIterationEnd:
		var p iterationEndPayload
		if !decodeIterationEnd(ev, &p, slow) || len(p.History) == 0 || string(p.History) == "null" {
			return
		}
		if msgs, ok := decodeHistory(nil, p.History, false, slow, ev.PayloadValidated()); ok {
			s.historyOf(msgs)
		}
	}
}

// call notes the names of a tool_start.
func (s *namesStated) call(id, name string) {
	if id != "" && name != "" {
		s.starts = append(s.starts, namedCall{id, name})
		s.bytes += int64(entryCost + len(id) + len(name))
	}
}

// historyOf notes the names of a history that reads, in place of the
// last one.
func (s *namesStated) historyOf(msgs []historyMessage) {
	for _, c := range s.history {
		s.bytes -= int64(entryCost + len(c.id) + len(c.name))
	}
	s.history, s.historyAt = s.history[:0], len(s.starts)
	note := func(id, name string) {
		if id != "" && name != "" {
			s.history = append(s.history, namedCall{id, name})
			s.bytes += int64(entryCost + len(id) + len(name))
		}
	}
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			note(tc.ID, tc.Name)
		}
		if m.Role == checks.RoleTool {
			note(m.ToolCallID, m.ToolName)
		}
	}
}

// result reads what was folded as statedNames reads the run: from its end,
// the tool_start names after the history, the history in its own order,
// then the tool_start names before it.
func (s *namesStated) result() (names map[string]string, order []string) {
	out := map[string]string{}
	conflict := map[string]bool{}
	add := func(c namedCall) {
		if conflict[c.id] {
			return
		}
		prev, ok := out[c.id]
		switch {
		case !ok:
			out[c.id] = c.name
			order = append(order, c.id)
		case prev != c.name:
			delete(out, c.id)
			conflict[c.id] = true
		}
	}
	for i := len(s.starts) - 1; i >= s.historyAt; i-- {
		add(s.starts[i])
	}
	for _, c := range s.history {
		add(c)
	}
	for i := s.historyAt - 1; i >= 0; i-- {
		add(s.starts[i])
	}
	return out, order
}

// namesRead reports whether a replay with these declarations reads the
// tools of served results, the one thing the book is for; when it does not,
// runs neither read nor write it.
func namesRead(reg []*checks.Check, d *checks.Declarations, posture string, slow bool) bool {
	return slow || needsFor(reg, d, posture).served
}

// nameOf is the tool the recording names for a call id so far: this run's
// own statements first, then earlier runs of the conversation.
func (e *engine) nameOf(id string) string {
	if n := e.callNames[id]; n != "" {
		return n
	}
	return e.earlier.name(id)
}

// deferredWrite is a write-seam encounter judged at the end of the run:
// the view as it stood, and how many served results it could see.
type deferredWrite struct {
	check  *checks.Check
	view   checks.WriteView
	args   json.RawMessage
	served int
}

// hangsOnUnnamed reports whether a view's verdict may change once more call
// ids are named: one of its key arguments was found only in unnamed
// results, or none of its grounds served anything while some result seen
// so far has a call id but no tool.
func (e *engine) hangsOnUnnamed(v checks.WriteView) bool {
	if v.Tool == nil || len(v.Tool.ArgumentsFrom) == 0 || v.KeysProblem != "" {
		return false
	}
	if e.unnamedServed == 0 {
		return false
	}
	if len(v.GroundsServed) == 0 {
		return true
	}
	for _, k := range v.Keys {
		if k.InUnnamedResult {
			return true
		}
	}
	return false
}

// resolveDeferred names what the run has learned since each deferred
// encounter and judges it, in the order the encounters were met.
func (e *engine) resolveDeferred() {
	if len(e.deferred) == 0 {
		return
	}
	for i := range e.served {
		if s := &e.served[i]; s.tool == "" {
			if tool := e.nameOf(s.callID); tool != "" {
				e.nameServed(i, tool)
			}
		}
	}
	for _, d := range e.deferred {
		v := d.view
		v.Keys, v.KeysProblem, v.GroundsServed = e.groundKeys(v.Tool, v.Call.ID, d.args, d.served)
		e.ledger.NoteAt(d.check, v.Iteration, d.check.OnWrite(v, e.decl))
	}
	e.deferred = nil
}

// NamesOrder is the loader's release policy (recording.Options' Release)
// for the runs of an input replayed over reg under decl, in posture, with
// one CallNames book: a run that reads the book must be prepared (or its
// fold started) after the earlier runs of its conversation have written
// theirs, so it waits for them; a run that neither reads nor writes it is
// judged as soon as it ends. A run whose first event is not its
// agent.run_configured may still be armed by one before its first seam
// event, so it waits too. The conversation is the first event's session
// id.
func NamesOrder(reg []*checks.Check, decl *checks.Declarations, posture string) func(first *recording.Event) (string, bool) {
	return func(first *recording.Event) (string, bool) {
		group := first.Meta.SessionID
		if first.Type != recording.TypeRunConfigured {
			return group, true
		}
		effective, p, ok := settle(&recording.Run{Events: []recording.Event{*first}}, decl, posture)
		if !ok {
			return group, true
		}
		return group, namesRead(reg, effective, p, false)
	}
}

// asksBook reports whether handling ev may look the book up: it serves a
// tool result whose call id the run has not named itself, so serve asks
// earlier runs for the tool. It reads the event as handle will, from the
// same bytes and the names the run states so far, and errs towards true.
func (e *engine) asksBook(ev *recording.Event) bool {
	if e.earlier.book == nil {
		return false
	}
	switch ev.Type {
	case recording.TypeContextInjected:
		if !e.need.messages() {
			return false
		}
		var p injectedPayload
		if !decodeInjected(ev, &p, nil, e.slow, nil) {
			return false
		}
		return p.Slot == "messages" && p.RawContent != nil && roleOf(p) == checks.RoleTool && e.unnamed(p.SourceID)
	case recording.TypeToolEnd:
		if !e.need.served {
			return false
		}
		var p toolEndPayload
		if !decodeToolEnd(ev, &p, e.slow) || len(p.Result) == 0 {
			return false
		}
		if call, started := e.toolCalls[p.ToolCallID]; started {
			return call.Name == "" && p.ToolCallID != ""
		}
		return e.unnamed(p.ToolCallID)
	case recording.TypeIterationEnd:
		if !e.need.messages() {
			return false
		}
		var p iterationEndPayload
		if !decodeIterationEnd(ev, &p, e.slow) || len(p.History) == 0 || string(p.History) == "null" {
			return false
		}
		msgs, ok := decodeHistory(nil, p.History, false, e.slow, ev.PayloadValidated())
		if !ok {
			// Read without its texts; the replay reads them too, and
			// is not asked to agree here.
			return true
		}
		named := map[string]bool{}
		for _, m := range msgs {
			for _, tc := range m.ToolCalls {
				if tc.ID != "" && tc.Name != "" {
					named[tc.ID] = true
				}
			}
		}
		for _, m := range msgs {
			if m.Role == checks.RoleTool && m.ToolName == "" && !named[m.ToolCallID] && e.unnamed(m.ToolCallID) {
				return true
			}
		}
	}
	return false
}

// unnamed reports whether serving a result of call id would ask the book:
// the id is not empty and the run names no tool for it.
func (e *engine) unnamed(id string) bool { return id != "" && e.callNames[id] == "" }
