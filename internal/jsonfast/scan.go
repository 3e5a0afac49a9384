package jsonfast

import (
	"cmp"
	"math/bits"
	"strconv"
)

// MaxDepth is encoding/json's nesting limit: json.Valid accepts 10,000
// nested arrays and objects and refuses 10,001.
const MaxDepth = 10000

// SyntaxError is input that is not JSON. Offset counts bytes from the start
// of the slice handed over (for a [Scanner], from its last Reset).
type SyntaxError struct {
	Offset int64
	Msg    string
}

// Error states the fault and its offset.
func (e *SyntaxError) Error() string {
	return e.Msg + " at byte offset " + strconv.FormatInt(e.Offset, 10)
}

// DepthError is input nested deeper than the limit in force. The input may
// be valid JSON; it was refused before the rest was read.
type DepthError struct {
	Offset int64
	Limit  int
}

// Error states the limit and where it was passed.
func (e *DepthError) Error() string {
	return "nesting deeper than " + strconv.Itoa(e.Limit) + " levels at byte offset " + strconv.FormatInt(e.Offset, 10)
}

// Scanner states. A state names what the next byte may be, so a Scanner
// can stop at any byte and resume with the next piece of input.
const (
	stValue     uint8 = iota // a value must start
	stElemOrEnd              // after '[': a value or ']'
	stKeyOrEnd               // after '{': a key or '}'
	stKey                    // after ',' in an object: a key
	stColon                  // after a key
	stAfter                  // after a value in a container: ',' or its closer
	stString                 // inside a string
	stEscape                 // after a backslash in a string
	stHex                    // inside the four hex digits of \u (sub = digits read)
	stNumber                 // inside a number (sub = number state)
	stLiteral                // inside true, false or null (lit, sub = bytes matched)
	stDone                   // the value is complete
	stFailed                 // an error was returned; Reset to reuse
)

// Scanner validates one JSON value handed over in pieces, keeping only a
// few bytes of state and one bit per open container. It lets a reader that
// streams a document through a small buffer skip a value of any size and
// depth without holding it: feed it each buffered piece and advance by what
// it consumed.
//
// The zero Scanner is ready, with the MaxDepth limit.
type Scanner struct {
	max   int
	depth int
	inl   [4]uint64 // container kinds of the first 256 levels (bit set: object)
	more  []uint64  // levels beyond 256
	off   int64     // bytes consumed by earlier Scan calls
	err   error
	st    uint8
	sub   uint8
	lit   uint8
	inKey bool
	// spec, when set, makes the Scanner speculate (see Speculate): the
	// containers below its starting level are unknown.
	spec *speculation
}

// Reset prepares s for a new value, nested at most maxDepth levels
// (MaxDepth when maxDepth is not positive).
func (s *Scanner) Reset(maxDepth int) {
	if maxDepth <= 0 {
		maxDepth = MaxDepth
	}
	more := s.more[:0]
	*s = Scanner{max: maxDepth, more: more}
}

// Scan consumes bytes of p: leading whitespace, then the value. When the
// value ends inside p, done is true and n is the index just after it
// (trailing whitespace is not consumed). Otherwise n is len(p) and the
// next call continues where p stopped. A number at the top level is only
// known to be complete at the next byte that cannot continue it, or at
// End. On an error n is the index of the offending byte. After done or an
// error, Scan returns the same answer until Reset.
func (s *Scanner) Scan(p []byte) (n int, done bool, err error) {
	switch s.st {
	case stDone:
		return 0, true, nil
	case stFailed:
		return 0, false, s.err
	}
	n, done, err = s.scan(p, 0, false)
	s.off += int64(n)
	return n, done, err
}

// End reports the end of the input: nil if a whole value was scanned (a
// number at the top level ends here), else the error.
func (s *Scanner) End() error {
	switch s.st {
	case stDone:
		return nil
	case stFailed:
		return s.err
	}
	_, done, err := s.scan(nil, 0, true)
	if err == nil && !done {
		err = s.fail(0, "unexpected end of JSON input")
	}
	return err
}

// Depth is the number of containers open at the point reached.
func (s *Scanner) Depth() int { return s.depth }

