package replay

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
	"github.com/fpcheck/fpcheck/recording"
)

// The payload decoders below read event payloads in one pass with
// jsonfast, straight into the payload structs of payloads.go, and give
// exactly what json.Unmarshal gives when it succeeds. They only take the
// payloads whose reading is unambiguous: an object whose wanted keys are
// each written once, exactly as spelled, with the JSON type the field
// takes. Anything else (a wrong type, a repeated key, a key that only
// matches under case folding, a payload that is not an object) goes to the
// lenient path, decodeLoose and the encoding/json readers, so that what a
// malformed or hostile payload yields does not depend on which path read
// it.

// pick fills out[i] with the raw value of the member named names[i] (nil
// when absent). ok is false when obj must take the lenient path: it is not
// one valid object, names a wanted key twice, or has a key that could
// match a wanted name only the way encoding/json matches struct fields
// (case-insensitively, or through non-ASCII case folding).
func pick(obj []byte, names []string, out [][]byte) (ok bool) {
	out = out[:len(names)]
	for i := range out {
		out[i] = nil
	}
	ok = true
	err := jsonfast.Members(obj, func(key []byte, _ bool, val []byte) bool {
		ok = jsonfast.CollectMember(key, val, names, out)
		return ok
	})
	return ok && err == nil
}

// pickValid is pick on an obj known to be valid JSON (validated with its
// event): its members are found without validating them again.
func pickValid(obj []byte, names []string, out [][]byte) (ok bool) {
	out = out[:len(names)]
	for i := range out {
		out[i] = nil
	}
	if jsonfast.KindOf(obj) != jsonfast.KindObject {
		return false
	}
	ok = true
	jsonfast.ValidMembers(obj, func(key []byte, _ bool, val []byte) {
		ok = ok && jsonfast.CollectMember(key, val, names, out)
	})
	return ok
}

// walker reads the members and elements of a nested value: validating
// them, or, when the value was validated with its event, not again.
type walker struct{ valid bool }

func (w walker) pick(obj []byte, names []string, out [][]byte) bool {
	if w.valid {
		return pickValid(obj, names, out)
	}
	return pick(obj, names, out)
}

// elements calls fn for each element of the array arr until fn returns
// false; the error is jsonfast.Elements' (none when valid).
func (w walker) elements(arr []byte, fn func(el []byte) bool) error {
	if !w.valid {
		return jsonfast.Elements(arr, func(_ int, el []byte) bool { return fn(el) })
	}
	more := true
	jsonfast.ValidElements(arr, func(el []byte) {
		if more {
			more = fn(el)
		}
	})
	return nil
}

// pickEach fills out, as pick does, with the members of each element of
// the array arr in turn and calls fn after each, until fn returns false.
// It reports whether every element was an object pick took and fn
// returned true for each. A validated array's objects are walked once,
// not first to find their ends.
func (w walker) pickEach(arr []byte, names []string, out [][]byte, fn func() bool) bool {
	if !w.valid {
		ok := true
		err := jsonfast.Elements(arr, func(_ int, el []byte) bool {
			ok = pick(el, names, out) && fn()
			return ok
		})
		return ok && err == nil
	}
	out = out[:len(names)]
	ok := true
	jsonfast.ValidEach(arr, func(i int) int {
		clear(out)
		end := jsonfast.ValidObject(arr, i, func(key []byte, _ bool, val []byte) {
			ok = ok && jsonfast.CollectMember(key, val, names, out)
		})
		if ok = ok && end > i && fn(); !ok {
			return -1
		}
		return end
	})
	return ok
}

// pickPayload is pick on an event's payload: from the index the loader
// made of it while validating it when there is one (the same answer
// without a second walk; see recording.Event.Members), else by walking it.
func pickPayload(ev *recording.Event, m *recording.MemberSet, out [][]byte) bool {
	if ev.Members(m, out[:len(m.Names())]) {
		return true
	}
	return pick(ev.Payload, m.Names(), out)
}

