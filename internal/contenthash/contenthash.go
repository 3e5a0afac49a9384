// Package contenthash is agentfootprint's content hash, the one function
// both the replay (to join evictions to the messages they removed) and the
// recording generator (to write hashes the replay can join) must agree on
// byte for byte.
package contenthash

import (
	"strconv"
	"unicode/utf8"
)

const (
	offset = 2166136261
	prime  = 16777619
)

// FNV1a is agentfootprint's fnv1a: 32-bit FNV-1a over the UTF-16 code units
// of s (what JavaScript's charCodeAt yields, not UTF-8 bytes), rendered as
// lowercase hex without zero padding, so a hash can be shorter than eight
// characters. Invalid UTF-8 counts as U+FFFD per bad byte, which is what a
// JSON decoder turns a lone surrogate into.
func FNV1a(s string) string {
	return strconv.FormatUint(uint64(add(offset, s)), 16)
}

// Message is the contentHash of a messages-slot piece and of the
// context.evicted event that later removes it: fnv1a("<role>:<index>:<content>"),
// index being the message's position in the request. The content is hashed
// in place: tool results can be megabytes, and joining them to a prefix
// would copy each one.
func Message(role string, index int, content string) string {
	h := add(offset, role)
	h = add(h, ":")
	h = add(h, strconv.Itoa(index))
	h = add(h, ":")
	return strconv.FormatUint(uint64(add(h, content)), 16)
}

// add continues an FNV-1a hash over the UTF-16 code units of s.
func add(h uint32, s string) uint32 {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			h = (h ^ uint32(c)) * prime
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			r -= 0x10000
			h = (h ^ uint32(0xD800+(r>>10))) * prime
			h = (h ^ uint32(0xDC00+(r&0x3FF))) * prime
			continue
		}
		h = (h ^ uint32(r)) * prime
	}
	return h
}
