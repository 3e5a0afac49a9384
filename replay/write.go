package replay

import (
	"encoding/json"
	"fmt"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// serve records one tool result the run served. A result is known by its
// call id: the first text recorded for a call is kept (a tool_end result
// comes before the message that carries it into the next request), and a
// tool name learned later (an earlier run's message, named only when a
// history carries it) is filled in.
func (e *engine) serve(tool, callID, text string) {
	if callID != "" {
		if i, ok := e.servedAt[callID]; ok {
			if e.served[i].Tool == "" && tool != "" {
				e.served[i].Tool = tool
			}
			return
		}
		e.servedAt[callID] = len(e.served)
	}
	e.served = append(e.served, checks.ServedResult{Tool: tool, CallID: callID, Text: text})
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
	if !decodeLoose(ev.Payload, &p) {
		return
	}
	view := checks.WriteView{Iteration: e.lastIter, Stage: stage, HistoryGap: e.historyGap()}
	if len(p.Result) > 0 {
		view.Result = append(json.RawMessage(nil), p.Result...)
	}
	view.Error = p.Error != nil && *p.Error
	call, started := e.toolCalls[p.ToolCallID]
	if !started {
		call = checks.ToolCall{ID: p.ToolCallID, Name: e.callNames[p.ToolCallID]}
	}
	view.Call = call
	view.CallRecorded = call.Name != ""
	view.Tool = e.decl.Tool(call.Name)
	if view.Tool != nil && len(view.Tool.ArgumentsFrom) > 0 {
		switch {
		case !started:
			view.KeysProblem = fmt.Sprintf("no tool_start is recorded for call %s to '%s', so its arguments are unknown", orDash(p.ToolCallID), call.Name)
		default:
			keys, err := checks.KeyArguments(call.Args, view.Tool.ArgumentsFrom, e.served)
			if err != nil {
				view.KeysProblem = fmt.Sprintf("the arguments of call %s to '%s' are not readable JSON (%v)", orDash(p.ToolCallID), call.Name, err)
			}
			view.Keys = keys
		}
		for _, g := range view.Tool.ArgumentsFrom {
			for _, s := range e.served {
				if s.Tool == g {
					view.GroundsServed = append(view.GroundsServed, g)
					break
				}
			}
		}
	}
	for _, c := range e.reg {
		if c.OnWrite == nil || !e.ledger.Armed(c) {
			continue
		}
		v := view
		v.Keys = append([]checks.KeyArgument(nil), view.Keys...)
		v.GroundsServed = cloneStrings(view.GroundsServed)
		e.ledger.Note(c, c.OnWrite(v, e.decl))
	}
	if len(p.Result) > 0 {
		e.serve(call.Name, p.ToolCallID, resultText(p.Result))
	}
}
