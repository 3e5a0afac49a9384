package recording

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
)

// The fast event decoder. Nearly every line of a recording is an event of
// the plain shape agentfootprint writes: one type string, one payload, one
// meta object with strings, numbers and string lists, no key twice. For
// those, jsonfast validates the line (with json.Valid's rules) while it
// picks the three members, and the meta members are decoded one token at a
// time with encoding/json's results, so the line is read once instead of
// validated and then decoded by reflection. Anything else (a key repeated,
// a member of the wrong JSON type, a line that is not JSON) goes to
// decodeEventStd, whose answers and messages are the loader's of record.

// Members of the event object, in envelopePicker order.
const (
	envType = iota
	envPayload
	envMeta
	envCount
)

// Members of meta, in metaPicker order.
const (
	metaWallClock = iota
	metaRunOffset
	metaStage
	metaSubflow
	metaComposition
	metaRunID
	metaSession
	metaPrincipal
	metaTenant
	metaTrace
	metaCorrelation
	metaTurn
	metaIter
	metaCount
)

var (
	// envelopePicker matches keys as encoding/json matches wireEvent's
	// fields: exactly, else case-insensitively.
	envelopePicker = jsonfast.Picker{Names: []string{"type", "payload", "meta"}, Fold: true}
	// metaPicker does the same for wireMeta. A null leaves a string or
	// number field as it was and resets a slice or pointer field, as
	// decoding into the struct does.
	metaPicker = jsonfast.Picker{
		Names: []string{
			"wallClockMs", "runOffsetMs", "runtimeStageId", "subflowPath", "compositionPath", "runId",
			"sessionId", "principal", "tenant", "traceId", "correlationId", "turnIndex", "iterIndex",
		},
		Fold:     true,
		SkipNull: []bool{true, true, true, false, false, true, true, true, true, true, true, false, false},
	}
	// typeNames maps each known type to its one string, so that decoding
	// a known type allocates nothing.
	typeNames = func() map[string]string {
		m := make(map[string]string, len(knownTypes))
		for t := range knownTypes {
			m[t] = t
		}
		return m
	}()
)

// eventDecoder decodes events. It keeps small caches between events, so
// each goroutine that decodes has its own.
type eventDecoder struct {
	legacy bool // decode with decodeEventStd only (see legacyCodec)
	// alias leaves a payload in the caller's buffer instead of copying
	// it: the splitter copies the payloads a PayloadFilter keeps.
	alias bool

	top       [envCount][]byte
	topN      [envCount]int
	meta      [metaCount][]byte
	metaN     [metaCount]int
	lastRun   string // the last runId: consecutive events mostly share it
	lastStage string // the last runtimeStageId: a stage emits several events
	lastStr   string // the last list element (compositionPath repeats)
	// lists are the last subflowPath and compositionPath decoded, shared
	// by the events that repeat them (nearly all of a run's events).
	lists [2]struct {
		raw  []byte
		list []string
	}
	// shape is the layout of the last meta object decoded member by
	// member (see metaShape).
	shape metaShape

	// The payload's schema fields, collected while the payload is
	// validated (see payloadHook): fieldsOf is the schema they were
	// collected for, nil when they were not.
	hook     jsonfast.ValueHook
	fieldsOf *compiledSchema
	fields   [maxSchemaFields][]byte
	// indexable is false when the payload's fields cannot be indexed
	// (see members.go).
	indexable bool
	// verdicts are the payloads validated in the current run.
	verdicts verdicts
}

// decodedEvent is everything decoding one event's bytes found, before any
// of it is counted: decoding may run ahead on other goroutines, and the
// loader accounts for the results in input order.
type decodedEvent struct {
	ev  Event
	err error // the bytes are not an event
	// invalidUTF8 is true when the bytes held invalid UTF-8.
	invalidUTF8 bool
	// dups, when non-nil, counts envelope keys that appear more than once.
	dups  *keyCounts
	notes decodeNotes
}

// decode decodes data into r.
func (d *eventDecoder) decode(data []byte, r *decodedEvent) {
	*r = decodedEvent{}
	if !d.legacy {
		if ev, ok := d.fast(data, &r.notes); ok {
			r.ev = ev
			r.invalidUTF8 = !jsonfast.ValidUTF8(data)
			r.exactRunID(data)
			return
		}
		r.notes = decodeNotes{}
	}
	ev, err := decodeEventStd(data, &r.notes, d.legacy)
	if err != nil {
		r.err = err
		return
	}
	r.ev = ev
	r.invalidUTF8 = !jsonfast.ValidUTF8(data)
	r.exactRunID(data)
	// The fast path takes no line with a repeated key; this is where one
	// is counted. Keys are matched as encoding/json matches them, without
	// regard to ASCII case, so "Type" after "type" is a repeat too.
	if kc, err := countEnvelopeKeys(data); err == nil && kc.repeats() {
		r.dups = &kc
	}
}