// Offset is the number of bytes consumed since Reset.
func (s *Scanner) Offset() int64 { return s.off }

// setKind records the kind of the container at level d (0-based).
func (s *Scanner) setKind(d int, obj bool) {
	var w *uint64
	if d < 256 {
		w = &s.inl[d>>6]
	} else {
		k := (d - 256) >> 6
		for len(s.more) <= k {
			s.more = append(s.more, 0)
		}
		w = &s.more[k]
	}
	bit := uint64(1) << (d & 63)
	if obj {
		*w |= bit
	} else {
		*w &^= bit
	}
}

// isObject reports whether the container at level d (0-based) is an object.
func (s *Scanner) isObject(d int) bool {
	if d < 256 {
		return s.inl[d>>6]>>(d&63)&1 != 0
	}
	return s.more[(d-256)>>6]>>(d&63)&1 != 0
}

func (s *Scanner) fail(i int, msg string) error {
	s.st = stFailed
	s.err = &SyntaxError{Offset: s.off + int64(i), Msg: msg}
	return s.err
}

func (s *Scanner) failByte(i int, c byte, what string) error {
	return s.fail(i, "invalid character "+quoteByte(c)+" "+what)
}

func (s *Scanner) failDepth(i int) error {
	s.st = stFailed
	s.err = &DepthError{Offset: s.off + int64(i), Limit: cmp.Or(s.max, MaxDepth)}
	return s.err
}

var literals = [3]string{"true", "false", "null"}

// scan runs the state machine over p from index i. It returns the index
// reached, whether the value is complete, and an error. eof means no input
// follows p.
//
// Each state is a label, and a token goes straight to the state that
// follows it: a loop over a switch on the state paid an indirect jump per
// token, whose target the mix of keys, strings, numbers and brackets in a
// recording's snapshot keeps changing; it was the hottest line of
// validating one. st is set only where a piece may end, as the state kept
// for the next piece (at more).
func (s *Scanner) scan(p []byte, i int, eof bool) (int, bool, error) {
	st := s.st
	depth := s.depth
	max := s.max
	if max <= 0 {
		max = MaxDepth
	}
	var (
		c   byte
		m   uint64
		ns  uint8
		obj bool
	)
	switch st {
	case stValue, stElemOrEnd:
		goto value
	case stString:
		goto str
	case stEscape:
		goto escape
	case stHex:
		goto hex
	case stNumber:
		goto number
	case stLiteral:
		goto literal
	case stKeyOrEnd, stKey:
		goto key
	case stColon:
		goto colon
	case stAfter:
		goto after
	case stDone:
		return i, true, nil
	default: // stFailed
		return i, false, s.err
	}

value: // st is stValue, or stElemOrEnd where ']' may close an array
	i = skipSpace(p, i)
	if i >= len(p) {
		goto more
	}
	switch c = p[i]; c {
	case '"':
		i++
		s.inKey = false
		goto str
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
			goto key
		}
		st = stElemOrEnd
		goto value
	case ']':
		if st != stElemOrEnd {
			return i, false, s.failByte(i, c, "looking for beginning of value")
		}
		i++
		depth--
		goto ended
	case 't', 'f', 'n':
		s.sub = 0
		switch c {
		case 't':
			s.lit = 0
		case 'f':
			s.lit = 1
		default:
			s.lit = 2
		}
		goto literal
	}
	if c == '-' || '0' <= c && c <= '9' {
		s.sub = nStart
		goto number
	}
	return i, false, s.failByte(i, c, "looking for beginning of value")

str: // inside a string; s.inKey says whether it is a key
	// Most strings are short keys and values without escapes: look for
	// the closing quote here before calling scanStr.
	m = 0
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
				goto escape
			}
			st = stString
			goto more
		}
	}
	if s.inKey {
		if i < len(p) && p[i] == ':' { // compact JSON
			i++
			st = stValue
			goto value
		}
		goto colon
	}
	goto ended

escape: // after a backslash in a string
	if i >= len(p) {
		st = stEscape
		goto more
	}
	if c = p[i]; c == 'u' {
		s.sub = 0
		i++
		goto hex
	}
	if !escapeOK[c] {
		return i, false, s.failByte(i, c, "in string escape code")
	}
	i++
	goto str

