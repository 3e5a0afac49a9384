package jsonfast

import (
	"hash/maphash"
	"sync/atomic"
)

// ShortString decodes the string token raw as String does. The value of a
// short token without escapes comes from a small cache shared by every
// goroutine, so the ids, hashes, roles and slot names a recording repeats
// on every event are not allocated again each time. The cache is a fixed
// array of slots, each holding the last string that hashed to it: a
// recording of distinct values costs a miss each, never memory.
func ShortString(raw []byte) (string, error) {
	if n := len(raw); n >= 2 && n-2 <= shortMax && raw[0] == '"' && raw[n-1] == '"' {
		body := raw[1 : n-1]
		if plainASCII(body) {
			slot := &shortCache[maphash.Bytes(shortSeed, body)%shortSlots]
			// The entry holds its bytes beside the string, so a hit is
			// told by the entry alone, without following the string
			// to its bytes elsewhere in memory.
			if e := slot.Load(); e != nil && int(e.n) == len(body) && string(e.bytes[:e.n]) == string(body) {
				return e.s, nil
			}
			e := &shortEntry{s: string(body), n: uint8(len(body))}
			copy(e.bytes[:], body)
			slot.Store(e)
			return e.s, nil
		}
	}
	return String(raw)
}

const (
	shortMax   = 64
	shortSlots = 4096
)

// shortEntry is a cached string with a copy of its bytes.
type shortEntry struct {
	s     string
	n     uint8
	bytes [shortMax]byte
}

var (
	shortSeed  = maphash.MakeSeed()
	shortCache [shortSlots]atomic.Pointer[shortEntry]
)

// plainASCII reports whether body is a string body that decodes to
// itself: printable ASCII, no quote and no backslash. Anything else takes
// String's path, which validates and unescapes. Eight bytes are looked at
// a time: a byte with its high bit set fails whatever special makes of the
// word, and without one special is exact.
func plainASCII(body []byte) bool {
	i := 0
	for ; i+8 <= len(body); i += 8 {
		if w := le64(body[i:]); (w|special(w))&msb != 0 {
			return false
		}
	}
	for _, c := range body[i:] {
		if !plain[c] || c >= 0x80 {
			return false
		}
	}
	return true
}
