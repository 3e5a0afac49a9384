package replay

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/internal/jsonfast"
	"github.com/fpcheck/fpcheck/recording"
)

// Recorded reads a run's recorded integrity evidence: every
// agentfootprint.integrity.context_error (in event order; synthetic ones
// included, flagged) and the LAST agentfootprint.integrity.disposition.
// A finding recorded again is kept once, where it was first filed, and
// counted (Repeats, LastLine): the ledger reconciliation counts events, so
// the count is kept, and nothing else about the copy is.
//
// Payloads are read defensively, field by field: a tail may have been parsed
// back from JSON or written by an older or foreign producer, so a field of
// the wrong JSON type is treated as not recorded instead of failing the run.
// Recorded never panics and never returns nil.
func Recorded(events []recording.Event) *Evidence {
	return recorded(events, false)
}

// recorded is Recorded; slow reads every payload with encoding/json, as
// the reader did before it read them with jsonfast, so tests can hold the
// two readings to the same evidence.
func recorded(events []recording.Event, slow bool) *Evidence {
	r := newRecordedReader(slow)
	var f checks.Finding
	for i := range events {
		r.add(&events[i], &f)
	}
	Locate(events, r.ev.Findings)
	return r.ev
}

// recordedReader is Recorded folded one event at a time: what it keeps is
// each distinct finding once and the latest ledger, never the events.
type recordedReader struct {
	ev   *Evidence
	kept map[string]int
	// bytes counts what the findings and their keys keep, beside the
	// ledger (see size).
	bytes int64
	// ledger is what the latest disposition keeps.
	ledger int64
	slow   bool
}

func newRecordedReader(slow bool) *recordedReader {
	return &recordedReader{ev: &Evidence{}, kept: map[string]int{}, slow: slow}
}

// add folds one event. What is kept of it is decoded, never the payload's
// bytes. The finding a context_error records is left in recorded for the
// engine, which reads it too (refusals.noteRecorded), and add reports
// true; for other events, false.
func (r *recordedReader) add(e *recording.Event, recorded *checks.Finding) bool {
	ev := r.ev
	switch e.Type {
	case recording.TypeContextError:
		ev.IntegrityEvents++
		f := recordedFinding(e, r.slow)
		key := recordedKey(&f)
		if at, ok := r.kept[key]; ok {
			ev.Findings[at].Repeats++
			ev.Findings[at].LastLine = e.Line
			*recorded = f
			return true
		}
		r.kept[key] = len(ev.Findings)
		ev.Findings = append(ev.Findings, f)
		r.bytes += int64(entryCost+len(key)) + findingSize(&f)
		*recorded = f
		return true
	case recording.TypeDisposition:
		ev.IntegrityEvents++
		ev.Disposition = recordedDisposition(e.Payload, r.slow)
		for j := range ev.Disposition.Damage {
			ev.Disposition.Damage[j].Line = e.Line
		}
		r.ledger = dispositionSize(ev.Disposition)
	}
	return false
}

// size is the bytes the reader keeps so far.
func (r *recordedReader) size() int64 { return r.bytes + r.ledger }

// findingSize is about what a decoded finding keeps.
func findingSize(f *checks.Finding) int64 {
	n := int64(positionCost + len(f.Kind) + len(f.Seam) + len(f.Predicate) + len(f.Message) + len(f.FiledAt))
	for _, s := range f.Subjects {
		n += int64(entryCost + len(s.Kind) + len(s.ID))
	}
	for _, w := range f.Witnesses {
		n += int64(2*entryCost + len(w.Predicate) + len(w.Value) + len(w.Stratum) + len(w.Provenance) + len(w.RuntimeStageID) +
			len(w.Subject.Kind) + len(w.Subject.ID))
	}
	return n
}

// dispositionSize is about what a decoded ledger keeps.
func dispositionSize(d *Disposition) int64 {
	n := int64(entryCost + len(d.Posture))
	for _, r := range d.Rows {
		n += int64(2*entryCost + len(r.Check) + len(r.Seam))
	}
	for _, dm := range d.Damage {
		n += int64(entryCost + len(dm.Field) + len(dm.Problem))
	}
	return n
}

// recordedKey is what makes two recorded findings one: the report's
// finding identity, and whether it is an advisory or a synthetic canary,
// which the report counts apart.
func recordedKey(f *checks.Finding) string {
	flags := "--"
	switch {
	case f.Advisory && f.Synthetic:
		flags = "as"
	case f.Advisory:
		flags = "a-"
	case f.Synthetic:
		flags = "-s"
	}
	return flags + f.Identity()
}