// exactRunID keys the event by its run id's exact bytes (see runid.go).
func (r *decodedEvent) exactRunID(data []byte) {
	if id := exactRunID(data, r.ev.Meta.RunID); id != r.ev.Meta.RunID {
		r.ev.Meta.RunID = id
		r.notes.InvalidRunID = !utf8.ValidString(id)
	}
}

// fast decodes an event of the plain shape; ok is false for anything else,
// and notes are then untouched.
func (d *eventDecoder) fast(data []byte, notes *decodeNotes) (ev Event, ok bool) {
	if d.hook == nil {
		d.hook = d.payloadHook
	}
	d.fieldsOf = nil
	d.verdicts.line(len(data))
	dup, err := envelopePicker.PickHook(data, d.top[:], d.topN[:], d.hook)
	if err != nil || dup {
		return Event{}, false
	}
	rawType := d.top[envType]
	if jsonfast.KindOf(rawType) != jsonfast.KindString {
		return Event{}, false
	}
	if t, known := typeNames[string(rawType[1:len(rawType)-1])]; known {
		ev.Type = t
	} else if ev.Type, err = jsonfast.String(rawType); err != nil || ev.Type == "" {
		return Event{}, false
	}
	switch m := d.top[envMeta]; jsonfast.KindOf(m) {
	case jsonfast.KindInvalid, jsonfast.KindNull: // absent or null: no meta
	case jsonfast.KindObject:
		if !d.decodeMeta(m, &ev.Meta) {
			return Event{}, false
		}
	default:
		return Event{}, false
	}
	d.verdicts.inRun(ev.Meta.RunID)
	p := d.top[envPayload]
	if sc := d.fieldsOf; sc != nil && d.indexable {
		ev.PayloadIndex, _ = indexOf(sc, p, d.fields[:])
	}
	if p != nil && !d.alias {
		// The line is in a reused buffer; the event outlives it.
		ev.Payload = append(json.RawMessage(nil), p...)
	} else {
		ev.Payload = p
	}
	checkPayload(ev.Payload, notes)
	// fieldsOf was looked up by the type's raw bytes, which are the
	// type's name whenever they name a schema (no type has an escape).
	if sc := d.fieldsOf; sc != nil {
		sc.judge(d.fields[:len(sc.names)], notes)
	} else {
		checkPayloadFieldsWith(ev.Type, ev.Payload, notes, false)
	}
	return ev, true
}

// payloadHook reads the schema fields of a payload object in the pass that
// validates it, when the event's type came before it (agentfootprint
// writes type, payload, meta), instead of walking the payload again
// afterwards; a payload that repeats one validated before takes its
// verdict and its fields (see verdicts).
func (d *eventDecoder) payloadHook(n int, obj []byte, i, maxDepth int, out [][]byte) (int, bool, error) {
	if n != envPayload || i >= len(obj) || obj[i] != '{' {
		return 0, false, nil
	}
	var sc *compiledSchema
	if raw := out[envType]; len(raw) >= 2 && raw[0] == '"' {
		sc = compiledSchemas[string(raw[1:len(raw)-1])]
	}
	if sc == nil && (!d.verdicts.on() || maxDepth <= 0) {
		return 0, false, nil
	}
	var last [][]byte
	if sc != nil {
		last = d.fields[:len(sc.names)]
	}
	if v, ok := d.verdicts.find(obj, i, maxDepth, sc); ok {
		v.restore(obj[i:], last)
		d.fieldsOf, d.indexable = sc, v.indexable
		return i + len(v.body), true, nil
	}
	var end int
	var err error
	if sc != nil {
		clear(last)
		d.indexable = true
		end, err = jsonfast.InnerMembers(obj, i, maxDepth, func(key, val []byte) {
			if !sc.collect(key, val, last) {
				d.indexable = false
			}
		})
	} else {
		end, err = jsonfast.SkipValueDepth(obj, i, maxDepth)
	}
	if err != nil {
		return 0, false, err
	}
	// A payload repeated is judged by its last copy; a type repeated
	// sends the event to the standard decoder.
	d.fieldsOf = sc
	d.verdicts.keep(obj, i, end, maxDepth, sc, last, d.indexable)
	return end, true, nil
}

