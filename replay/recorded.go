package replay

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// Recorded reads a run's recorded integrity evidence: every
// agentfootprint.integrity.context_error (in event order; synthetic ones
// included, flagged) and the LAST agentfootprint.integrity.disposition.
//
// Payloads are read defensively, field by field: a tail may have been parsed
// back from JSON or written by an older or foreign producer, so a field of
// the wrong JSON type is treated as not recorded instead of failing the run.
// Recorded never panics and never returns nil.
func Recorded(events []recording.Event) *Evidence {
	ev := &Evidence{}
	for i := range events {
		e := &events[i]
		switch e.Type {
		case recording.TypeContextError:
			ev.IntegrityEvents++
			ev.Findings = append(ev.Findings, recordedFinding(e))
		case recording.TypeDisposition:
			ev.IntegrityEvents++
			ev.Disposition = recordedDisposition(e.Payload)
		}
	}
	Locate(events, ev.Findings)
	return ev
}

// recordedFinding reads one context_error payload. A payload that is not an
// object still yields a finding with nothing recorded: the event itself is
// evidence that something was filed.
func recordedFinding(e *recording.Event) checks.Finding {
	p := recObject(e.Payload)
	f := checks.Finding{
		Kind:      recString(p["kind"]),
		Seam:      recString(p["seam"]),
		Predicate: recString(p["predicate"]),
		Message:   recString(p["message"]),
		Advisory:  recTrue(p["advisory"]),
		Synthetic: recTrue(p["synthetic"]),
		Epoch:     recInteger(p["epoch"]),
		FiledAt:   e.Meta.RuntimeStageID,
		Line:      e.Line,
		Evidence:  []checks.Position{positionOf(e, checks.EvidenceFinding)},
	}
	f.Iteration = recInteger(p["iteration"])
	if f.Iteration == nil && e.Meta.IterIndex != nil {
		f.Iteration = recFloatInt(*e.Meta.IterIndex)
	}
	if items, ok := recArray(p["subjects"]); ok {
		for _, raw := range items {
			if s, ok := recordedSubject(raw); ok {
				f.Subjects = append(f.Subjects, s)
			}
		}
	}
	if items, ok := recArray(p["witnesses"]); ok {
		f.WitnessesRecorded = true
		f.Witnesses = make([]checks.Witness, 0, len(items))
		for _, raw := range items {
			f.Witnesses = append(f.Witnesses, recordedWitness(raw))
		}
	}
	return f
}

// recordedSubject reads a {kind, id} pair the way the reference reader does:
// non-objects are skipped, a non-string kind reads "?", and a non-string id
// is shown as its compact JSON so that nothing about it is hidden.
func recordedSubject(raw json.RawMessage) (checks.Subject, bool) {
	o, ok := recObjectOK(raw)
	if !ok {
		return checks.Subject{}, false
	}
	s := checks.Subject{Kind: "?"}
	if k, ok := recStringOK(o["kind"]); ok {
		s.Kind = k
	}
	if id, ok := recStringOK(o["id"]); ok {
		s.ID = id
	} else {
		s.ID = recCompact(o["id"])
	}
	return s, true
}

// recordedWitness reads one assertion. A witness that is not an object is kept (as
// a zero witness carrying the raw value) so that the witness count stays the
// array's length.
func recordedWitness(raw json.RawMessage) checks.Witness {
	o, ok := recObjectOK(raw)
	if !ok {
		return checks.Witness{Value: recClone(raw)}
	}
	w := checks.Witness{
		Predicate:      recString(o["predicate"]),
		Value:          recClone(o["value"]),
		Epoch:          recInteger(o["epoch"]),
		Stratum:        recString(o["stratum"]),
		Provenance:     recString(o["provenance"]),
		RuntimeStageID: recString(o["runtimeStageId"]),
		Synthetic:      recTrue(o["synthetic"]),
	}
	if s, ok := recordedSubject(o["subject"]); ok {
		w.Subject = s
	}
	return w
}

