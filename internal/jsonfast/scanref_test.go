package jsonfast

import (
	"fmt"
	"math/bits"
	"strings"
	"testing"
)

// scanRef is Scanner.scan as a loop over a state switch, the form it had
// before it was written as jumps between states; TestScanMatchesRef and
// FuzzScanMatchesRef hold the two to the same answers, states and errors.
func (s *Scanner) scanRef(p []byte, i int, eof bool) (int, bool, error) {
	st := s.st
	depth := s.depth
	max := s.max
	if max <= 0 {
		max = MaxDepth
	}
	for {
		switch st {
		case stValue, stElemOrEnd:
			i = skipSpace(p, i)
			if i >= len(p) {
				goto more
			}
			switch c := p[i]; c {
			case '"':
				i++
				s.inKey = false
				st = stString
			case '{', '[':
				if depth >= max {
					s.depth = depth
					return i, false, s.failDepth(i)
				}
				s.setKind(depth, c == '{')
				depth++
				if s.spec != nil && depth > s.spec.highest {
					s.spec.highest = depth
				}
				i++
				if c == '{' {
					st = stKeyOrEnd
				} else {
					st = stElemOrEnd
				}
			case ']':
				if st != stElemOrEnd {
					return i, false, s.failByte(i, c, "looking for beginning of value")
				}
				i++
				depth--
				if depth == 0 {
					s.st, s.depth = stDone, 0
					return i, true, nil
				}
				st = stAfter
			case 't', 'f', 'n':
				st = stLiteral
				s.sub = 0
				switch c {
				case 't':
					s.lit = 0
				case 'f':
					s.lit = 1
				default:
					s.lit = 2
				}
			default:
				if c == '-' || '0' <= c && c <= '9' {
					st = stNumber
					s.sub = nStart
					break
				}
				return i, false, s.failByte(i, c, "looking for beginning of value")
			}

		case stString:
			// Most strings are short keys and values without escapes:
			// look for the closing quote here before calling scanStr.
			var m uint64
			for ; i+8 <= len(p); i += 8 {
				if m = special(le64(p[i:])); m != 0 {
					i += bits.TrailingZeros64(m) >> 3
					break
				}
			}
			if m == 0 {
				for i < len(p) && plain[p[i]] {
					i++
				}
			}
			if i < len(p) && p[i] == '"' {
				i++
			} else {
				j, r := scanStr(p, i)
				i = j
				if r&strBad != 0 {
					return i, false, s.failByte(i, p[i], badStringWhat(r))
				}
				if r&strClosed == 0 {
					// The piece ended inside the string, maybe inside an
					// escape: take the escape's bytes one at a time.
					if i < len(p) { // p[i] is a backslash
						i++
						st = stEscape
						continue
					}
					goto more
				}
			}
			if s.inKey {
				if i < len(p) && p[i] == ':' { // compact JSON
					i++
					st = stValue
				} else {
					st = stColon
				}
				continue
			}
			if depth == 0 {
				s.st, s.depth = stDone, 0
				return i, true, nil
			}
			st = stAfter

		case stEscape:
			if i >= len(p) {
				goto more
			}
			if c := p[i]; c == 'u' {
				s.sub = 0
				st = stHex
			} else if escapeOK[c] {
				st = stString
			} else {
				return i, false, s.failByte(i, c, "in string escape code")
			}
			i++

		case stHex:
			for s.sub < 4 {
				if i >= len(p) {
					goto more
				}
				if !isHex(p[i]) {
					return i, false, s.failByte(i, p[i], "in \\u hexadecimal character escape")
				}
				i++
				s.sub++
			}
			st = stString

		case stNumber:
			ns := s.sub
			for i < len(p) {
				next := numNext[ns][numClass[p[i]]]
				if next >= nEnd {
					break
				}
				ns = next
				i++
				if ns == nInt || ns == nFrac || ns == nExp {
					for i < len(p) && p[i]-'0' < 10 {
						i++
					}
				}
			}
			if i >= len(p) && !eof {
				s.sub = ns
				goto more
			}
			if !numAccept[ns] {
				if i >= len(p) {
					s.sub = ns
					goto more // reported as an unexpected end below
				}
				return i, false, s.failByte(i, p[i], "in numeric literal")
			}
			if depth == 0 {
				s.st, s.depth = stDone, 0
				return i, true, nil
			}
			st = stAfter

		case stLiteral:
			lit := literals[s.lit]
			k := int(s.sub)
			for k < len(lit) {
				if i >= len(p) {
					s.sub = uint8(k)
					goto more
				}
				if p[i] != lit[k] {
					return i, false, s.failByte(i, p[i], "in literal "+lit+" (expecting "+quoteByte(lit[k])+")")
				}
				i++
				k++
			}
			if depth == 0 {
				s.st, s.depth = stDone, 0
				return i, true, nil
			}
			st = stAfter

		case stKeyOrEnd, stKey:
			i = skipSpace(p, i)
			if i >= len(p) {
				goto more
			}
			c := p[i]
			if c == '"' {
				i++
				s.inKey = true
				st = stString
				continue
			}
			if c != '}' || st != stKeyOrEnd {
				return i, false, s.failByte(i, c, "looking for beginning of object key string")
			}
			i++
			depth--
			if depth == 0 {
				s.st, s.depth = stDone, 0
				return i, true, nil
			}
			st = stAfter

		case stColon:
			i = skipSpace(p, i)
			if i >= len(p) {
				goto more
			}
			if p[i] != ':' {
				return i, false, s.failByte(i, p[i], "after object key")
			}
			i++
			st = stValue

		case stAfter:
			i = skipSpace(p, i)
			if i >= len(p) {
				goto more
			}
			var obj bool
			if s.spec != nil && depth-1 < s.spec.lowest {
				// A container opened before the speculation started.
				var ok bool
				if obj, ok = s.spec.kindAt(depth-1, i); !ok {
					s.depth = depth
					return i, false, s.failSpeculation(i)
				}
			} else {
				obj = s.isObject(depth - 1)
			}
			switch c := p[i]; {
			case c == ',':
				i++
				if obj {
					st = stKey
				} else {
					st = stValue
				}
			case c == '}' && obj, c == ']' && !obj:
				i++
				depth--
				if s.spec != nil && depth < s.spec.lowest {
					if depth == 0 {
						s.depth = depth
						return i, false, s.failSpeculation(i)
					}
					s.spec.lowest = depth
				}
				if depth == 0 {
					s.st, s.depth = stDone, 0
					return i, true, nil
				}
			default:
				if obj {
					return i, false, s.failByte(i, c, "after object key:value pair")
				}
				return i, false, s.failByte(i, c, "after array element")
			}

		case stDone:
			return i, true, nil

		default: // stFailed
			return i, false, s.err
		}
	}
more:
	s.st = st
	s.depth = depth
	if eof {
		return i, false, s.fail(i, "unexpected end of JSON input")
	}
	return i, false, nil
}

