package replay

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// serve records one tool result the run served. A result is known by its
// call id: the first text recorded for a call is kept (a tool_end result
// comes before the message that carries it into the next request), and a
// tool name learned later (an earlier run's message, named only when a
// history carries it) is filled in. A result of no named tool takes the
// name earlier runs of the conversation give its call id.
func (e *engine) serve(tool, callID, text string) {
	if tool == "" {
		tool = e.earlier.name(callID)
	}
	if callID != "" {
		if i, ok := e.servedAt[callID]; ok {
			if e.served[i].tool == "" && tool != "" {
				e.nameServed(i, tool)
			}
			return
		}
		e.servedAt[callID] = len(e.served)
	}
	e.count(len(tool), len(callID))
	e.served = append(e.served, servedEntry{callID: callID, low: e.store.internLower(text, checks.Lower)})
	if callID != "" {
		e.unnamedServed++
	}
	if tool != "" {
		e.nameServed(len(e.served)-1, tool)
	}
}

// nameServed names the tool of served result i, which had none, keeping
// the counts that spare a scan of every result at each tool call: how
// many results have a call id and no tool yet, and where each tool's
// first result stands.
func (e *engine) nameServed(i int, tool string) {
	s := &e.served[i]
	if s.callID != "" {
		e.unnamedServed--
	}
	s.tool = tool
	if at, ok := e.firstServed[tool]; !ok || i < at {
		if !ok {
			e.count(len(tool))
		}
		e.firstServed[tool] = i
	}
}

// resultText is a tool_end result as text: a JSON string's content, any
// other value as its JSON.
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// onToolEnd is the write seam: every tool result is handed to the write
// checks with the call it answers, the tool's declarations and, for a tool
// that declares argumentsFrom, whether each identifier-like argument was
// produced by one of its grounds earlier in what the run can see.
func (e *engine) onToolEnd(ev *recording.Event, stage string) {
	var p toolEndPayload
	if !decodeToolEnd(ev, &p, e.slow) {
		return
	}
	view := checks.WriteView{Iteration: e.lastIter, Stage: stage, HistoryGap: e.historyGap()}
	if len(p.Result) > 0 {
		view.Result = append(json.RawMessage(nil), p.Result...)
	}
	view.Error = p.notAnswer()
	call, started := e.toolCalls[p.ToolCallID]
	if !started {
		call = checks.ToolCall{ID: p.ToolCallID, Name: e.callNames[p.ToolCallID]}
	}
	view.Call = call
	view.CallRecorded = call.Name != ""
	view.Tool = e.decl.Tool(call.Name)
	// Key arguments are only read where a tool's empty lookups are
	// noticed (need.served).
	if view.Tool != nil && len(view.Tool.ArgumentsFrom) > 0 && e.need.served {
		// Without arguments groundKeys only names the grounds served.
		var args json.RawMessage
		if started && e.keysRead(&view) {
			args = call.Args
		}
		view.Keys, view.KeysProblem, view.GroundsServed = e.groundKeys(view.Tool, p.ToolCallID, args, len(e.served))
		if !started {
			view.KeysProblem = fmt.Sprintf("no tool_start is recorded for call %s to '%s', so its arguments are unknown", orDash(p.ToolCallID), call.Name)
		}
	}
	hangs := e.need.served && e.hangsOnUnnamed(view)
	for _, c := range e.reg {
		if c.OnWrite == nil || !e.ledger.Armed(c) {
			continue
		}
		v := view
		v.Keys = append([]checks.KeyArgument(nil), view.Keys...)
		v.GroundsServed = cloneStrings(view.GroundsServed)
		if why := redactedWrite(c, v, e.redacted); why != "" {
			e.ledger.NoteAt(c, view.Iteration, checks.UnreachableBecause(why))
			continue
		}
		if hangs && e.reads(c).served {
			// Judged at the end of the run, with the names it states
			// later; the result is all it keeps of this event.
			e.count(len(v.Result), len(call.Args), len(v.Call.ID), len(v.Call.Name), len(v.Stage))
			e.deferred = append(e.deferred, deferredWrite{check: c, view: v, args: call.Args, served: len(e.served)})
			continue
		}
		e.ledger.NoteAt(c, view.Iteration, c.OnWrite(v, e.decl))
	}
	if len(p.Result) > 0 {
		e.refusals.noteResult(e, call, view.Tool, p.Result)
	}
	if len(p.Result) > 0 && e.need.served {
		e.serve(call.Name, p.ToolCallID, resultTextOf(p.Result, &e.cache, e.slow))
	}
}

// keysRead reports whether anything reads the key arguments of the call v
// answers: the empty-lookup check, only of a result that reads as an empty
// lookup, and hangsOnUnnamed, only while results of unnamed tools are
// served. The reading of the result is left in v for the check. Looking the
// keys up in every result served was a quarter of what an armed tool_end
// cost, and nearly every result is not empty.
func (e *engine) keysRead(v *checks.WriteView) bool {
	if e.unnamedServed > 0 || !e.decl.EmptyLookupsOn(v.Tool) {
		return true
	}
	if v.Result == nil || v.Error {
		return false
	}
	r := checks.ReadLookupResult(v.Result)
	v.Lookup = &r
	return r.Judged && r.Empty
}

// groundKeys reads the key arguments of a call to a tool that declares
// argumentsFrom against the first n results served, and names the
// declared grounds among them. Nil args reads no arguments.
func (e *engine) groundKeys(tool *checks.ToolDecl, callID string, args json.RawMessage, n int) (keys []checks.KeyArgument, problem string, grounds []string) {
	if args != nil {
		var err error
		keys, err = checks.KeyArgumentsIn(args, tool.ArgumentsFrom, &servedView{e: e, n: n, grounds: tool.ArgumentsFrom})
		var rb *errReadBack
		switch {
		case errors.As(err, &rb):
			problem = fmt.Sprintf("the key arguments of call %s to '%s' cannot be looked up: %v", orDash(callID), tool.Name, err)
		case err != nil:
			problem = fmt.Sprintf("the arguments of call %s to '%s' are not readable JSON (%v)", orDash(callID), tool.Name, err)
		}
	}
	for _, g := range tool.ArgumentsFrom {
		if at, ok := e.firstServed[g]; ok && at < n {
			grounds = append(grounds, g)
		}
	}
	return keys, problem, grounds
}
