package checks

import (
	"encoding/binary"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Lower-casing is how an argument is looked up in what the run served
// (case-insensitive substring: strings.Contains(strings.ToLower(text),
// strings.ToLower(value))). The texts are the long part: every message of a
// frame, for every argument of every call. A replay keeps each distinct
// text of a run lowered once (Frame.Texts); a frame without them has each
// text lowered once per judgement (lowerMemo), and nothing is kept across
// judgements. Either only remembers strings.ToLower's answers, so it
// changes how fast a verdict comes and never what it is; toLower computes
// those answers.

// lowerMemo lowers a list of texts, each at most once: one judgement looks
// many values up in the same texts.
type lowerMemo struct {
	texts []string
	low   []string
	done  []bool
}

func newLowerMemo(texts []string) *lowerMemo {
	return &lowerMemo{texts: texts, low: make([]string, len(texts)), done: make([]bool, len(texts))}
}

// at is the lowered form of texts[i].
func (m *lowerMemo) at(i int) string {
	if !m.done[i] {
		m.low[i], m.done[i] = toLower(m.texts[i]), true
	}
	return m.low[i]
}

// toLower is strings.ToLower(s), byte for byte. A message that is ASCII
// but for a few characters (a name, a dash, an emoji) sends
// strings.ToLower down its general path, which maps every rune through a
// function call and writes it alone; here ASCII goes eight bytes at a time
// where it can, and only the other runes through unicode.ToLower. As in
// strings.Map, a byte that is not valid UTF-8 becomes U+FFFD.
func toLower(s string) string {
	i := unchangedPrefix(s)
	if i == len(s) {
		return s
	}
	// Lowered text is as long as the text but for a few runes whose lower
	// case is longer in UTF-8, and for those the buffer grows: one exactly
	// as long keeps a text of a round size in its allocation's size class,
	// and the string keeps the buffer.
	b := make([]byte, len(s))
	n := copy(b, s[:i])
	for i < len(s) {
		if i+8 <= len(s) && n+8 <= len(b) {
			if w := load8(s, i); w&0x8080808080808080 == 0 {
				binary.LittleEndian.PutUint64(b[n:], lowerASCII8(w))
				n += 8
				i += 8
				continue
			}
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = room(b, n, 1)
			b[n] = c
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		r = unicode.ToLower(r)
		b = room(b, n, utf8.RuneLen(r))
		n += utf8.EncodeRune(b[n:], r)
		i += size
	}
	// b is not written again: the string can share it, as strings.Builder
	// does, instead of copying it.
	return unsafe.String(&b[0], n)
}

// room is b with at least k bytes past n.
func room(b []byte, n, k int) []byte {
	if len(b)-n >= k {
		return b
	}
	return append(b, make([]byte, len(b)/4+k)...)
}

// unchangedPrefix is the length of the longest prefix of s that lowering
// leaves as it is.
func unchangedPrefix(s string) int {
	i := 0
	for i < len(s) {
		if i+8 <= len(s) {
			if w := load8(s, i); w&0x8080808080808080 == 0 && upperASCII8(w) == 0 {
				i += 8
				continue
			}
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if n == 1 || unicode.ToLower(r) != r {
			return i // invalid UTF-8 becomes U+FFFD, a change
		}
		i += n
	}
	return i
}

// load8 reads s[i:i+8] as a little-endian word.
func load8(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// upperASCII8 has the high bit set in each byte of w (eight ASCII bytes)
// that is an upper-case letter.
func upperASCII8(w uint64) uint64 {
	const ones = 0x0101010101010101
	// For a byte c < 0x80: c+(0x80-'A') has its high bit set when c >= 'A',
	// and c+(0x80-'Z'-1) when c > 'Z'; no byte carries into the next.
	geA := w + ones*(0x80-'A')
	gtZ := w + ones*(0x80-'Z'-1)
	return geA &^ gtZ & (ones * 0x80)
}

// lowerASCII8 lowers the upper-case letters among eight ASCII bytes.
func lowerASCII8(w uint64) uint64 {
	return w | upperASCII8(w)>>2
}

// Lower is the lowering argument lookups compare by (strings.ToLower, byte
// for byte): a replay that keeps served results in lowered form only
// lowers them with it.
func Lower(s string) string { return toLower(s) }