// scanStep is Scan through scan, or through scanRef; with eof and no
// bytes it is End's last step.
func scanStep(s *Scanner, p []byte, eof, ref bool) (int, bool, error) {
	switch s.st {
	case stDone:
		return 0, true, nil
	case stFailed:
		return 0, false, s.err
	}
	var n int
	var done bool
	var err error
	if ref {
		n, done, err = s.scanRef(p, 0, eof)
	} else {
		n, done, err = s.scan(p, 0, eof)
	}
	s.off += int64(n)
	return n, done, err
}

// scannerState is everything a Scanner carries from one piece to the
// next, speculation included.
func scannerState(s *Scanner) string {
	st := fmt.Sprintf("st %d depth %d sub %d lit %d key %v off %d inl %x more %x", s.st, s.depth, s.sub, s.lit, s.inKey, s.off, s.inl, s.more)
	if sp := s.spec; sp != nil {
		st += fmt.Sprintf(" spec %d..%d known %x kinds %x", sp.lowest, sp.highest, sp.known, sp.kinds)
	}
	return st
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%T %v", err, err)
}

// scanBoth feeds b to a Scanner through scan and to one through scanRef,
// n bytes at a time, with a nesting limit of max, and fails the test at
// the first answer or state they differ in.
func scanBoth(t *testing.T, b []byte, n, max int) {
	t.Helper()
	var a, r Scanner
	a.Reset(max)
	r.Reset(max)
	for off := 0; ; {
		end := min(off+n, len(b))
		eof := off >= len(b)
		p := b[off:end]
		if eof {
			p = nil
		}
		ka, da, ea := scanStep(&a, p, eof, false)
		kr, dr, er := scanStep(&r, p, eof, true)
		if ka != kr || da != dr || errText(ea) != errText(er) || scannerState(&a) != scannerState(&r) {
			t.Fatalf("%q in pieces of %d, limit %d, at %d:\nscan    %d %v %s; %s\nscanRef %d %v %s; %s", b, n, max, off, ka, da, errText(ea), scannerState(&a), kr, dr, errText(er), scannerState(&r))
		}
		if da || ea != nil || eof {
			return
		}
		off += ka
	}
}