// decodeMeta decodes a meta object without repeated keys whose members all
// have the JSON types of Meta's fields; ok is false otherwise. raw has been
// validated with the rest of the line.
func (d *eventDecoder) decodeMeta(raw []byte, m *Meta) bool {
	if ok, matched := d.decodeMetaShaped(raw, m); matched {
		return ok
	}
	// The layout's values may be ahead of what it decoded last.
	d.shape.valid = false
	*m = Meta{}
	dup, err := metaPicker.Pick(raw, d.meta[:], d.metaN[:])
	if err != nil || dup {
		return false
	}
	for n, v := range d.meta {
		if !d.metaField(n, v, m) {
			return false
		}
	}
	d.shape.missed(raw, m)
	return true
}

// metaField decodes v, the value of the member metaPicker.Names[n], into
// m; nil (absent, or a null metaPicker skips) leaves the field zero. It is
// false for a value of the wrong JSON type, and true for n = -1, a key
// Meta does not have.
func (d *eventDecoder) metaField(n int, v []byte, m *Meta) bool {
	if v == nil || n < 0 || metaPicker.SkipNull[n] && jsonfast.IsNull(v) {
		return true
	}
	ok := true
	switch n {
	case metaWallClock:
		m.WallClockMs, ok = jsonfast.Number(v)
	case metaRunOffset:
		m.RunOffsetMs, ok = jsonfast.Number(v)
	case metaStage:
		m.RuntimeStageID, ok = stringValue(v, &d.lastStage)
	case metaSubflow:
		m.SubflowPath, ok = d.stringList(0, v)
	case metaComposition:
		m.CompositionPath, ok = d.stringList(1, v)
	case metaRunID:
		m.RunID, ok = stringValue(v, &d.lastRun)
	case metaSession:
		m.SessionID, ok = stringValue(v, nil)
	case metaPrincipal:
		m.Principal, ok = stringValue(v, nil)
	case metaTenant:
		m.Tenant, ok = stringValue(v, nil)
	case metaTrace:
		m.TraceID, ok = stringValue(v, nil)
	case metaCorrelation:
		m.CorrelationID, ok = stringValue(v, nil)
	case metaTurn:
		m.TurnIndex, ok = numberPointer(v)
	case metaIter:
		m.IterIndex, ok = numberPointer(v)
	}
	return ok
}

// stringValue decodes a string token; ok is false for any other kind.
// When last is non-nil and the token is the string *last holds, that
// string is shared instead of a new one allocated.
func stringValue(raw []byte, last *string) (string, bool) {
	if jsonfast.KindOf(raw) != jsonfast.KindString {
		return "", false
	}
	if last != nil {
		// A body without escapes and with valid UTF-8 is its own decoding.
		body := raw[1 : len(raw)-1]
		if string(body) == *last && bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
			return *last, true
		}
	}
	s, err := jsonfast.ShortString(raw)
	if err != nil {
		return "", false
	}
	if last != nil {
		*last = s
	}
	return s, true
}

// numberPointer decodes a number or null into a *float64.
func numberPointer(raw []byte) (*float64, bool) {
	if jsonfast.IsNull(raw) {
		return nil, true
	}
	f, ok := jsonfast.Number(raw)
	if !ok {
		return nil, false
	}
	return &f, true
}

// stringList decodes null or an array of strings. An empty array is an
// empty, non-nil list, as encoding/json makes it. The list of slot k is the
// previous one when raw repeats it.
func (d *eventDecoder) stringList(k int, raw []byte) ([]string, bool) {
	switch jsonfast.KindOf(raw) {
	case jsonfast.KindNull:
		return nil, true
	case jsonfast.KindArray:
	default:
		return nil, false
	}
	c := &d.lists[k]
	if c.list != nil && bytes.Equal(raw, c.raw) {
		return c.list, true
	}
	list, ok := d.decodeList(raw)
	if ok {
		c.raw, c.list = append(c.raw[:0], raw...), list
	}
	return list, ok
}

func (d *eventDecoder) decodeList(raw []byte) ([]string, bool) {
	list := []string{}
	ok := true
	err := jsonfast.Elements(raw, func(_ int, v []byte) bool {
		var s string
		if s, ok = stringValue(v, &d.lastStr); ok {
			list = append(list, s)
		}
		return ok
	})
	if err != nil || !ok {
		return nil, false
	}
	return list, true
}
