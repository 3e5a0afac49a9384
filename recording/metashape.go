package recording

import (
	"bytes"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
)

// agentfootprint writes every event's meta with the same keys in the same
// order, and most values (the run, the paths) repeat from one event to the
// next, so a meta costs a per-member walk only the first time a layout is
// seen: after that it is read against the layout it repeats, byte for
// byte, and a value equal to the one the last meta held needs no scan at
// all. Nothing is validated here: the envelope's pass has validated the
// meta's bytes with the rest of the line, so the walk only has to find
// the values, and the layout only has to prove that the members are the
// same ones in the same order, which settles what the Picker would have
// matched and that no key repeats.

// maxShapeBytes bounds the metas whose layout is kept, so one huge meta
// does not stay in memory for the rest of the stream.
const maxShapeBytes = 4 << 10

// metaShape is the layout of a meta object: its bytes between the values
// (braces, commas, keys, colons, whitespace) and the field each value
// fills, with the values of the last meta read with it.
type metaShape struct {
	valid bool
	// seps[k] is what comes before value k (the opening brace or a comma,
	// the key and the colon); seps[len(fields)] ends the object.
	seps [][]byte
	// fields[k] is the metaPicker index of value k, -1 for a key Meta
	// does not have.
	fields []int
	// vals[k] is value k of the last meta read with this layout, and
	// last is that meta decoded.
	vals [][]byte
	last Meta
	// misses counts the metas the Picker has read since the layout last
	// served one. A layout is learned on the first miss and then on the
	// 2nd, 4th, 8th…, so that a stream whose layouts keep changing pays
	// for learning a few times, not on every meta.
	misses int
}

// missed is told of raw, a meta the Picker has decoded into m: valid JSON
// whose keys each match one field at most once. It learns raw's layout
// when misses says so.
func (s *metaShape) missed(raw []byte, m *Meta) {
	s.valid = false
	s.misses++
	if s.misses&(s.misses-1) != 0 || len(raw) > maxShapeBytes {
		return
	}
	s.seps, s.fields, s.vals = s.seps[:0], s.fields[:0], s.vals[:0]
	prev := 0
	err := jsonfast.MemberOffsets(raw, func(key []byte, _ bool, start, end int) bool {
		s.seps = appendCopy(s.seps, raw[prev:start])
		s.fields = append(s.fields, metaPicker.Match(key))
		s.vals = appendCopy(s.vals, raw[start:end])
		prev = end
		return true
	})
	if err != nil {
		return
	}
	s.seps = appendCopy(s.seps, raw[prev:])
	s.valid = true
	s.last = *m
}

// appendCopy appends a copy of b to list, in the storage of an element
// list dropped earlier when there is one.
func appendCopy(list [][]byte, b []byte) [][]byte {
	if n := len(list); n < cap(list) {
		list = list[:n+1]
		list[n] = append(list[n][:0], b...)
		return list
	}
	return append(list, bytes.Clone(b))
}

// decodeMetaShaped decodes raw, a validated meta object, when it has the
// layout of the last one learned. matched is false when it has not: m may
// then hold part of raw, and the layout must be learned again (its values
// may be ahead of last). Otherwise ok is decodeMeta's answer.
func (d *eventDecoder) decodeMetaShaped(raw []byte, m *Meta) (ok, matched bool) {
	s := &d.shape
	if !s.valid || len(raw) > maxShapeBytes {
		return false, false
	}
	i := 0
	for k, n := range s.fields {
		if !bytes.HasPrefix(raw[i:], s.seps[k]) {
			return false, false
		}
		i += len(s.seps[k])
		// The bytes of the last value, followed by the next separator
		// (which the next step checks), are that value again: no JSON
		// value goes on past a comma, a brace or whitespace outside its
		// strings. The same bytes decode to the same field.
		if last := s.vals[k]; bytes.HasPrefix(raw[i:], last) && copyMetaField(n, m, &s.last) {
			i += len(last)
			continue
		}
		end := valueEnd(raw, i)
		if end < 0 {
			return false, false
		}
		s.vals[k] = append(s.vals[k][:0], raw[i:end]...)
		if !d.metaField(n, raw[i:end], m) {
			s.valid = false // vals and last no longer agree
			return false, true
		}
		i = end
	}
	if !bytes.Equal(raw[i:], s.seps[len(s.fields)]) {
		return false, false
	}
	s.last = *m
	s.misses = 0
	return true, true
}

// copyMetaField copies field n from src to dst; it is false for the
// fields it leaves to metaField: the pointers, which events do not share.
func copyMetaField(n int, dst, src *Meta) bool {
	switch n {
	case metaWallClock:
		dst.WallClockMs = src.WallClockMs
	case metaRunOffset:
		dst.RunOffsetMs = src.RunOffsetMs
	case metaStage:
		dst.RuntimeStageID = src.RuntimeStageID
	case metaSubflow:
		dst.SubflowPath = src.SubflowPath
	case metaComposition:
		dst.CompositionPath = src.CompositionPath
	case metaRunID:
		dst.RunID = src.RunID
	case metaSession:
		dst.SessionID = src.SessionID
	case metaPrincipal:
		dst.Principal = src.Principal
	case metaTenant:
		dst.Tenant = src.Tenant
	case metaTrace:
		dst.TraceID = src.TraceID
	case metaCorrelation:
		dst.CorrelationID = src.CorrelationID
	case metaTurn, metaIter:
		return false
	}
	return true // n = -1: nothing to copy
}

// valueEnd returns the index just after the value that starts at b[i] of
// valid JSON, or -1 when none starts there (whitespace does).
func valueEnd(b []byte, i int) int {
	if jsonfast.KindOf(b[i:min(i+1, len(b))]) == jsonfast.KindInvalid {
		return -1
	}
	end, err := jsonfast.SkipValue(b, i)
	if err != nil {
		return -1
	}
	return end
}
