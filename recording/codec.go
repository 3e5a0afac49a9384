package recording

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
)

// This file and codec_fast.go are the only places that bind event bytes to
// Go values. Everything else hands an eventDecoder one event's bytes, so the
// codec can be swapped without touching the loader.

// legacyCodec switches the loader back to the encoding/json event decoder,
// the byte-at-a-time snapshot walker and the scanner-based payload checks
// it had before internal/jsonfast. Only tests set it, to hold the two
// implementations to the same answers on the same inputs; it is read when
// a load starts.
var legacyCodec = false

// wireEvent is the fast-path shape of one event. Type is a pointer so that
// an absent or null type is told apart from a string.
type wireEvent struct {
	Type    *string         `json:"type"`
	Payload json.RawMessage `json:"payload"`
	Meta    *wireMeta       `json:"meta"`
}

// wireMeta has Meta's fields and types, so it converts to Meta directly.
type wireMeta struct {
	WallClockMs     float64  `json:"wallClockMs"`
	RunOffsetMs     float64  `json:"runOffsetMs"`
	RuntimeStageID  string   `json:"runtimeStageId"`
	SubflowPath     []string `json:"subflowPath"`
	CompositionPath []string `json:"compositionPath"`
	RunID           string   `json:"runId"`
	SessionID       string   `json:"sessionId"`
	Principal       string   `json:"principal"`
	Tenant          string   `json:"tenant"`
	TraceID         string   `json:"traceId"`
	CorrelationID   string   `json:"correlationId"`
	TurnIndex       *float64 `json:"turnIndex"`
	IterIndex       *float64 `json:"iterIndex"`
}

// decodeNotes are the recoverable oddities of one decoded event.
type decodeNotes struct {
	// WrongTypes lists dotted fields that held the wrong JSON type and were
	// left zero ("meta.runId", "meta", "payload", "payload.iteration",
	// "payload.rows[].checked").
	WrongTypes []string
	// InvalidRunID is true when meta.runId is not valid text (invalid
	// UTF-8, a lone surrogate): the run is keyed by its exact bytes.
	InvalidRunID bool
}

// notEventError is bytes that are JSON but not an event object, or not JSON.
type notEventError struct {
	msg string
}

func (e *notEventError) Error() string { return e.msg }

// decodeEvent decodes one event object. A non-nil error means the bytes are
// not an event (not JSON, not an object, or no string type); everything
// else is recovered and listed in notes. Event.Payload is a copy, so data
// may be reused by the caller.
func decodeEvent(data []byte, notes *decodeNotes) (Event, error) {
	var d eventDecoder
	d.legacy = legacyCodec
	var r decodedEvent
	d.decode(data, &r)
	*notes = r.notes
	return r.ev, r.err
}

// decodeEventStd decodes one event with encoding/json: the decoder of
// record, which the fast path falls back to for anything unusual, so that
// its messages and its reading of odd input stay the loader's.
func decodeEventStd(data []byte, notes *decodeNotes, legacy bool) (Event, error) {
	var w wireEvent
	err := json.Unmarshal(data, &w)
	if err == nil {
		if w.Type == nil {
			return Event{}, &notEventError{msg: "no type"}
		}
		if *w.Type == "" {
			return Event{}, &notEventError{msg: "type is an empty string"}
		}
		ev := Event{Type: *w.Type, Payload: w.Payload}
		if w.Meta != nil {
			ev.Meta = Meta(*w.Meta)
		}
		checkPayload(ev.Payload, notes)
		checkPayloadFieldsWith(ev.Type, ev.Payload, notes, legacy)
		return ev, nil
	}
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			if de := tooDeep(data); de != nil {
				return Event{}, de
			}
			return Event{}, &notEventError{msg: fmt.Sprintf("not valid JSON (%s, at byte %d)", syntaxErrorText(se, data), se.Offset)}
		}
		return Event{}, &notEventError{msg: "not valid JSON (" + err.Error() + ")"}
	}
	return decodeEventSlow(data, notes, legacy)
}

// tooDeep refuses an event nested deeper than encoding/json decodes, which
// is no fault of the JSON: saying "not valid JSON" would send the reader
// looking for damage that is not there, and --max-nesting, which bounds a
// whole document, does not raise it. nil when data is not that deep before
// it stops being JSON.
func tooDeep(data []byte) error {
	var de *jsonfast.DepthError
	if _, err := jsonfast.SkipValue(data, 0); !errors.As(err, &de) {
		return nil
	}
	return &notEventError{msg: fmt.Sprintf("nested deeper than %d levels (at byte %d), the most one event may nest: a fixed limit of the event decoder, which --max-nesting does not raise; the event is not read", de.Limit, de.Offset)}
}

// syntaxErrorText is encoding/json's message for a syntax error in data,
// with a character outside ASCII quoted whole: encoding/json quotes the one
// byte it stopped at, so the first byte of U+00A0 reads as 'Â'. A byte that
// starts no valid UTF-8 character is named in hex.
func syntaxErrorText(se *json.SyntaxError, data []byte) string {
	msg := se.Error()
	i := se.Offset - 1 // the offset counts the byte it stopped at
	if i < 0 || i >= int64(len(data)) || data[i] < utf8.RuneSelf {
		return msg
	}
	q := strconv.Quote(string(rune(data[i])))
	byteQuoted := "invalid character '" + q[1:len(q)-1] + "'"
	rest, ok := strings.CutPrefix(msg, byteQuoted)
	if !ok {
		return msg
	}
	if r, size := utf8.DecodeRune(data[i:]); r != utf8.RuneError || size > 1 {
		return fmt.Sprintf("invalid character %s (%U)%s", strconv.QuoteRune(r), r, rest)
	}
	return fmt.Sprintf("invalid byte 0x%02x (not UTF-8)%s", data[i], rest)
}