// recordedFinding reads one context_error payload. A payload that is not an
// object still yields a finding with nothing recorded: the event itself is
// evidence that something was filed.
func recordedFinding(e *recording.Event, slow bool) checks.Finding {
	var p [len(findingNames)][]byte
	recFields(e.Payload, findingNames[:], p[:], nil, slow)
	f := checks.Finding{
		Kind:      recString(p[0], slow),
		Seam:      recString(p[1], slow),
		Predicate: recString(p[2], slow),
		Message:   recString(p[3], slow),
		Advisory:  recTrue(p[4]),
		Synthetic: recTrue(p[5]),
		Epoch:     recInteger(p[6], slow),
		FiledAt:   e.Meta.RuntimeStageID,
		Line:      e.Line,
		Evidence:  []checks.Position{positionOf(e, checks.EvidenceFinding)},
	}
	f.Iteration = recInteger(p[7], slow)
	if f.Iteration == nil && e.Meta.IterIndex != nil {
		f.Iteration = recFloatInt(*e.Meta.IterIndex)
	}
	if items, ok := recArray(p[8], slow); ok {
		for _, raw := range items {
			if s, ok := recordedSubject(raw, slow); ok {
				f.Subjects = append(f.Subjects, s)
			}
		}
	}
	if items, ok := recArray(p[9], slow); ok {
		f.WitnessesRecorded = true
		f.Witnesses = make([]checks.Witness, 0, len(items))
		for _, raw := range items {
			f.Witnesses = append(f.Witnesses, recordedWitness(raw, slow))
		}
	}
	return f
}

// The members each recorded object is read for, in the order of the
// values recFields picks.
var (
	findingNames     = [...]string{"kind", "seam", "predicate", "message", "advisory", "synthetic", "epoch", "iteration", "subjects", "witnesses"}
	subjectNames     = [...]string{"kind", "id"}
	witnessNames     = [...]string{"predicate", "value", "epoch", "stratum", "provenance", "runtimeStageId", "synthetic", "subject"}
	dispositionNames = [...]string{"posture", "workExisted", "rows"}
	// rowNames are a row's own fields, then rowCounters.
	rowNames = [...]string{"check", "seam", "lastFiredAt", "checked", "findings", "notApplicable", "unreachable", "synthetic"}
)

// recordedSubject reads a {kind, id} pair the way the reference reader does:
// non-objects are skipped, a non-string kind reads "?", and a non-string id
// is shown as its compact JSON so that nothing about it is hidden.
func recordedSubject(raw json.RawMessage, slow bool) (checks.Subject, bool) {
	var o [len(subjectNames)][]byte
	if !recFields(raw, subjectNames[:], o[:], nil, slow) {
		return checks.Subject{}, false
	}
	s := checks.Subject{Kind: "?"}
	if k, ok := recStringOK(o[0], slow); ok {
		s.Kind = k
	}
	if id, ok := recStringOK(o[1], slow); ok {
		s.ID = id
	} else {
		s.ID = recCompact(o[1])
	}
	return s, true
}

// recordedWitness reads one assertion. A witness that is not an object is kept (as
// a zero witness carrying the raw value) so that the witness count stays the
// array's length.
func recordedWitness(raw json.RawMessage, slow bool) checks.Witness {
	var o [len(witnessNames)][]byte
	if !recFields(raw, witnessNames[:], o[:], nil, slow) {
		return checks.Witness{Value: recClone(raw)}
	}
	w := checks.Witness{
		Predicate:      recString(o[0], slow),
		Value:          recClone(o[1]),
		Epoch:          recInteger(o[2], slow),
		Stratum:        recString(o[3], slow),
		Provenance:     recString(o[4], slow),
		RuntimeStageID: recString(o[5], slow),
		Synthetic:      recTrue(o[6]),
	}
	if s, ok := recordedSubject(o[7], slow); ok {
		w.Subject = s
	}
	return w
}

// recordedDisposition reads the ledger event. Rows stay nil when the payload
// has no rows key; RowsMalformed marks a rows value that is not an array. Both
// read as "no check registered" in a report, but they are different facts.
func recordedDisposition(payload json.RawMessage, slow bool) *Disposition {
	var p [len(dispositionNames)][]byte
	var counts [len(dispositionNames)]int
	recFields(payload, dispositionNames[:], p[:], counts[:], slow)
	d := &Disposition{Posture: "unknown", WorkExisted: recTrue(p[1])}
	for i, k := range dispositionNames {
		if counts[i] > 1 {
			d.Damage = append(d.Damage, LedgerDamage{Field: "payload." + k, Problem: "is repeated, so which value the producer meant is unknown"})
		}
	}
	if s, ok := recStringOK(p[0], slow); ok {
		d.Posture = s
	}
	raw := p[2]
	if raw == nil {
		return d
	}
	items, ok := recArray(raw, slow)
	if !ok {
		d.RowsMalformed = true
		return d
	}
	d.Rows = make([]checks.Row, 0, len(items))
	for i, item := range items {
		// An item that is not an object names no check: counting it as a
		// row would invent a registered check that never ran. The loader
		// reports the wrong type.
		if recKind(item) != '{' {
			continue
		}
		row, damage := recordedRow(item, slow)
		for _, dm := range damage {
			dm.Field = "payload.rows[" + strconv.Itoa(i) + "]." + dm.Field
			d.Damage = append(d.Damage, dm)
		}
		d.Rows = append(d.Rows, row)
	}
	if len(items) > 0 && len(d.Rows) == 0 {
		d.Rows, d.RowsMalformed = nil, true
	}
	return d
}

