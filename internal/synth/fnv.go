package synth

import (
	"unicode/utf8"

	"github.com/fpcheck/fpcheck/internal/contenthash"
)

// FNV1a is agentfootprint's content hash; the generator writes exactly the
// hashes the replay joins on, so both use one implementation.
func FNV1a(s string) string { return contenthash.FNV1a(s) }

// MessageHash is the contentHash of a messages-slot piece and of the
// context.evicted event that later removes it.
func MessageHash(role string, index int, content string) string {
	return contenthash.Message(role, index, content)
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
