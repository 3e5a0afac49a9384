package recording

import (
	"encoding/json"
)

// JSON kinds a payload field may hold, as a bit set. null is accepted for
// every field: the replay reads it as "not recorded", which is what it says
// (and JSON.stringify writes NaN and Infinity as null).
type jsonKinds uint8

const (
	kString jsonKinds = 1 << iota
	kNumber
	kBool
	kArray
	kObject
)

// payloadField is one payload field fpcheck reads, with the kinds it may
// hold.
type payloadField struct {
	name  string
	kinds jsonKinds
}

// payloadSchemas lists, per event type, the payload fields the replay and
// the recorded-evidence reader use (agentfootprint-formats §7). Those
// readers take a field of the wrong kind as not recorded rather than fail
// the run; the loader is where that is counted and said, so nothing is
// read as absent without a word. Fields fpcheck never reads are not
// checked: agentfootprint adds and changes those freely.
var payloadSchemas = map[string][]payloadField{
	TypeRunConfigured: {{"integrity", kObject}},
	TypeTurnStart:     {{"userPrompt", kString}},
	TypeTurnEnd:       {{"finalContent", kString}},
	TypeContextInjected: {
		{"contentHash", kString}, {"slot", kString}, {"source", kString}, {"sourceId", kString},
		{"rawContent", kString}, {"asRole", kString}, {"position", kNumber},
	},
	TypeSlotComposed:   {{"slot", kString}, {"iteration", kNumber}},
	TypeContextEvicted: {{"slot", kString}, {"contentHash", kString}},
	TypeMapParked:      {{"mapId", kString}, {"iteration", kNumber}},
	TypeMapEngaged:     {{"mapId", kString}, {"iteration", kNumber}, {"reengaged", kBool}},
	TypeLLMStart: {
		{"iteration", kNumber}, {"provider", kString}, {"systemPromptChars", kNumber},
		{"systemPromptText", kString}, {"messagesCount", kNumber}, {"toolsCount", kNumber}, {"tools", kArray},
	},
	TypeLLMEnd:       {{"iteration", kNumber}, {"content", kString}, {"wireManifest", kObject}},
	TypeToolStart:    {{"toolName", kString}, {"toolCallId", kString}, {"args", kObject}},
	TypeToolEnd:      {{"toolCallId", kString}},
	TypeIterationEnd: {{"iterIndex", kNumber}, {"history", kArray}},
	TypeRouteDecided: {{"iterIndex", kNumber}, {"chosen", kString}},
	TypeSemantics:    {{"toolName", kString}, {"toolCallId", kString}, {"iteration", kNumber}, {"semantics", kObject}},
	TypeContextError: {
		{"kind", kString}, {"seam", kString}, {"subjects", kArray}, {"witnesses", kArray},
		{"predicate", kString}, {"epoch", kNumber}, {"synthetic", kBool}, {"advisory", kBool},
		{"message", kString}, {"iteration", kNumber},
	},
	TypeDisposition: {{"posture", kString}, {"workExisted", kBool}, {"rows", kArray}},
}

// Nested shapes of the integrity payloads, which carry the recorded
// evidence itself.
var (
	subjectFields = []payloadField{{"kind", kString}, {"id", kString}}
	rowFields     = []payloadField{
		{"check", kString}, {"seam", kString}, {"checked", kNumber}, {"findings", kNumber},
		{"notApplicable", kNumber}, {"unreachable", kNumber}, {"synthetic", kNumber}, {"lastFiredAt", kNumber},
	}
)

// kindOf is the JSON kind of a valid value from its first byte.
func kindOf(raw []byte) (jsonKinds, bool) {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '"':
			return kString, true
		case '{':
			return kObject, true
		case '[':
			return kArray, true
		case 't', 'f':
			return kBool, true
		case 'n':
			return 0, false // null: not recorded
		}
		return kNumber, true
	}
	return 0, false
}