// The setters decode one picked value (nil = the key was absent) into a
// field as json.Unmarshal would, and report false for a value of the wrong
// JSON type. A null leaves a string as it was and resets a pointer.

func setStr(dst *string, v []byte) bool {
	if v == nil {
		return true
	}
	switch v[0] {
	case '"':
		s, err := jsonfast.ShortString(v)
		if err != nil {
			return false
		}
		*dst = s
		return true
	case 'n':
		return true
	}
	return false
}

func setStrPtr(dst **string, v []byte) bool { return setPtr(dst, v, stringOf) }

// stringOf decodes a JSON string; any other kind is the wrong type.
func stringOf(v []byte) (string, bool) {
	if v[0] != '"' {
		return "", false
	}
	s, err := jsonfast.String(v)
	return s, err == nil
}

// setTextPtr is setStrPtr through a text cache, which also holds the
// value the pointer points to (see box); a nil cache allocates it.
func setTextPtr(c *textCache, dst **string, v []byte) bool {
	if v == nil || v[0] != '"' {
		return setStrPtr(dst, v)
	}
	s, ok := c.text(v)
	if !ok {
		return false
	}
	if c == nil {
		// A copy: taking s's address would move s to the heap on the
		// cached path too.
		*dst = new(string)
		**dst = s
	} else {
		*dst = box(&c.strs, s)
	}
	return true
}

// setCachedNumPtr is setNumPtr with the value held by a text cache (see
// box); a nil cache allocates it.
func setCachedNumPtr(c *textCache, dst **float64, v []byte) bool {
	if c == nil || v == nil || v[0] == 'n' {
		return setNumPtr(dst, v)
	}
	x, ok := jsonfast.Number(v)
	if !ok {
		return false
	}
	*dst = box(&c.nums, x)
	return true
}

func setNumPtr(dst **float64, v []byte) bool { return setPtr(dst, v, jsonfast.Number) }

func setBoolPtr(dst **bool, v []byte) bool { return setPtr(dst, v, jsonfast.Bool) }

// setPtr stores a present value through parse, as encoding/json fills a
// pointer field: an absent key leaves dst alone, null clears it, and a
// value parse refuses is the wrong type.
func setPtr[T any](dst **T, v []byte, parse func([]byte) (T, bool)) bool {
	if v == nil {
		return true
	}
	if v[0] == 'n' {
		*dst = nil
		return true
	}
	x, ok := parse(v)
	if !ok {
		return false
	}
	*dst = &x
	return true
}

// setRaw keeps the value's bytes; a null is kept as the bytes null, as
// json.RawMessage keeps it.
func setRaw(dst *json.RawMessage, v []byte) bool {
	if v != nil {
		*dst = v
	}
	return true
}

