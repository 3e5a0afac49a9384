package recording

import (
	"slices"
	"sort"
)

// The decoder validates each payload in one pass that also collects the
// values of its schema's fields (payloadHook). Those offsets go with the
// event, so that a replay reading those members takes them from the index
// instead of walking the payload a second time: the payloads it reads
// most (context.injected, the model calls, the tool results) are mostly
// long strings, and the walk was the larger part of replaying them.
//
// An index answers only for payloads whose reading is unambiguous: each
// schema field written at most once, and no other key that encoding/json
// could match to one of them (a key differing in case, or with non-ASCII
// letters). Anything else carries no index, and its reader walks it as
// before, so what a payload reads as never depends on whether it was
// indexed.

// PayloadIndex is where the values of a payload's schema fields are: the
// offsets of field k's value in the payload are at[k], {0, 0} when the
// field is absent (a value never starts at 0, where the object's brace
// is). schema is 1 + the schema's number, 0 for no index; n is the length
// of the payload indexed, so an index never reads a payload it was not
// made for.
type PayloadIndex struct {
	at     [maxSchemaFields][2]uint32
	n      uint32
	schema uint8
}

// Equal reports true: an index is only a faster way to read the payload it
// was made of, so two events with equal payloads read the same whatever
// their indexes (events read with and without one compare equal).
func (PayloadIndex) Equal(PayloadIndex) bool { return true }

// schemaList numbers the schemas, in the order of their type names.
var schemaList = func() []*compiledSchema {
	types := make([]string, 0, len(compiledSchemas))
	for t := range compiledSchemas {
		types = append(types, t)
	}
	sort.Strings(types)
	list := make([]*compiledSchema, len(types))
	for i, t := range types {
		sc := compiledSchemas[t]
		sc.number = uint8(i + 1)
		list[i] = sc
	}
	return list
}()

// indexOf makes the index of payload p from the decoder's collected fields
// of schema sc (slices of the same bytes as p); ok is false when a field
// is not where p is.
func indexOf(sc *compiledSchema, p []byte, fields [][]byte) (ix PayloadIndex, ok bool) {
	if uint64(len(p)) > uint64(^uint32(0)) {
		return PayloadIndex{}, false
	}
	for k, f := range fields[:len(sc.names)] {
		if f == nil {
			continue
		}
		at := cap(p) - cap(f)
		if at <= 0 || at+len(f) > len(p) || &p[at] != &f[0] {
			return PayloadIndex{}, false
		}
		ix.at[k] = [2]uint32{uint32(at), uint32(at + len(f))}
	}
	ix.n, ix.schema = uint32(len(p)), sc.number
	return ix, true
}

// A MemberSet is a list of payload member names to read from the index
// the decoder made of an event's payload (see Event.Members).
type MemberSet struct {
	names []string
	// slots, by schema number - 1, hold each name's field in that
	// schema; nil when the schema lacks one of the names.
	slots [][]uint8
}

// NewMemberSet resolves names against every payload schema.
func NewMemberSet(names ...string) *MemberSet {
	m := &MemberSet{names: slices.Clone(names), slots: make([][]uint8, len(schemaList))}
	for s, sc := range schemaList {
		slots := make([]uint8, len(names))
		for i, n := range names {
			k := slices.Index(sc.names, n)
			if k < 0 {
				slots = nil
				break
			}
			slots[i] = uint8(k)
		}
		m.slots[s] = slots
	}
	return m
}

// Names are the set's names, in order.
func (m *MemberSet) Names() []string { return m.names }

// Members fills out[i] with the raw value of the payload member named
// m.Names()[i] (nil when absent) from the index the decoder made of the
// payload while validating it, and reports whether it could: false when
// the payload has no index (see above) or its type's schema does not hold
// every name; the caller then reads the payload itself. What it gives is
// what jsonfast.Members gives for those names on the same payload, with
// every name present at most once and no key folding to one of them.
func (ev *Event) Members(m *MemberSet, out [][]byte) bool {
	ix := &ev.PayloadIndex
	if !ev.PayloadValidated() || int(ix.schema) > len(m.slots) {
		return false
	}
	slots := m.slots[ix.schema-1]
	if slots == nil {
		return false
	}
	for i, k := range slots {
		o := ix.at[k]
		if o[1] == 0 {
			out[i] = nil
			continue
		}
		out[i] = ev.Payload[o[0]:o[1]]
	}
	return true
}

// PayloadValidated reports whether the decoder validated the payload's
// bytes as JSON and indexed them (see Members): a reader may then walk
// them without validating them again.
func (ev *Event) PayloadValidated() bool {
	ix := &ev.PayloadIndex
	return ix.schema != 0 && uint64(len(ev.Payload)) == uint64(ix.n)
}
