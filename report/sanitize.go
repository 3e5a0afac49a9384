package report

import (
	"strings"
	"unicode/utf8"
)

// Sanitize makes a string that came from a recording safe to put on a
// terminal line. Recordings are written by whatever produced them, so a
// message, an id or a file name can carry escape sequences that recolour,
// retitle or rewrite the terminal (ESC, OSC, CR, BS), or bidirectional
// overrides that make text read differently from what it is. Sanitize shows
// every such character as a visible escape instead of passing it through:
//
//   - C0 controls, DEL and C1 controls: \t, \n, \r by name, others as \xNN
//     (C1 as \u0080–\u009f), so a field always stays on one line;
//   - bidirectional formatting characters (U+202A–U+202E, U+2066–U+2069,
//     U+200E, U+200F, U+061C) and the Unicode line and paragraph separators
//     (U+2028, U+2029) as \uXXXX;
//   - bytes that are not valid UTF-8 as \xNN.
//
// Everything else, including non-ASCII text, passes unchanged. Backslashes
// are not doubled: the result is for reading, not for parsing back.
func Sanitize(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			writeHexByte(&b, `\x`, s[i])
			i++
			continue
		}
		switch {
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			writeHexByte(&b, `\x`, byte(r))
		case r >= 0x80 && r <= 0x9f:
			writeHexByte(&b, `\u00`, byte(r))
		case unsafeFormat(r):
			writeHexRune(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// SanitizeLines is s with each of its lines sanitized and its line breaks
// kept, for a message of several lines (errors.Join puts one error on
// each) that may carry another program's words.
func SanitizeLines(s string) string {
	if clean(s) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Sanitize(l)
	}
	return strings.Join(lines, "\n")
}

// clean reports whether s needs no escaping, the common case, without
// allocating.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			for _, r := range s[i:] {
				if r == utf8.RuneError || (r >= 0x80 && r <= 0x9f) || unsafeFormat(r) || r < 0x20 || r == 0x7f {
					return false
				}
			}
			return true
		}
	}
	return true
}

// unsafeFormat names the invisible formatting characters that can make a
// terminal line read differently from its bytes.
func unsafeFormat(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

const hexDigits = "0123456789abcdef"

func writeHexByte(b *strings.Builder, prefix string, c byte) {
	b.WriteString(prefix)
	b.WriteByte(hexDigits[c>>4])
	b.WriteByte(hexDigits[c&0xf])
}

func writeHexRune(b *strings.Builder, r rune) {
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hexDigits[(r>>uint(shift))&0xf])
	}
}