// stringValue decodes raw as json.Unmarshal into a string does: a string's
// text, "" for null, and not ok for anything else (an absent value
// included).
func stringValue(raw []byte, slow bool) (string, bool) {
	if slow {
		var s string
		return s, json.Unmarshal(raw, &s) == nil
	}
	switch jsonfast.KindOf(raw) {
	case jsonfast.KindString:
		if s, err := jsonfast.ShortString(raw); err == nil {
			return s, true
		}
	case jsonfast.KindNull:
		if jsonfast.IsNull(raw) {
			return "", true
		}
	case jsonfast.KindInvalid:
		if len(raw) == 0 {
			return "", false
		}
	default:
		// A number, boolean, object or array never decodes into a
		// string, valid or not.
		return "", false
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

var (
	injectedNames  = recording.NewMemberSet("contentHash", "slot", "source", "sourceId", "rawContent", "asRole", "position")
	injectedRest   = recording.NewMemberSet("source", "rawContent", "asRole", "position")
	slotNames      = recording.NewMemberSet("slot")
	llmStartNames  = recording.NewMemberSet("iteration", "provider", "systemPromptChars", "systemPromptText", "messagesCount", "toolsCount", "tools")
	llmEndNames    = recording.NewMemberSet("iteration", "content", "wireManifest", "contentWithheld")
	toolStartNames = recording.NewMemberSet("toolName", "toolCallId", "args")
	toolEndNames   = recording.NewMemberSet("toolCallId", "result", "error", "status", "notExecuted")
	iterEndNames   = recording.NewMemberSet("iterIndex", "history")
	historyNames   = []string{"role", "content", "toolCallId", "toolName", "toolCalls"}
	toolCallNames  = []string{"id", "name"}
	evictedNames   = recording.NewMemberSet("slot", "contentHash")
	semanticsNames = recording.NewMemberSet("toolName", "toolCallId", "iteration", "semantics")
	nameNames      = []string{"name"}
	toolNamesNames = []string{"toolNames"}
)

// decodeInjected fills p from a context.injected payload, as decodeLoose
// does; the raw content is decoded through c (nil: no cache). at, when
// not nil, is what the locator read of the same payload by the fast path
// (see decodeLocate): its slot, source id and content hash are taken from
// it rather than decoded again, each member being read on its own.
func decodeInjected(ev *recording.Event, p *injectedPayload, c *textCache, slow bool, at *locatePayload) bool {
	return fastOrLoose(ev.Payload, p, slow, func() bool {
		if at != nil {
			var v [4][]byte
			p.ContentHash, p.Slot, p.SourceID = at.ContentHash, at.Slot, at.SourceID
			return pickPayload(ev, injectedRest, v[:]) && setInjectedRest(p, c, v[:])
		}
		var v [7][]byte
		return pickPayload(ev, injectedNames, v[:]) &&
			setStr(&p.ContentHash, v[0]) && setStr(&p.Slot, v[1]) && setStr(&p.SourceID, v[3]) &&
			setInjectedRest(p, c, [][]byte{v[2], v[4], v[5], v[6]})
	})
}

// setInjectedRest sets the members of a context.injected payload the
// locator does not read, from their values in injectedRest's order.
func setInjectedRest(p *injectedPayload, c *textCache, v [][]byte) bool {
	return setStr(&p.Source, v[0]) && setTextPtr(c, &p.RawContent, v[1]) && setStr(&p.AsRole, v[2]) &&
		setCachedNumPtr(c, &p.Position, v[3])
}

// injectedSlot is the slot of a context.injected payload (ok as
// decodeLoose's), for a replay that needs nothing else of it. The other
// fields cannot change how the slot reads: a wrong type elsewhere makes
// decodeLoose fall back field by field, and the slot is read the same.
func injectedSlot(ev *recording.Event) (string, bool) {
	var v [1][]byte
	var slot string
	if pickPayload(ev, slotNames, v[:]) && setStr(&slot, v[0]) {
		return slot, true
	}
	var p injectedPayload
	ok := decodeLoose(ev.Payload, &p)
	return p.Slot, ok
}

func decodeLLMStart(ev *recording.Event, p *llmStartPayload, slow bool) bool {
	return fastOrLoose(ev.Payload, p, slow, func() bool {
		var v [7][]byte
		return pickPayload(ev, llmStartNames, v[:]) &&
			setNumPtr(&p.Iteration, v[0]) && setStr(&p.Provider, v[1]) && setNumPtr(&p.SystemPromptChars, v[2]) &&
			setStrPtr(&p.SystemPromptText, v[3]) && setNumPtr(&p.MessagesCount, v[4]) && setNumPtr(&p.ToolsCount, v[5]) &&
			setRaw(&p.Tools, v[6])
	})
}

// decodeLLMEnd fills p from an llm_end payload; without content the
// answer text is left unread.
func decodeLLMEnd(ev *recording.Event, p *llmEndPayload, content, slow bool) bool {
	return fastOrLoose(ev.Payload, p, slow, func() bool {
		var v [4][]byte
		ok := pickPayload(ev, llmEndNames, v[:]) && setNumPtr(&p.Iteration, v[0]) && setRaw(&p.WireManifest, v[2]) &&
			setBoolPtr(&p.ContentWithheld, v[3])
		if ok && content {
			ok = setStrPtr(&p.Content, v[1])
		}
		return ok
	})
}

// decodeToolStart fills p from a tool_start payload; at is as
// decodeInjected's, and the locator reads every member p has (through
// toolStartFast).
func decodeToolStart(ev *recording.Event, p *toolStartPayload, slow bool, at *locatePayload) bool {
	return fastOrLoose(ev.Payload, p, slow, func() bool {
		if at != nil {
			p.ToolName, p.ToolCallID, p.Args = at.ToolName, at.ToolCallID, at.Args
			return true
		}
		return toolStartFast(ev, &p.ToolName, &p.ToolCallID, &p.Args)
	})
}

// toolStartFast is the fast reading of a tool_start payload, into the
// fields given: decodeToolStart's and the locator's.
func toolStartFast(ev *recording.Event, name, callID *string, args *json.RawMessage) bool {
	var v [3][]byte
	return pickPayload(ev, toolStartNames, v[:]) && setStr(name, v[0]) && setStr(callID, v[1]) && setRaw(args, v[2])
}

func decodeToolEnd(ev *recording.Event, p *toolEndPayload, slow bool) bool {
	return fastOrLoose(ev.Payload, p, slow, func() bool {
		var v [5][]byte
		return pickPayload(ev, toolEndNames, v[:]) &&
			setStr(&p.ToolCallID, v[0]) && setRaw(&p.Result, v[1]) && setBoolPtr(&p.Error, v[2]) &&
			setStr(&p.Status, v[3]) && setBoolPtr(&p.NotExecuted, v[4])
	})
}

// decodeEvicted fills p from a context.evicted payload; at is as
// decodeInjected's, and the locator reads every member p has (through
// evictedFast).
func decodeEvicted(ev *recording.Event, p *evictedPayload, slow bool, at *locatePayload) bool {
	return fastOrLoose(ev.Payload, p, slow, func() bool {
		if at != nil {
			p.Slot, p.ContentHash = at.Slot, at.ContentHash
			return true
		}
		return evictedFast(ev, &p.Slot, &p.ContentHash)
	})
}

// evictedFast is the fast reading of a context.evicted payload, into the
// fields given: decodeEvicted's and the locator's.
func evictedFast(ev *recording.Event, slot, hash *string) bool {
	var v [2][]byte
	return pickPayload(ev, evictedNames, v[:]) && setStr(slot, v[0]) && setStr(hash, v[1])
}

func decodeSemantics(ev *recording.Event, p *semanticsPayload, slow bool) bool {
	return fastOrLoose(ev.Payload, p, slow, func() bool {
		var v [4][]byte
		return pickPayload(ev, semanticsNames, v[:]) &&
			setStr(&p.ToolName, v[0]) && setStr(&p.ToolCallID, v[1]) && setNumPtr(&p.Iteration, v[2]) &&
			setRaw(&p.Semantics, v[3])
	})
}

func decodeIterationEnd(ev *recording.Event, p *iterationEndPayload, slow bool) bool {
	return fastOrLoose(ev.Payload, p, slow, func() bool {
		var v [2][]byte
		return pickPayload(ev, iterEndNames, v[:]) && setNumPtr(&p.IterIndex, v[0]) && setRaw(&p.History, v[1])
	})
}

// decodeHistory reads an iteration_end history as json.Unmarshal into
// []historyMessage does; ok is false where that fails. Without content
// the messages' contents are left unread (nil). valid says raw was
// validated with its event (see recording.Event.PayloadValidated). The
// fast reading fills dst's array when it is long enough (nil for a new
// one); dst's elements are overwritten either way.
func decodeHistory(dst []historyMessage, raw json.RawMessage, content, slow, valid bool) (msgs []historyMessage, ok bool) {
	if !slow {
		m, ok := fastHistory(dst, raw, content, valid)
		if ok {
			return m, true
		}
		clear(m) // what it read before it gave up points into raw
	}
	return msgs, json.Unmarshal(raw, &msgs) == nil
}

// historyArrays lends the arrays histories are decoded into: an array is
// in use only while one history is read, so the few a process's folds use
// at once serve every run, and a run in flight holds none.
var historyArrays = sync.Pool{New: func() any { return new([]historyMessage) }}

// pooledHistory is the most messages an array lent by historyArrays may
// hold and be lent again: a larger one is let go.
const pooledHistory = 1 << 12

// fastHistory takes only arrays of objects whose toolCalls, when present,
// are an array of objects; anything else is left to encoding/json.
func fastHistory(dst []historyMessage, raw []byte, content, valid bool) ([]historyMessage, bool) {
	if jsonfast.KindOf(raw) != jsonfast.KindArray {
		return nil, false
	}
	w := walker{valid: valid}
	msgs := dst[:0]
	if msgs == nil {
		msgs = []historyMessage{}
	}
	var v [5][]byte
	var f [2][]byte
	ok := w.pickEach(raw, historyNames, v[:], func() bool {
		var m historyMessage
		if !setStr(&m.Role, v[0]) || !setStr(&m.ToolCallID, v[2]) || !setStr(&m.ToolName, v[3]) {
			return false
		}
		if content {
			m.Content = v[1]
		}
		if tc := v[4]; tc != nil && tc[0] != 'n' {
			if tc[0] != '[' {
				return false
			}
			m.ToolCalls = make([]struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			}, 0)
			if !w.pickEach(tc, toolCallNames, f[:], func() bool {
				var call struct {
					ID   string `json:"id"`
					Name string `json:"name"`
				}
				if !setStr(&call.ID, f[0]) || !setStr(&call.Name, f[1]) {
					return false
				}
				m.ToolCalls = append(m.ToolCalls, call)
				return true
			}) {
				return false
			}
		}
		msgs = append(msgs, m)
		return true
	})
	return msgs, ok
}

// toolNamesOf is toolNames, read in one pass when the tools are an array
// of objects each naming itself once with a string; valid says raw was
// validated with its event.
func toolNamesOf(raw json.RawMessage, slow, valid bool) ([]string, bool) {
	if slow || len(raw) == 0 || raw[0] != '[' {
		return toolNames(raw)
	}
	w := walker{valid: valid}
	names := []string{}
	var v [1][]byte
	if !w.pickEach(raw, nameNames, v[:], func() bool {
		if v[0] == nil || v[0][0] != '"' {
			return false
		}
		s, err := jsonfast.ShortString(v[0])
		if err != nil {
			return false
		}
		names = append(names, s)
		return true
	}) {
		return toolNames(raw)
	}
	return names, true
}

// toolNamesMemo is toolNamesOf remembering its last answer: a run offers
// its model the same tools call after call, and the names read from a list
// byte for byte the last one are the last one's. They are handed out
// shared, as a call's tools are (no reader writes into them). A list of
// more than maxMemoTools bytes is read each time rather than held.
type toolNamesMemo struct {
	set   bool
	raw   []byte
	names []string
	ok    bool
}

const maxMemoTools = 16 << 10

// namesOf is toolNamesOf(raw, slow, valid). Whether raw was validated with
// its event changes how it is read, never what is read from it, so the
// bytes alone decide.
func (m *toolNamesMemo) namesOf(raw json.RawMessage, slow, valid bool) ([]string, bool) {
	if m.set && bytes.Equal(raw, m.raw) {
		return m.names, m.ok
	}
	names, ok := toolNamesOf(raw, slow, valid)
	m.set = len(raw) <= maxMemoTools
	if m.set {
		m.raw, m.names, m.ok = append(m.raw[:0], raw...), names, ok
	} else {
		m.raw, m.names = nil, nil
	}
	return names, ok
}

// held is the bytes the memo holds, for a run's kept bytes.
func (m *toolNamesMemo) held() int64 { return int64(cap(m.raw)) }

// manifestNamesOf is manifestNames, read in one pass when the manifest is
// an object naming toolNames once, exactly so; valid says raw was
// validated with its event.
func manifestNamesOf(raw json.RawMessage, slow, valid bool) (names []string, stated bool, problem string) {
	if slow || len(raw) == 0 || raw[0] != '{' {
		return manifestNames(raw)
	}
	w := walker{valid: valid}
	var v [1][]byte
	if !w.pick(raw, toolNamesNames, v[:]) || v[0] == nil || v[0][0] != '[' {
		return manifestNames(raw)
	}
	names = []string{}
	named := true
	err := w.elements(v[0], func(el []byte) bool {
		s, ok := stringValue(el, false)
		if !ok || el[0] != '"' {
			named = false
			return false
		}
		names = append(names, s)
		return true
	})
	switch {
	case err != nil:
		return manifestNames(raw)
	case !named:
		return nil, true, notAName
	}
	return names, true, ""
}

// resultTextOf is resultText without encoding/json for the common cases,
// through c (nil: no cache).
func resultTextOf(raw json.RawMessage, c *textCache, slow bool) string {
	if slow {
		return resultText(raw)
	}
	if s, ok := c.text(raw); ok {
		return s
	}
	return string(raw)
}

var (
	turnStartNames    = recording.NewMemberSet("userPrompt")
	turnEndNames      = recording.NewMemberSet("finalContent")
	slotComposedNames = recording.NewMemberSet("slot", "iteration")
	mapNames          = recording.NewMemberSet("mapId", "iteration", "reengaged")
	routeNames        = recording.NewMemberSet("iterIndex", "chosen")
)

func decodeTurnStart(ev *recording.Event, p *turnStartPayload, slow bool) bool {
	return fastOrLoose(ev.Payload, p, slow, func() bool {
		var v [1][]byte
		return pickPayload(ev, turnStartNames, v[:]) && setStrPtr(&p.UserPrompt, v[0])
	})
}

func decodeTurnEnd(ev *recording.Event, p *turnEndPayload, slow bool) bool {
	return fastOrLoose(ev.Payload, p, slow, func() bool {
		var v [1][]byte
		return pickPayload(ev, turnEndNames, v[:]) && setStrPtr(&p.FinalContent, v[0])
	})
}

func decodeSlotComposed(ev *recording.Event, p *slotComposedPayload, slow bool) bool {
	return fastOrLoose(ev.Payload, p, slow, func() bool {
		var v [2][]byte
		return pickPayload(ev, slotComposedNames, v[:]) && setStr(&p.Slot, v[0]) && setNumPtr(&p.Iteration, v[1])
	})
}

func decodeMap(ev *recording.Event, p *mapPayload, slow bool) bool {
	return fastOrLoose(ev.Payload, p, slow, func() bool {
		var v [3][]byte
		return pickPayload(ev, mapNames, v[:]) && setStr(&p.MapID, v[0]) && setNumPtr(&p.Iteration, v[1]) && setBoolPtr(&p.Reengaged, v[2])
	})
}

func decodeRoute(ev *recording.Event, p *routePayload, slow bool) bool {
	return fastOrLoose(ev.Payload, p, slow, func() bool {
		var v [2][]byte
		return pickPayload(ev, routeNames, v[:]) && setNumPtr(&p.IterIndex, v[0]) && setStr(&p.Chosen, v[1])
	})
}

// fastOrLoose decodes a payload with fast, which handles the easy case (an
// object whose wanted keys appear once, exactly spelled, with the right
// type) and returns false for anything else; then, or when slow forces it,
// the lenient path decodes into a cleared p, so odd payloads read exactly
// as they always have. The lenient path decodes into a copy on the heap,
// so that p, which encoding/json would make escape, stays where the caller
// keeps it: on the fast path, that is the stack.
func fastOrLoose[T any](raw json.RawMessage, p *T, slow bool, fast func() bool) bool {
	if !slow {
		if fast() {
			return true
		}
		var zero T
		*p = zero
	}
	q := new(T)
	*q = *p
	ok := decodeLoose(raw, q)
	*p = *q
	return ok
}
