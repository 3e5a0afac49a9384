package checks

import (
	"sort"
	"strconv"
)

// What each piece of a finding's evidence is, as Position.What names it.
const (
	EvidenceFinding   = "finding"
	EvidenceModelCall = "model call"
	EvidenceResponse  = "response"
	EvidenceToolCall  = "tool call"
	EvidenceResult    = "result"
	EvidenceEviction  = "eviction"
	EvidenceAnswer    = "answer"
	EvidenceFiledAt   = "filed at"
)

// Position is where one piece of a finding's evidence was written in the
// recording: the model call the finding is about, the tool call, its result,
// the eviction. A reader jumps to it by Line in an NDJSON input, or by the
// JSON pointer /events/Index into a recording document. Positions name
// events only; what the event says is in the witnesses.
type Position struct {
	// What names the piece of evidence (EvidenceModelCall, …).
	What string `json:"what"`
	// Event is the event's type, as recorded.
	Event string `json:"event"`
	// Line is the 1-based input line the event starts on; 0 when the
	// input has no lines to name (a recording document).
	Line int64 `json:"line,omitempty"`
	// Index is the event's 0-based position among the input's events.
	Index int64 `json:"index"`
	// Rotated is true when the event is in the rotated sibling
	// "<path>.1"; Line then counts lines of that file.
	Rotated bool `json:"rotated,omitempty"`
	// ToolCallID is the call the event belongs to, when it names one.
	ToolCallID string `json:"toolCallId,omitempty"`
	// Iteration is the loop iteration the event belongs to, when known.
	Iteration *int64 `json:"iteration,omitempty"`
}

// Pointer is the position as a JSON pointer into a recording document's
// events array.
func (p Position) Pointer() string { return "/events/" + strconv.FormatInt(p.Index, 10) }

// Ref is the position as a reader looks for it: "line N" where the input
// has lines, the JSON pointer where it does not.
func (p Position) Ref() string {
	if p.Line > 0 {
		s := "line " + strconv.FormatInt(p.Line, 10)
		if p.Rotated {
			s += " of the rotated file"
		}
		return s
	}
	return p.Pointer()
}

// Same reports whether two positions name the same piece of evidence.
func (p Position) Same(q Position) bool {
	return p.Index == q.Index && p.Rotated == q.Rotated && p.What == q.What
}

// SortPositions orders positions as the recording holds them (the rotated
// sibling's older events first), stably, so pieces at one event keep
// their order.
func SortPositions(ps []Position) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Rotated != ps[j].Rotated {
			return ps[i].Rotated
		}
		return ps[i].Index < ps[j].Index
	})
}