// rowCounters are the counting fields of a ledger row, in the order a
// damaged row names them.
var rowCounters = rowNames[3:]

// recordedRow reads one ledger row. A counter the row does not carry counts
// 0, as in the reference reader. A counter it carries must be a count (a
// non-negative whole number the producer could have counted exactly), and
// no field may be repeated: read leniently, a damaged count such as -6 or
// "6" would read as 0, and a ledger that counted six failing encounters
// would pass for one that counted none. Such a row is returned with the
// damage, each naming its field, and the run's ledger is unusable.
// lastFiredAt is kept only when it is a number.
func recordedRow(raw json.RawMessage, slow bool) (checks.Row, []LedgerDamage) {
	var o [len(rowNames)][]byte
	var counts [len(rowNames)]int
	recFields(raw, rowNames[:], o[:], counts[:], slow)
	var damage []LedgerDamage
	for i, k := range rowNames {
		if counts[i] > 1 {
			damage = append(damage, LedgerDamage{Field: k, Problem: "is repeated, so which value the producer meant is unknown"})
		}
	}
	var n [5]int64
	for i, name := range rowCounters {
		v := o[3+i]
		if v == nil {
			continue
		}
		c, why := recording.ReadCount(v)
		if why != "" {
			damage = append(damage, LedgerDamage{Field: name, Problem: why})
			continue
		}
		n[i] = c
	}
	r := checks.Row{
		Check:         recString(o[0], slow),
		Seam:          recString(o[1], slow),
		Checked:       n[0],
		Findings:      n[1],
		NotApplicable: n[2],
		Unreachable:   n[3],
		Synthetic:     n[4],
	}
	if v, ok := recNumber(o[2], slow); ok {
		r.LastFiredAt = &v
	}
	return r, damage
}

// recFields reads the object raw as decoding it into a map does: out[i]
// is the value of the last member named names[i] (nil when there is none)
// and, when counts is non-nil, counts[i] how many members are so named.
// ok is false when raw is not an object; out then holds nothing, and
// counts what a token reader counted before it failed. The bytes were
// validated by the loader, so jsonfast reads them in one pass; encoding/json
// reads what jsonfast refuses, and everything when slow.
func recFields(raw []byte, names []string, out [][]byte, counts []int, slow bool) (ok bool) {
	if recKind(raw) != '{' {
		return false
	}
	if !slow {
		p := jsonfast.Picker{Names: names}
		if _, err := p.Pick(raw, out, counts); err == nil {
			return true
		}
		clear(out)
		clear(counts)
	}
	if counts != nil {
		countKeys(raw, names, counts)
	}
	var o map[string]json.RawMessage
	if err := json.Unmarshal(raw, &o); err != nil || o == nil {
		return false
	}
	for i, n := range names {
		out[i] = o[n]
	}
	return true
}

func recArray(raw json.RawMessage, slow bool) ([]json.RawMessage, bool) {
	if recKind(raw) != '[' {
		return nil, false
	}
	if !slow {
		a := []json.RawMessage{}
		if jsonfast.Elements(raw, func(_ int, v []byte) bool {
			a = append(a, v)
			return true
		}) == nil {
			return a, true
		}
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

func recString(raw json.RawMessage, slow bool) string {
	s, _ := recStringOK(raw, slow)
	return s
}

func recStringOK(raw json.RawMessage, slow bool) (string, bool) {
	if recKind(raw) != '"' {
		return "", false
	}
	if !slow {
		if s, err := jsonfast.ShortString(raw); err == nil {
			return s, true
		}
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
func recNumber(raw json.RawMessage, slow bool) (float64, bool) {
	k := recKind(raw)
	if k != '-' && (k < '0' || k > '9') {
		return 0, false
	}
	if !slow {
		if v, ok := jsonfast.Number(raw); ok {
			return v, true
		}
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
func recInteger(raw json.RawMessage, slow bool) *int64 {
	v, ok := recNumber(raw, slow)
	if !ok {
		return nil
	}
	return recFloatInt(v)
}

func recFloatInt(v float64) *int64 {
	if math.IsNaN(v) || math.IsInf(v, 0) || v != math.Trunc(v) || v < -(1<<63) || v >= 1<<63 {
		return nil
	}
	return ptrInt(int64(v))
}

// countKeys counts, for each of names, the members of the JSON object obj
// whose key it is, reading obj token by token: what a token reader reads
// before a fault is counted, and a value that is not an object has no
// keys.
func countKeys(obj json.RawMessage, names []string, counts []int) {
	clear(counts)
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return
	}
	seen := make([]int, len(names))
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return
		}
		key, _ := t.(string)
		if i := slices.Index(names, key); i >= 0 {
			seen[i]++
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return
		}
	}
	copy(counts, seen)
}

// recKind returns the first significant byte of a JSON value, or 0.
func recKind(raw json.RawMessage) byte {
	if i := jsonfast.SkipSpace(raw, 0); i < len(raw) {
		return raw[i]
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