// decodeEventSlow is the lenient path, taken only when some field has the
// wrong JSON type: each field is decoded on its own and the ones that fit
// are kept.
func decodeEventSlow(data []byte, notes *decodeNotes, legacy bool) (Event, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return Event{}, &notEventError{msg: "a JSON " + jsonKind(data) + ", not an object"}
	}
	rawType, ok := top["type"]
	if !ok || isNull(rawType) {
		return Event{}, &notEventError{msg: "no type"}
	}
	var typ string
	if json.Unmarshal(rawType, &typ) != nil {
		return Event{}, &notEventError{msg: "type is a " + jsonKind(rawType) + ", not a string"}
	}
	if typ == "" {
		return Event{}, &notEventError{msg: "type is an empty string"}
	}
	ev := Event{Type: typ}
	if p, ok := top["payload"]; ok {
		ev.Payload = append(json.RawMessage(nil), p...)
		checkPayload(ev.Payload, notes)
		checkPayloadFieldsWith(ev.Type, ev.Payload, notes, legacy)
	}
	rawMeta, ok := top["meta"]
	if !ok || isNull(rawMeta) {
		return ev, nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(rawMeta, &fields) != nil {
		notes.WrongTypes = append(notes.WrongTypes, "meta")
		return ev, nil
	}
	m := &ev.Meta
	for _, f := range []struct {
		name string
		dst  any
	}{
		{"wallClockMs", &m.WallClockMs},
		{"runOffsetMs", &m.RunOffsetMs},
		{"runtimeStageId", &m.RuntimeStageID},
		{"subflowPath", &m.SubflowPath},
		{"compositionPath", &m.CompositionPath},
		{"runId", &m.RunID},
		{"sessionId", &m.SessionID},
		{"principal", &m.Principal},
		{"tenant", &m.Tenant},
		{"traceId", &m.TraceID},
		{"correlationId", &m.CorrelationID},
		{"turnIndex", &m.TurnIndex},
		{"iterIndex", &m.IterIndex},
	} {
		raw, ok := fields[f.name]
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, f.dst); err != nil {
			notes.WrongTypes = append(notes.WrongTypes, "meta."+f.name)
			// A partly filled slice would be half a value; keep none of it.
			switch f.name {
			case "subflowPath":
				m.SubflowPath = nil
			case "compositionPath":
				m.CompositionPath = nil
			}
		}
	}
	return ev, nil
}

// checkPayload notes a payload that is present but not an object: events
// are kept, but consumers will find nothing in it.
func checkPayload(p json.RawMessage, notes *decodeNotes) {
	if len(p) > 0 && p[0] != '{' {
		notes.WrongTypes = append(notes.WrongTypes, "payload")
	}
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// jsonKind names the JSON type of a valid JSON value for messages.
func jsonKind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// topKeyCounts counts the top-level keys type, payload and meta of one event
// object and the runId keys inside its last meta object, the way
// encoding/json matches them (case-insensitively). Only called when a cheap
// byte search says a key may repeat.
type keyCounts struct {
	typ, payload, meta, runID int
}

// repeats reports whether some key appears more than once.
func (kc keyCounts) repeats() bool {
	return kc.typ > 1 || kc.payload > 1 || kc.meta > 1 || kc.runID > 1
}

func countEnvelopeKeys(line []byte) (keyCounts, error) {
	var kc keyCounts
	s := newSliceScanner(line, defaultMaxNesting)
	if err := s.expect('{', "an object"); err != nil {
		return kc, err
	}
	if c, ok := s.skipSpace(); ok && c == '}' {
		return kc, nil
	}
	for {
		k, err := s.readKey(64)
		if err != nil {
			return kc, err
		}
		switch {
		case strings.EqualFold(k, "type"):
			kc.typ++
			err = s.skipValue()
		case strings.EqualFold(k, "payload"):
			kc.payload++
			err = s.skipValue()
		case strings.EqualFold(k, "meta"):
			kc.meta++
			var n int
			n, err = countMetaRunIDs(s)
			kc.runID = n // the last meta wins, as in encoding/json
		default:
			err = s.skipValue()
		}
		if err != nil {
			return kc, err
		}
		c, err := s.next("an object")
		if err != nil {
			return kc, err
		}
		if c == '}' {
			return kc, nil
		}
		if c != ',' {
			return kc, errNotObject
		}
	}
}

func countMetaRunIDs(s *scanner) (int, error) {
	c, ok := s.skipSpace()
	if !ok || c != '{' {
		return 0, s.skipValue()
	}
	s.pos++
	n := 0
	if c, ok := s.skipSpace(); ok && c == '}' {
		s.pos++
		return 0, nil
	}
	for {
		k, err := s.readKey(64)
		if err != nil {
			return n, err
		}
		if strings.EqualFold(k, "runId") {
			n++
		}
		if err := s.skipValue(); err != nil {
			return n, err
		}
		c, err := s.next("an object")
		if err != nil {
			return n, err
		}
		if c == '}' {
			return n, nil
		}
		if c != ',' {
			return n, errNotObject
		}
	}
}