// checkPayloadFields appends to notes the dotted names of the payload
// fields of an event of type typ that hold the wrong JSON kind. As in
// encoding/json, the last of a repeated key is the one judged. The payload
// is known to be valid JSON (it was decoded with the event), so a scan
// failure cannot happen; if it does, the check just stops.
func checkPayloadFields(typ string, payload json.RawMessage, notes *decodeNotes) {
	schema, ok := payloadSchemas[typ]
	if !ok || len(payload) == 0 || payload[0] != '{' {
		return
	}
	var last [maxSchemaFields][]byte
	eachMember(payload, func(key []byte, value []byte) {
		for i, f := range schema {
			if f.name == string(key) {
				last[i] = value
				return
			}
		}
	})
	for i, f := range schema {
		k, ok := kindOf(last[i])
		if !ok {
			continue
		}
		if k&f.kinds == 0 {
			notes.WrongTypes = append(notes.WrongTypes, "payload."+f.name)
			continue
		}
		switch {
		case typ == TypeContextError && f.name == "subjects":
			checkElements(last[i], "payload.subjects[]", subjectFields, notes)
		case typ == TypeDisposition && f.name == "rows":
			checkElements(last[i], "payload.rows[]", rowFields, notes)
		}
	}
}

// maxSchemaFields bounds the fields of one payload schema.
const maxSchemaFields = 16

// checkElements checks each element of an array of objects against fields,
// naming a wrong field once per event however many elements repeat it.
func checkElements(arr []byte, name string, fields []payloadField, notes *decodeNotes) {
	if arr == nil {
		return
	}
	seen := map[string]bool{}
	note := func(n string) {
		if !seen[n] {
			seen[n] = true
			notes.WrongTypes = append(notes.WrongTypes, n)
		}
	}
	eachElement(arr, func(elem []byte) {
		if k, ok := kindOf(elem); !ok || k != kObject {
			note(name)
			return
		}
		var last [maxSchemaFields][]byte
		eachMember(elem, func(key []byte, value []byte) {
			for i, f := range fields {
				if f.name == string(key) {
					last[i] = value
					return
				}
			}
		})
		for i, f := range fields {
			if k, ok := kindOf(last[i]); ok && k&f.kinds == 0 {
				note(name + "." + f.name)
			}
		}
	})
}

// eachMember calls fn with each key and raw value of the JSON object obj
// (valid JSON), in document order. It runs on every event whose type has a
// schema, so plain keys are compared in place, without allocating; only a
// key with an escape in it is decoded.
func eachMember(obj []byte, fn func(key []byte, value []byte)) {
	s := &scanner{buf: obj, end: len(obj), eof: true, maxDepth: defaultMaxNesting}
	if s.expect('{', "an object") != nil {
		return
	}
	if c, ok := s.skipSpace(); ok && c == '}' {
		return
	}
	for {
		if s.expect('"', "an object") != nil {
			return
		}
		start, end := s.pos, s.pos
		for end < len(obj) && obj[end] != '"' && obj[end] != '\\' {
			end++
		}
		var key []byte
		if end < len(obj) && obj[end] == '"' {
			key = obj[start:end]
			s.pos = end + 1
			if s.expect(':', "an object") != nil {
				return
			}
		} else {
			s.pos = start - 1
			k, err := s.readKey(64)
			if err != nil {
				return
			}
			key = []byte(k)
		}
		s.skipSpace()
		vstart := s.pos
		if s.skipValue() != nil {
			return
		}
		fn(key, obj[vstart:s.pos])
		c, err := s.next("an object")
		if err != nil || c != ',' {
			return
		}
	}
}

// eachElement calls fn with each raw element of the JSON array arr.
func eachElement(arr []byte, fn func(elem []byte)) {
	s := newSliceScanner(arr, defaultMaxNesting)
	if s.expect('[', "an array") != nil {
		return
	}
	if c, ok := s.skipSpace(); ok && c == ']' {
		return
	}
	for {
		s.skipSpace()
		start := s.pos
		if s.skipValue() != nil {
			return
		}
		fn(arr[start:s.pos])
		c, err := s.next("an array")
		if err != nil || c != ',' {
			return
		}
	}
}