hex: // inside the four hex digits of \u (s.sub = digits read)
	for s.sub < 4 {
		if i >= len(p) {
			st = stHex
			goto more
		}
		if !isHex(p[i]) {
			return i, false, s.failByte(i, p[i], "in \\u hexadecimal character escape")
		}
		i++
		s.sub++
	}
	goto str

number: // inside a number (s.sub = number state)
	ns = s.sub
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
		st = stNumber
		goto more
	}
	if !numAccept[ns] {
		if i >= len(p) {
			s.sub = ns
			st = stNumber
			goto more // reported as an unexpected end below
		}
		return i, false, s.failByte(i, p[i], "in numeric literal")
	}
	goto ended

literal: // inside true, false or null (s.lit, s.sub = bytes matched)
	{
		lit := literals[s.lit]
		k := int(s.sub)
		for k < len(lit) {
			if i >= len(p) {
				s.sub = uint8(k)
				st = stLiteral
				goto more
			}
			if p[i] != lit[k] {
				return i, false, s.failByte(i, p[i], "in literal "+lit+" (expecting "+quoteByte(lit[k])+")")
			}
			i++
			k++
		}
	}
	goto ended

key: // st is stKeyOrEnd after '{', where '}' may close it, or stKey
	i = skipSpace(p, i)
	if i >= len(p) {
		goto more
	}
	if c = p[i]; c == '"' {
		i++
		s.inKey = true
		goto str
	}
	if c != '}' || st != stKeyOrEnd {
		return i, false, s.failByte(i, c, "looking for beginning of object key string")
	}
	i++
	depth--
	goto ended

ended: // a value ended at i: the whole value, or one in a container
	if depth == 0 {
		s.st, s.depth = stDone, 0
		return i, true, nil
	}
	goto after

colon: // after a key
	i = skipSpace(p, i)
	if i >= len(p) {
		st = stColon
		goto more
	}
	if p[i] != ':' {
		return i, false, s.failByte(i, p[i], "after object key")
	}
	i++
	st = stValue
	goto value

after: // after a value in a container: ',' or its closer
	i = skipSpace(p, i)
	if i >= len(p) {
		st = stAfter
		goto more
	}
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
	switch c = p[i]; {
	case c == ',':
		i++
		if obj {
			st = stKey
			goto key
		}
		st = stValue
		goto value
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
		goto ended
	}
	if obj {
		return i, false, s.failByte(i, c, "after object key:value pair")
	}
	return i, false, s.failByte(i, c, "after array element")

more:
	s.st = st
	s.depth = depth
	if eof {
		return i, false, s.fail(i, "unexpected end of JSON input")
	}
	return i, false, nil
}

// Valid reports whether b is one JSON value with optional surrounding
// whitespace, with exactly json.Valid's answer.
func Valid(b []byte) bool {
	ok, _ := ValidDepth(b, MaxDepth)
	return ok
}

// ValidDepth is Valid with a nesting limit of max levels (MaxDepth when max
// is not positive). tooDeep reports that the limit stopped the check; the
// input may then be valid JSON all the same.
func ValidDepth(b []byte, max int) (ok, tooDeep bool) {
	var s Scanner
	s.Reset(max)
	i, done, err := s.scan(b, 0, true)
	if err != nil {
		_, tooDeep = err.(*DepthError)
		return false, tooDeep
	}
	return done && skipSpace(b, i) == len(b), false
}

// SkipValue validates the JSON value that starts at b[i] (after optional
// whitespace) and returns the index just after it. Nesting is limited to
// MaxDepth levels, counted from the value.
func SkipValue(b []byte, i int) (end int, err error) {
	return skipValue(b, i, MaxDepth)
}

// SkipValueDepth is SkipValue with a nesting limit of max levels (MaxDepth
// when max is not positive).
func SkipValueDepth(b []byte, i, max int) (end int, err error) {
	if max <= 0 {
		max = MaxDepth
	}
	return skipValue(b, i, max)
}

