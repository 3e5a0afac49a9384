package jsonfast

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// Results of scanStr, as bits.
const (
	strClosed  uint8 = 1 << iota // the closing quote was consumed
	strEscaped                   // a backslash escape was seen
	strBad                       // the byte at the returned index is not allowed
	strBadEsc                    // with strBad: it follows a backslash
	strBadHex                    // with strBad: it is in the four digits of \u
)

// badStringWhat says where a string's bad byte is, in encoding/json's
// words, from scanStr's result: the message must not depend on whether
// the string was scanned in one piece or several.
func badStringWhat(r uint8) string {
	switch {
	case r&strBadHex != 0:
		return "in \\u hexadecimal character escape"
	case r&strBadEsc != 0:
		return "in string escape code"
	}
	return "in string literal"
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// special has the high bit set in the lowest byte of w (little-endian) that
// is a quote, a backslash or a control character; bits above it may be set
// too. The usual below-a-constant test is exact below the first match
// because a borrow only starts at a matching byte. Flipping bit 1 maps the
// quote (0x22) to 0x20 and the control characters onto themselves, so one
// test "below 0x21" finds both; the space (0x20) becomes 0x22 and passes.
func special(w uint64) uint64 {
	q := w ^ (lsb * 0x02)
	b := w ^ (lsb * '\\')
	return ((q-lsb*0x21)&^q | (b-lsb)&^b) & msb
}

// plain marks the bytes a string body may hold without a second look.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// skipPlain returns the index of the first quote, backslash or control
// character at or after i, or len(p). It reads eight bytes a step: string
// bodies are most of the bytes of an agentfootprint recording.
func skipPlain(p []byte, i int) int {
	// Long bodies (tool output) go 32 bytes a step, then sixteen.
	for i+32 <= len(p) {
		m1 := special(le64(p[i:]))
		m2 := special(le64(p[i+8:]))
		m3 := special(le64(p[i+16:]))
		m4 := special(le64(p[i+24:]))
		if m1|m2|m3|m4 != 0 {
			switch {
			case m1 != 0:
				return i + bits.TrailingZeros64(m1)>>3
			case m2 != 0:
				return i + 8 + bits.TrailingZeros64(m2)>>3
			case m3 != 0:
				return i + 16 + bits.TrailingZeros64(m3)>>3
			}
			return i + 24 + bits.TrailingZeros64(m4)>>3
		}
		i += 32
	}
	for i+16 <= len(p) {
		m1 := special(le64(p[i:]))
		m2 := special(le64(p[i+8:]))
		if m1|m2 != 0 {
			if m1 != 0 {
				return i + bits.TrailingZeros64(m1)>>3
			}
			return i + 8 + bits.TrailingZeros64(m2)>>3
		}
		i += 16
	}
	for i+8 <= len(p) {
		if m := special(le64(p[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(p) && plain[p[i]] {
		i++
	}
	return i
}

// eqBytes has the high bit set in every byte of w equal to c, and in no
// other: a byte that is not zero after the XOR reaches the top bit when
// 0x7f is added to its low seven bits, or has it already, and nothing
// carries into the next byte.
func eqBytes(w uint64, c byte) uint64 {
	const low7 = lsb * 0x7f
	z := w ^ (lsb * uint64(c))
	return ^((z & low7) + low7 | z) & msb
}

// controlBytes has the high bit set in every byte of w below 0x20.
func controlBytes(w uint64) uint64 {
	const low7 = lsb * 0x7f
	return ^((w & low7) + lsb*0x60 | w) & msb
}

// gatherTop packs the top bit of each byte of m into the low byte, the
// first byte in bit 0. Each byte's bit lands alone in the top byte of the
// product, and no two partial products share a position below it.
func gatherTop(m uint64) uint64 {
	return (m >> 7) * 0x0102040810204080 >> 56
}

// stringMasks64 returns the bitmaps of the quotes, backslashes and control
// characters among the 64 bytes at p[0:64], bit k for p[k].
func stringMasks64(p []byte) (quotes, backslashes, controls uint64) {
	_ = p[63]
	if useAVX2 {
		return stringMasks64AVX2(&p[0])
	}
	return stringMasks64Generic(p)
}

// stringMasks64Generic is stringMasks64 eight bytes a step.
func stringMasks64Generic(p []byte) (quotes, backslashes, controls uint64) {
	_ = p[63]
	for k := 0; k < 64; k += 8 {
		// Most words hold no special byte: the cheap test rules them out.
		if w := le64(p[k:]); special(w) != 0 {
			quotes |= gatherTop(eqBytes(w, '"')) << k
			backslashes |= gatherTop(eqBytes(w, '\\')) << k
			controls |= gatherTop(controlBytes(w)) << k
		}
	}
	return quotes, backslashes, controls
}

const evenBits = 0x5555555555555555

// escapedBits marks the bytes of a 64-byte window that a backslash
// escapes, given the backslashes of the window and whether its first
// byte is escaped (in). out says whether the byte after the window is.
// In a run of backslashes, the first, third, fifth... each escape the
// byte after them, counting from the run's start: runs that start on an
// even bit escape from their even bits, the others from their odd bits.
func escapedBits(backslashes, in uint64) (escaped, out uint64) {
	b := backslashes &^ in // an escaped backslash escapes nothing
	starts := b &^ (b << 1)
	// Adding a bit at the start of each even-started run clears the run.
	evenRuns := b &^ (b + starts&evenBits)
	escapers := evenRuns&evenBits | (b&^evenRuns)&^evenBits
	return escapers<<1 | in, escapers >> 63
}

// escape checks the escape whose backslash is at p[i]. It returns the index
// after it, or, when it is bad, the offending byte with st strBad, or, when
// p ends inside it, i with st 0 and ok false.
func escape(p []byte, i int) (next int, st uint8, ok bool) {
	if i+1 >= len(p) {
		return i, 0, false
	}
	e := p[i+1]
	if e == 'u' {
		for k := i + 2; k < i+6; k++ {
			if k >= len(p) {
				return i, 0, false
			}
			if !isHex(p[k]) {
				return k, strBad | strBadHex, false
			}
		}
		return i + 6, 0, true
	}
	if escapeOK[e] {
		return i + 2, 0, true
	}
	return i + 1, strBad | strBadEsc, false
}

// scanStr scans a string body from p[i] (the opening quote is consumed).
// With strClosed the returned index is just after the closing quote; with
// strBad it is the offending byte; with neither, p ended first and the
// index is len(p) or a backslash whose escape p cuts off.
func scanStr(p []byte, i int) (int, uint8) {
	var r uint8
	for {
		// Tool output and copied conversation text escape a newline or
		// a quote every few dozen bytes: past the first bytes, a body is
		// read 64 bytes at a time, from one special byte of the bitmap
		// to the next.
		if i+64+32 <= len(p) {
			if j := skipPlain(p[:i+32], i); j < i+32 {
				i = j
			} else {
				i, r = scanLong(p, i+32, r)
				if r&(strClosed|strBad) != 0 {
					return i, r
				}
				continue // the rest is short, or an escape p cuts off
			}
		} else {
			i = skipPlain(p, i)
		}
		if i >= len(p) {
			return i, r
		}
		var done bool
		if i, r, done = atSpecial(p, i, r); done {
			return i, r
		}
	}
}

// atSpecial steps over the special byte at p[j] of a string body: it
// returns the index to go on from, or, with done, scanStr's answer.
func atSpecial(p []byte, j int, r uint8) (int, uint8, bool) {
	switch p[j] {
	case '"':
		return j + 1, r | strClosed, true
	case '\\':
		next, st, ok := escape(p, j)
		return next, r | strEscaped | st, !ok
	}
	return j, r | strBad, true // a control character
}

// scanLong scans a long string body from p[i] in 64-byte windows while
// they fit in p. It returns like scanStr, or, with neither strClosed nor
// strBad, the index where fewer than 64 bytes remain, or the backslash of
// an escape the end of p cuts off.
//
// A window without a fault is settled from its bitmaps alone: the closing
// quote is the first one no backslash escapes, and only the escaped
// letters are looked at. A window with a fault, or with an escape p cuts
// off, is read special byte by special byte instead, which finds the
// first fault and says what it is as a sequential reader would.
func scanLong(p []byte, i int, r uint8) (int, uint8) {
	var in uint64 // p[i] is escaped: p[i-1] is a backslash that escapes it
	for i+64 <= len(p) {
		base := i
		quotes, backslashes, controls := stringMasks64(p[base : base+64])
		escaped, out := escapedBits(backslashes, in)
		before := ^uint64(0) // the bits before the closing quote
		if closing := quotes &^ escaped; closing != 0 {
			before = closing&-closing - 1
		}
		if windowPlain(p, base, controls&before, escaped&^(quotes|backslashes)&before) {
			if backslashes&before|in != 0 {
				r |= strEscaped
			}
			if before != ^uint64(0) {
				return base + bits.TrailingZeros64(^before) + 1, r | strClosed
			}
			i, in = base+64, out
			continue
		}
		var done bool
		if i, r, done = scanWindow(p, base-int(in), base, r); done {
			return i, r
		}
		in = 0
	}
	return i - int(in), r
}

// windowPlain reports whether a window at p[base:] holds none of the
// given control characters and only valid escaped letters, with every
// \u escape's digits in p.
func windowPlain(p []byte, base int, controls, letters uint64) bool {
	if controls != 0 {
		return false
	}
	for ; letters != 0; letters &= letters - 1 {
		k := base + bits.TrailingZeros64(letters)
		if c := p[k]; c == 'u' {
			if k+5 > len(p) || !isHex(p[k+1]) || !isHex(p[k+2]) || !isHex(p[k+3]) || !isHex(p[k+4]) {
				return false
			}
		} else if !escapeOK[c] {
			return false
		}
	}
	return true
}

// scanWindow reads the 64-byte window at p[base:] special byte by special
// byte from p[i], where i is base or the backslash just before it. It
// returns the index to go on from, or, with done, scanStr's answer.
func scanWindow(p []byte, i, base int, r uint8) (int, uint8, bool) {
	var done bool
	if i < base {
		if i, r, done = atSpecial(p, i, r); done {
			return i, r, true
		}
	}
	quotes, backslashes, controls := stringMasks64(p[base : base+64])
	bm := quotes | backslashes | controls
	for {
		// Forget the specials up to where the last escape ends.
		if sh := i - base; sh >= 64 {
			bm = 0
		} else if sh > 0 {
			bm &= ^uint64(0) << sh
		}
		if bm == 0 {
			return max(i, base+64), r, false
		}
		if i, r, done = atSpecial(p, base+bits.TrailingZeros64(bm), r); done {
			return i, r, true
		}
	}
}

// hasHigh reports whether b holds a byte at or above 0x80.
func hasHigh(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if le64(b[i:])&msb != 0 {
			return true
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

var errNotString = errors.New("not a JSON string")

// String decodes a JSON string token (surrounding whitespace allowed) as
// json.Unmarshal into a Go string does: escapes resolved, a \u surrogate
// pair joined, a lone surrogate escape and each invalid UTF-8 byte replaced
// by U+FFFD. Anything but one valid string token is an error.
func String(raw []byte) (string, error) {
	body, esc, err := stringBody(raw)
	if err != nil {
		return "", err
	}
	if !esc && utf8.Valid(body) {
		return string(body), nil
	}
	return string(appendUnquoted(make([]byte, 0, len(body)), body)), nil
}

// AppendString appends the decoded string token raw to dst, as String
// decodes it, so a caller can decode into a reused buffer.
func AppendString(dst, raw []byte) ([]byte, error) {
	body, esc, err := stringBody(raw)
	if err != nil {
		return dst, err
	}
	if !esc && utf8.Valid(body) {
		return append(dst, body...), nil
	}
	return appendUnquoted(dst, body), nil
}

// stringBody validates raw as one string token and returns the bytes
// between its quotes, and whether they hold an escape.
func stringBody(raw []byte) (body []byte, escaped bool, err error) {
	if len(raw) == 0 || raw[0] != '"' {
		raw = trimSpace(raw)
		if len(raw) == 0 || raw[0] != '"' {
			return nil, false, errNotString
		}
	}
	j, r := scanStr(raw, 1)
	if r&strClosed == 0 {
		if r&strBad != 0 {
			return nil, false, &SyntaxError{Offset: int64(j), Msg: "invalid character " + quoteByte(raw[j]) + " " + badStringWhat(r)}
		}
		return nil, false, &SyntaxError{Offset: int64(len(raw)), Msg: "unexpected end of JSON input"}
	}
	if j != len(raw) && skipSpace(raw, j) != len(raw) {
		return nil, false, &SyntaxError{Offset: int64(j), Msg: "invalid character " + quoteByte(raw[skipSpace(raw, j)]) + " after top-level value"}
	}
	return raw[1 : j-1], r&strEscaped != 0, nil
}

// appendUnquoted appends the decoded form of a validated string body.
func appendUnquoted(dst, s []byte) []byte {
	r := 0
	for r < len(s) {
		// Copy the run of bytes that need no work at once.
		start := r
		r = nextEscapeOrHigh(s, r)
		dst = append(dst, s[start:r]...)
		if r >= len(s) {
			break
		}
		if c := s[r]; c >= utf8.RuneSelf {
			rr, size := utf8.DecodeRune(s[r:])
			if rr == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[r:r+size]...)
			}
			r += size
			continue
		}
		// A backslash; the body is validated, so its escape is whole.
		switch e := s[r+1]; e {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			rr := hex4(s[r+2 : r+6])
			r += 6
			if utf16.IsSurrogate(rr) {
				rr1 := rune(-1)
				if r+6 <= len(s) && s[r] == '\\' && s[r+1] == 'u' {
					rr1 = hex4(s[r+2 : r+6])
				}
				if dec := utf16.DecodeRune(rr, rr1); dec != utf8.RuneError {
					r += 6
					dst = utf8.AppendRune(dst, dec)
					continue
				}
				rr = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, rr)
			continue
		default: // '"', '\\', '/'
			dst = append(dst, e)
		}
		r += 2
	}
	return dst
}

// nextEscapeOrHigh returns the index of the first backslash or non-ASCII
// byte at or after r, or len(s), eight bytes a step.
func nextEscapeOrHigh(s []byte, r int) int {
	for r+8 <= len(s) {
		w := le64(s[r:])
		b := w ^ (lsb * '\\')
		if m := ((b-lsb)&^b | w) & msb; m != 0 {
			return r + bits.TrailingZeros64(m)>>3
		}
		r += 8
	}
	for r < len(s) && s[r] != '\\' && s[r] < utf8.RuneSelf {
		r++
	}
	return r
}

// hex4 decodes four validated hex digits.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
