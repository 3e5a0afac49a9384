package recording

import (
	"encoding/json"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
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
	// kAny is a field only read, never judged here: its readers take
	// each kind it may hold.
	kAny = kString | kNumber | kBool | kArray | kObject
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
// checked: agentfootprint adds and changes those freely. A field of kind
// kAny is listed only to be indexed for its readers (see members.go).
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
	TypeLLMEnd:    {{"iteration", kNumber}, {"content", kString}, {"wireManifest", kObject}, {"contentWithheld", kAny}},
	TypeToolStart: {{"toolName", kString}, {"toolCallId", kString}, {"args", kObject}},
	TypeToolEnd: {
		{"toolCallId", kString}, {"result", kAny}, {"error", kAny}, {"status", kAny}, {"notExecuted", kAny},
	},
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
// is known to be valid JSON (it was validated with the event), so it is
// only walked at its own level (see payloadwalk.go): the members' values
// are skipped without a second validation, and told apart by their first
// byte.
func checkPayloadFields(typ string, payload json.RawMessage, notes *decodeNotes) {
	checkPayloadFieldsWith(typ, payload, notes, false)
}

func checkPayloadFieldsWith(typ string, payload json.RawMessage, notes *decodeNotes, legacy bool) {
	if legacy {
		checkPayloadFieldsLegacy(typ, payload, notes)
		return
	}
	sc, ok := compiledSchemas[typ]
	if !ok || len(payload) == 0 || payload[0] != '{' {
		return
	}
	var last [maxSchemaFields][]byte
	validFields(payload, sc.names, last[:len(sc.names)])
	sc.judge(last[:len(sc.names)], notes)
}

// collect keeps val as the last value of the schema field named key, as
// validFields does. It reports false when the payload cannot be indexed
// (see members.go): key repeats a field, or could match one only the way
// encoding/json matches struct fields.
func (sc *compiledSchema) collect(key []byte, val []byte, last [][]byte) bool {
	return jsonfast.CollectMember(key, val, sc.names, last)
}

// judge notes the fields whose last values (by schema field) have the
// wrong kind, and checks the elements of the nested arrays.
func (sc *compiledSchema) judge(last [][]byte, notes *decodeNotes) {
	for i, f := range sc.fields {
		k, ok := kindOfValue(last[i])
		if !ok {
			continue
		}
		if k&f.kinds == 0 {
			notes.WrongTypes = append(notes.WrongTypes, "payload."+f.name)
			continue
		}
		if n := sc.nested[i]; n != nil {
			checkElements(last[i], n, notes)
		}
	}
}

// compiledSchema is a payload schema in the shape jsonfast.Fields takes.
type compiledSchema struct {
	fields []payloadField
	names  []string
	// nested, per field, is the element shape of an array of objects
	// that is checked too; nil for the other fields.
	nested []*elementSchema
	// number is the schema's place in schemaList, from 1.
	number uint8
}

// elementSchema is the shape of the objects of an array field.
type elementSchema struct {
	name   string // dotted name of the array's elements, "payload.rows[]"
	fields []payloadField
	names  []string
	wrong  []string // dotted names of each field, for notes
}

var compiledSchemas = func() map[string]*compiledSchema {
	nested := func(name string, fields []payloadField) *elementSchema {
		e := &elementSchema{name: name, fields: fields}
		for _, f := range fields {
			e.names = append(e.names, f.name)
			e.wrong = append(e.wrong, name+"."+f.name)
		}
		return e
	}
	subjects := nested("payload.subjects[]", subjectFields)
	rows := nested("payload.rows[]", rowFields)
	m := make(map[string]*compiledSchema, len(payloadSchemas))
	for typ, fields := range payloadSchemas {
		sc := &compiledSchema{fields: fields, nested: make([]*elementSchema, len(fields))}
		for i, f := range fields {
			sc.names = append(sc.names, f.name)
			switch {
			case typ == TypeContextError && f.name == "subjects":
				sc.nested[i] = subjects
			case typ == TypeDisposition && f.name == "rows":
				sc.nested[i] = rows
			}
		}
		m[typ] = sc
	}
	return m
}()

// kindOfValue is the kind of a validated value from its first byte; ok is
// false for null and for no value at all, which read as not recorded.
func kindOfValue(raw []byte) (jsonKinds, bool) {
	switch jsonfast.KindOf(raw) {
	case jsonfast.KindString:
		return kString, true
	case jsonfast.KindNumber:
		return kNumber, true
	case jsonfast.KindBool:
		return kBool, true
	case jsonfast.KindArray:
		return kArray, true
	case jsonfast.KindObject:
		return kObject, true
	}
	return 0, false
}

// checkElements checks each element of an array of objects against its
// element shape, naming a wrong field once per event however many elements
// repeat it.
func checkElements(arr []byte, es *elementSchema, notes *decodeNotes) {
	var seen uint32 // bit i: es.wrong[i] noted; bit 31: es.name noted
	const notObject = 1 << 31
	var last [maxSchemaFields][]byte
	jsonfast.ValidElements(arr, func(elem []byte) {
		if jsonfast.KindOf(elem) != jsonfast.KindObject {
			if seen&notObject == 0 {
				seen |= notObject
				notes.WrongTypes = append(notes.WrongTypes, es.name)
			}
			return
		}
		validFields(elem, es.names, last[:len(es.names)])
		for i, f := range es.fields {
			if k, ok := kindOfValue(last[i]); ok && k&f.kinds == 0 && seen&(1<<i) == 0 {
				seen |= 1 << i
				notes.WrongTypes = append(notes.WrongTypes, es.wrong[i])
			}
		}
	})
}

// checkPayloadFieldsLegacy is checkPayloadFields as it was written on the
// loader's own scanner, kept for the tests that compare the two.
func checkPayloadFieldsLegacy(typ string, payload json.RawMessage, notes *decodeNotes) {
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
			checkElementsLegacy(last[i], "payload.subjects[]", subjectFields, notes)
		case typ == TypeDisposition && f.name == "rows":
			checkElementsLegacy(last[i], "payload.rows[]", rowFields, notes)
		}
	}
}

// maxSchemaFields bounds the fields of one payload schema.
const maxSchemaFields = 10

// checkElementsLegacy is checkElements on the loader's own scanner.
func checkElementsLegacy(arr []byte, name string, fields []payloadField, notes *decodeNotes) {
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
	s := &scanner{buf: obj, end: len(obj), eof: true, maxDepth: defaultMaxNesting, legacy: true}
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
	s.legacy = true
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