func skipValue(b []byte, i, max int) (int, error) {
	if i < 0 || i > len(b) {
		return i, &SyntaxError{Offset: int64(i), Msg: "start index out of range"}
	}
	i = skipSpace(b, i)
	if i < len(b) && b[i] == '"' {
		// The common member value: no state machine needed.
		j, r := scanStr(b, i+1)
		if r&strClosed != 0 {
			return j, nil
		}
		if r&strBad != 0 {
			return j, &SyntaxError{Offset: int64(j), Msg: "invalid character " + quoteByte(b[j]) + " " + badStringWhat(r)}
		}
		// An incomplete escape at the end: let the Scanner report it.
	}
	if i < len(b) && (b[i] == '-' || b[i]-'0' < 10) {
		// A well-formed number needs no state machine either; a
		// malformed one is left to the Scanner, which says what is wrong.
		ns, j := nStart, i
		for j < len(b) {
			next := numNext[ns][numClass[b[j]]]
			if next >= nEnd {
				break
			}
			ns, j = next, j+1
		}
		// No accepting state has a byte that is wrong after it: the
		// number ends there, as the Scanner would end it.
		if numAccept[ns] {
			return j, nil
		}
	}
	var s Scanner
	s.Reset(max)
	j, _, err := s.scan(b, i, true)
	return j, err
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(p []byte, i int) int {
	if i < len(p) && p[i] > ' ' {
		return i // compact JSON: the usual case
	}
	for i < len(p) {
		switch p[i] {
		case ' ':
			i++
			// Pretty-printed JSON indents with runs of spaces.
			for i+8 <= len(p) && le64(p[i:]) == 0x2020202020202020 {
				i += 8
			}
		case '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func SkipSpace(b []byte, i int) int { return skipSpace(b, i) }

// IsSpace reports whether c is JSON whitespace: space, tab, line feed or
// carriage return.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// trimSpace removes JSON whitespace from both ends of b.
func trimSpace(b []byte) []byte {
	i := skipSpace(b, 0)
	j := len(b)
	for j > i && IsSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// escapeOK marks the bytes that may follow a backslash, other than 'u'.
var escapeOK = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// quoteByte renders a byte for an error message.
func quoteByte(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	return strconv.QuoteRuneToASCII(rune(c))
}

// Number states and byte classes. numNext[state][class] is the next state,
// nEnd when the byte ends the number (valid only in an accepting state),
// nBad when it cannot follow.
const (
	nStart uint8 = iota // nothing read
	nMinus              // "-"
	nZero               // a leading 0
	nInt                // integer digits
	nDot                // "."
	nFrac               // fraction digits
	nE                  // "e" or "E"
	nESign              // exponent sign
	nExp                // exponent digits
	nEnd
	nBad
)

const (
	cOther uint8 = iota
	cZero
	cDigit
	cMinus
	cPlus
	cDot
	cE
)

var numClass = func() (t [256]uint8) {
	t['0'] = cZero
	for c := '1'; c <= '9'; c++ {
		t[c] = cDigit
	}
	t['-'] = cMinus
	t['+'] = cPlus
	t['.'] = cDot
	t['e'], t['E'] = cE, cE
	return t
}()

var numNext = [nEnd][7]uint8{
	//        other cZero  cDigit cMinus cPlus  cDot  cE
	nStart: {nBad, nZero, nInt, nMinus, nBad, nBad, nBad},
	nMinus: {nBad, nZero, nInt, nBad, nBad, nBad, nBad},
	nZero:  {nEnd, nEnd, nEnd, nEnd, nEnd, nDot, nE},
	nInt:   {nEnd, nInt, nInt, nEnd, nEnd, nDot, nE},
	nDot:   {nBad, nFrac, nFrac, nBad, nBad, nBad, nBad},
	nFrac:  {nEnd, nFrac, nFrac, nEnd, nEnd, nEnd, nE},
	nE:     {nBad, nExp, nExp, nESign, nESign, nBad, nBad},
	nESign: {nBad, nExp, nExp, nBad, nBad, nBad, nBad},
	nExp:   {nEnd, nExp, nExp, nEnd, nEnd, nEnd, nEnd},
}

var numAccept = [nBad + 1]bool{nZero: true, nInt: true, nFrac: true, nExp: true}
