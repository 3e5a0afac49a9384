package synth

import (
	"strconv"
	"unicode/utf8"
)

// FNV1a is agentfootprint's fnv1a: 32-bit FNV-1a over the UTF-16 code units
// of s (what JavaScript's charCodeAt yields, not UTF-8 bytes), rendered as
// lowercase hex without zero padding, so a hash can be shorter than eight
// characters. Invalid UTF-8 counts as U+FFFD, which is what a JSON decoder
// turns a lone surrogate into.
func FNV1a(s string) string {
	return strconv.FormatUint(uint64(fnvAdd(fnvOffset, s)), 16)
}

const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
)

// fnvAdd continues an FNV-1a hash over the UTF-16 code units of s, so that
// a prefix and a long content can be hashed without concatenating them.
func fnvAdd(h uint32, s string) uint32 {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			h = (h ^ uint32(c)) * fnvPrime
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			r -= 0x10000
			h = (h ^ uint32(0xD800+(r>>10))) * fnvPrime
			h = (h ^ uint32(0xDC00+(r&0x3FF))) * fnvPrime
			continue
		}
		h = (h ^ uint32(r)) * fnvPrime
	}
	return h
}

// MessageHash is the contentHash of a messages-slot piece and of the
// context.evicted event that later removes it: fnv1a("<role>:<index>:<content>"),
// index being the message's position in the request.
func MessageHash(role string, index int, content string) string {
	h := fnvAdd(fnvOffset, role+":"+strconv.Itoa(index)+":")
	return strconv.FormatUint(uint64(fnvAdd(h, content)), 16)
}

// ToolHash is the contentHash of a registry tool in the tools slot:
// fnv1a("tool:<name>:<description>").
func ToolHash(name, description string) string {
	return FNV1a("tool:" + name + ":" + description)
}

// SystemPromptHash is the contentHash of a system-prompt piece. The base
// prompt (flavor "") hashes "sp:<content>"; a piece an injection contributes
// hashes "sp:<flavor>:<id>:<content>". Neither form is in the formats
// reference; both were recovered from the reference corpus.
func SystemPromptHash(flavor, id, content string) string {
	if flavor == "" {
		return FNV1a("sp:" + content)
	}
	return FNV1a("sp:" + flavor + ":" + id + ":" + content)
}

// utf16Len is the length of s in UTF-16 code units (JavaScript's .length).
func utf16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}

// summary is contentSummary: the content itself up to 80 UTF-16 units,
// else its first 79 units and an ellipsis. A cut never splits a surrogate
// pair (the library could; generated text never puts one there). Only the
// head of s is scanned: summaries are taken of megabyte results.
func summary(s string) string {
	units, cut := 0, -1
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if cut < 0 && units+w > 79 {
			cut = i
		}
		units += w
		if units > 80 {
			return s[:cut] + "…"
		}
	}
	return s
}