// speculateBoth summarizes b[:end] as Speculate does, through scan and
// through scanRef, and fails the test where they differ.
func speculateBoth(t *testing.T, b []byte, end int) {
	t.Helper()
	if end <= 0 || end >= len(b) {
		return
	}
	var got [2]string
	for k, ref := range []bool{false, true} {
		sp := &speculation{look: b, lowest: speculateFloor, highest: speculateFloor}
		s := Scanner{max: speculateFloor + MaxDepth, depth: speculateFloor, st: stValue, spec: sp}
		i, done, err := scanStep(&s, b[:end], false, ref)
		got[k] = fmt.Sprintf("%d %v %s; %s", i, done, errText(err), scannerState(&s))
	}
	if got[0] != got[1] {
		t.Fatalf("speculating on %q to %d:\nscan    %s\nscanRef %s", b, end, got[0], got[1])
	}
}

// scanCases are validCases and a few longer texts: strings that span
// pieces in their escapes, nesting past the inline kinds, numbers and
// literals cut anywhere.
func scanCases() [][]byte {
	var cs [][]byte
	for _, c := range validCases {
		cs = append(cs, []byte(c.in))
	}
	deep := strings.Repeat(`{"k":[`, 150) + `"v\u00e9\n"` + strings.Repeat(`]}`, 150)
	cs = append(cs,
		[]byte(deep),
		[]byte(deep[:len(deep)-3]+"}]}"),
		[]byte(`{"a":"`+strings.Repeat(`x\"y\\z\u0041 `, 40)+`","b":[1.5e3,-0,true,false,null,{"c":{}},[]],"d":"\uD83D\uDE00"}`),
		[]byte(`[{"a":1},{"b":2}]`+strings.Repeat(" ", 5)+`,{"c":3}`),
		[]byte(`{"a":1},{"b":[2,3]}],"c":{"d":"e"}}`),
		[]byte(`1.5e`), []byte(`-`), []byte(`tru`), []byte(`"\u12`), []byte(`"abc\`),
	)
	cs = append(cs, corpusLines(4)...)
	return cs
}

func TestScanMatchesRef(t *testing.T) {
	for _, b := range scanCases() {
		for _, n := range []int{1, 2, 3, 5, 7, 8, 13, 64, len(b) + 1} {
			for _, max := range []int{0, 1, 2, 3, 200, 300} {
				scanBoth(t, b, n, max)
			}
		}
		for end := 1; end < len(b); end++ {
			speculateBoth(t, b, end)
		}
	}
}

func FuzzScanMatchesRef(f *testing.F) {
	for _, b := range scanCases() {
		f.Add(b, uint8(7), uint8(0), uint16(len(b)/2))
	}
	f.Fuzz(func(t *testing.T, b []byte, n, max uint8, end uint16) {
		scanBoth(t, b, int(n)%70+1, int(max)%8)
		speculateBoth(t, b, int(end))
	})
}