// recordedDisposition reads the ledger event. Rows stay nil when the payload
// has no rows key; RowsMalformed marks a rows value that is not an array. Both
// read as "no check registered" in a report, but they are different facts.
func recordedDisposition(payload json.RawMessage) *Disposition {
	p := recObject(payload)
	d := &Disposition{Posture: "unknown", WorkExisted: recTrue(p["workExisted"])}
	if s, ok := recStringOK(p["posture"]); ok {
		d.Posture = s
	}
	raw, present := p["rows"]
	if !present {
		return d
	}
	items, ok := recArray(raw)
	if !ok {
		d.RowsMalformed = true
		return d
	}
	d.Rows = make([]checks.Row, 0, len(items))
	for _, item := range items {
		// An item that is not an object names no check: counting it as a
		// row would invent a registered check that never ran. The loader
		// reports the wrong type.
		if recKind(item) != '{' {
			continue
		}
		d.Rows = append(d.Rows, recordedRow(item))
	}
	if len(items) > 0 && len(d.Rows) == 0 {
		d.Rows, d.RowsMalformed = nil, true
	}
	return d
}

// recordedRow reads one ledger row leniently: a counter that is not a finite number
// counts 0, as in the reference reader; lastFiredAt is kept only when it is a
// number.
func recordedRow(raw json.RawMessage) checks.Row {
	o := recObject(raw)
	r := checks.Row{
		Check:         recString(o["check"]),
		Seam:          recString(o["seam"]),
		Checked:       recCounter(o["checked"]),
		Findings:      recCounter(o["findings"]),
		NotApplicable: recCounter(o["notApplicable"]),
		Unreachable:   recCounter(o["unreachable"]),
		Synthetic:     recCounter(o["synthetic"]),
	}
	if v, ok := recNumber(o["lastFiredAt"]); ok {
		r.LastFiredAt = &v
	}
	return r
}

// recObject decodes raw as a JSON object; anything else reads as an empty one.
func recObject(raw json.RawMessage) map[string]json.RawMessage {
	o, _ := recObjectOK(raw)
	return o
}

func recObjectOK(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	if recKind(raw) != '{' {
		return nil, false
	}
	var o map[string]json.RawMessage
	if err := json.Unmarshal(raw, &o); err != nil || o == nil {
		return nil, false
	}
	return o, true
}

func recArray(raw json.RawMessage) ([]json.RawMessage, bool) {
	if recKind(raw) != '[' {
		return nil, false
	}
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, false
	}
	if a == nil {
		a = []json.RawMessage{}
	}
	return a, true
}

func recString(raw json.RawMessage) string {
	s, _ := recStringOK(raw)
	return s
}

func recStringOK(raw json.RawMessage) (string, bool) {
	if recKind(raw) != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// recTrue is the reference's `=== true`: only the JSON literal true counts.
func recTrue(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("true"))
}

// recNumber reads a finite JSON number.
func recNumber(raw json.RawMessage) (float64, bool) {
	k := recKind(raw)
	if k != '-' && (k < '0' || k > '9') {
		return 0, false
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// recInteger reads a JSON number that is a whole value in int64 range; epochs
// and iterations are counters, so a fractional or huge value reads as not
// recorded rather than as a silently different number.
func recInteger(raw json.RawMessage) *int64 {
	v, ok := recNumber(raw)
	if !ok {
		return nil
	}
	return recFloatInt(v)
}

func recFloatInt(v float64) *int64 {
	if math.IsNaN(v) || math.IsInf(v, 0) || v != math.Trunc(v) || v < -(1<<63) || v >= 1<<63 {
		return nil
	}
	n := int64(v)
	return &n
}

// maxCounter is the largest count a JavaScript ledger can hold exactly
// (Number.MAX_SAFE_INTEGER); a larger or negative value is no count at all.
const maxCounter = 1<<53 - 1

// recCounter reads a ledger counter; anything that is not a usable count
// (not a number, negative, or beyond what the producer could have counted)
// counts 0, and a fractional count is cut to its whole part.
func recCounter(raw json.RawMessage) int64 {
	v, ok := recNumber(raw)
	if !ok {
		return 0
	}
	v = math.Trunc(v)
	if v < 0 || v > maxCounter {
		return 0
	}
	return int64(v)
}

// recKind returns the first significant byte of a JSON value, or 0.
func recKind(raw json.RawMessage) byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
	return 0
}

// recCompact renders a JSON value without insignificant whitespace; an absent
// value renders "undefined", as the reference's safe stringifier does.
func recCompact(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "undefined"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func recClone(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	return append(json.RawMessage(nil), raw...)
}
