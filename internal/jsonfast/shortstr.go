package jsonfast

import (
	"hash/maphash"
	"sync/atomic"
	"unicode/utf8"
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
			if p := slot.Load(); p != nil && *p == string(body) {
				return *p, nil
			}
			s := string(body)
			slot.Store(&s)
			return s, nil
		}
	}
	return String(raw)
}

const (
	shortMax   = 64
	shortSlots = 4096
)

var (
	shortSeed  = maphash.MakeSeed()
	shortCache [shortSlots]atomic.Pointer[string]
)

// plainASCII reports whether body is a string body that decodes to
// itself: printable ASCII, no quote and no backslash. Anything else takes
// String's path, which validates and unescapes.
func plainASCII(body []byte) bool {
	for _, c := range body {
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
