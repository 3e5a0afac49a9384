package replay

import (
	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// Under checkColumnTypes: enforce the library replaces refused rows with its
// refusal on every channel, and the refusal is the message of the finding it
// filed. The replay cannot judge rows it never sees (the column checks call
// such a result unreachable), but it can hold the recording to what the
// refusal proves: a column finding about that tool was filed. A refusal
// with no such finding in the run is said, because that evidence is lost.

// refusedCall is one result the recording shows refused under enforce.
type refusedCall struct {
	callID, tool string
}

// refusals is what the engine keeps for that comparison.
type refusals struct {
	refused []refusedCall
	// recorded are the tools a recorded column finding names.
	recorded map[string]bool
	// lost says, for each refusal of no recorded finding, that the
	// finding is missing.
	lost []string
}

// noteRecorded remembers the tools named by a recorded column finding:
// ev's, decoded unless known (non-nil).
func (r *refusals) noteRecorded(ev *recording.Event, known *checks.Finding, slow bool) {
	var f checks.Finding
	if known != nil {
		f = *known
	} else {
		f = recordedFinding(ev, slow)
	}
	if f.Kind != checks.KindColumnTypeMismatch && f.Kind != checks.KindMissingColumn {
		return
	}
	for _, s := range f.Subjects {
		if s.Kind == "tool" {
			if r.recorded == nil {
				r.recorded = map[string]bool{}
			}
			r.recorded[s.ID] = true
		}
	}
}

// noteResult remembers a result that is the library's column refusal, for
// a tool the armed column checks judge.
func (r *refusals) noteResult(e *engine, call checks.ToolCall, tool *checks.ToolDecl, result []byte) {
	if tool == nil || len(tool.ResultColumns) == 0 || !columnsArmed(e) || !checks.ColumnRefusal(call.Name, result) {
		return
	}
	r.refused = append(r.refused, refusedCall{callID: call.ID, tool: call.Name})
}

// finish states each refusal whose finding the run does not hold. Findings
// may be written before or after the result, so this waits for the end of
// the run.
func (r *refusals) finish() {
	for _, rc := range r.refused {
		if !r.recorded[rc.tool] {
			r.lost = append(r.lost, checks.RefusalFindingMissing(rc.callID, rc.tool))
		}
	}
}

// columnsArmed reports whether a column check of the registry is armed.
func columnsArmed(e *engine) bool {
	for _, c := range e.reg {
		if (c.Kind == checks.KindColumnTypeMismatch || c.Kind == checks.KindMissingColumn) && e.ledger.Armed(c) {
			return true
		}
	}
	return false
}
