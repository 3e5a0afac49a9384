package recording

import (
	"bytes"
	"errors"
	"strings"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
)

// skipValue's validator words its errors its own way and places some of
// them elsewhere (a bad escape at the escaped byte, a bad literal at the
// byte that differs). The loader's messages and offsets stay what they
// were: on a failure (rare, and fatal to the document) the validator's
// state just before the offending byte is recovered and named by feeding
// copies of it probe bytes, and the message is built from that state.

// scanPlace is where in the JSON grammar a validator stands.
type scanPlace uint8

const (
	placeUnknown  scanPlace = iota
	placeString             // inside a string body
	placeEscape             // after the backslash of an escape
	placeHex                // inside the four digits of \u
	placeNumber             // inside a number that cannot end here
	placeLiteral            // inside true, false or null
	placeValue              // a value must start
	placeKeyOrEnd           // after '{': a key or '}'
	placeKey                // after ',' in an object: a key
	placeColon              // after a key
	placeAfterObj           // after a member value (or a number that may end there)
	placeAfterArr           // after an array element (likewise)
)

// scanState is a place with the details its message needs.
type scanState struct {
	place   scanPlace
	digits  int    // placeHex: digits of \u read
	lit     string // placeLiteral: the literal
	matched int    // placeLiteral: its bytes read
}

var probeByte = []byte{0x01} // a control character: every state refuses it, each with its own message

// probeMsg feeds a copy of st the bytes in and returns the message of the
// error it gives, or "" when it gives none.
func probeMsg(st jsonfast.Scanner, in []byte) string {
	_, _, err := st.Scan(in)
	var se *jsonfast.SyntaxError
	if errors.As(err, &se) {
		return se.Msg
	}
	return ""
}

// classify names the place of st, which must not have failed. A copy is
// probed each time, so st is left as it was; probes open no container, so
// the copies' shared depth stack is never written.
func classify(st jsonfast.Scanner) scanState {
	msg := probeMsg(st, probeByte)
	switch {
	case strings.HasSuffix(msg, "in string literal"):
		return scanState{place: placeString}
	case strings.HasSuffix(msg, "in string escape code"):
		return scanState{place: placeEscape}
	case strings.HasSuffix(msg, `in \u hexadecimal character escape`):
		// Count the digits still wanted by feeding zeros.
		for k := 1; k <= 4; k++ {
			if strings.HasSuffix(probeMsg(st, append(bytes.Repeat([]byte{'0'}, k), 0x01)), "in string literal") {
				return scanState{place: placeHex, digits: 4 - k}
			}
		}
	case strings.HasSuffix(msg, "in numeric literal"):
		return scanState{place: placeNumber}
	case strings.Contains(msg, " in literal "):
		lit, _, _ := strings.Cut(msg[strings.Index(msg, " in literal ")+len(" in literal "):], " ")
		// Feed the expected bytes until the literal is whole.
		cur := st
		rest := 0
		for m := msg; strings.Contains(m, " in literal ") && rest < len(lit); m = probeMsg(cur, probeByte) {
			i := strings.LastIndex(m, "(expecting '")
			if i < 0 || i+len("(expecting '") >= len(m) {
				return scanState{}
			}
			cur.Scan([]byte{m[i+len("(expecting '")]})
			rest++
		}
		return scanState{place: placeLiteral, lit: lit, matched: len(lit) - rest}
	case strings.HasSuffix(msg, "looking for beginning of value"):
		return scanState{place: placeValue}
	case strings.HasSuffix(msg, "looking for beginning of object key string"):
		if probeMsg(st, []byte{'}'}) == "" {
			return scanState{place: placeKeyOrEnd}
		}
		return scanState{place: placeKey}
	case strings.HasSuffix(msg, "after object key:value pair"):
		return scanState{place: placeAfterObj}
	case strings.HasSuffix(msg, "after object key"):
		return scanState{place: placeColon}
	case strings.HasSuffix(msg, "after array element"):
		return scanState{place: placeAfterArr}
	}
	return scanState{}
}

// errorAt is a syntaxError at stream offset off (at or before the next
// unread byte, on its line), with the read position moved there as the
// byte walker left it.
func (s *scanner) errorAt(off int64, msg string) error {
	if p := off - s.base; p >= 0 && p <= int64(s.end) {
		s.pos = int(p)
	}
	return &syntaxError{Offset: off, Line: s.line(), Msg: msg}
}

// scanError is skipValue's failure at p[n]: the piece p was scanned from
// the state before, and failed with err.
func (s *scanner) scanError(before jsonfast.Scanner, p []byte, n int, err error) error {
	s.lines += int64(bytes.Count(p[:n], newline))
	s.pos += n
	var de *jsonfast.DepthError
	if errors.As(err, &de) {
		// The walker counted the level once past the bracket.
		s.pos++
		return &depthError{Offset: s.offset(), Line: s.line(), Limit: s.maxDepth}
	}
	pre := before
	if _, _, perr := pre.Scan(p[:n]); perr != nil {
		return s.syntaxErr("%s", syntaxMsg(err))
	}
	c := p[n]
	off := s.offset()
	st := classify(pre)
	switch st.place {
	case placeString:
		return s.syntaxErr("control character %s inside a string", quoteByte(c))
	case placeEscape:
		return s.errorAt(off-1, "invalid escape "+quoteByte(c)+" in a string")
	case placeHex:
		start := off - 2 - int64(st.digits)
		if !s.ensure(4 - st.digits) {
			if s.err != nil {
				return s.err
			}
			return s.errorAt(start, "the input ends inside a string")
		}
		return s.errorAt(start, `invalid \u escape in a string`)
	case placeNumber:
		return s.syntaxErr("invalid number")
	case placeLiteral:
		start := off - int64(st.matched)
		if !s.ensure(len(st.lit) - st.matched) {
			if s.err != nil {
				return s.err
			}
			return s.errorAt(start, "the input ends inside a literal")
		}
		return s.errorAt(start, "invalid literal (expected "+st.lit+")")
	case placeValue:
		return s.syntaxErr("unexpected %s where a value should start", quoteByte(c))
	case placeKeyOrEnd, placeKey:
		return s.syntaxErr("expected %s, found %s", quoteByte('"'), quoteByte(c))
	case placeColon:
		return s.syntaxErr("expected %s, found %s", quoteByte(':'), quoteByte(c))
	case placeAfterObj:
		return s.syntaxErr("expected , or }, found %s", quoteByte(c))
	case placeAfterArr:
		return s.syntaxErr("expected , or ], found %s", quoteByte(c))
	}
	return s.syntaxErr("%s", syntaxMsg(err))
}

// endError is skipValue's failure at the end of the input, from the state
// reached there.
func (s *scanner) endError(st jsonfast.Scanner) error {
	off := s.offset()
	cs := classify(st)
	switch cs.place {
	case placeString:
		return s.errorAt(off, "the input ends inside a string")
	case placeEscape:
		return s.errorAt(off-1, "the input ends inside a string")
	case placeHex:
		return s.errorAt(off-2-int64(cs.digits), "the input ends inside a string")
	case placeNumber:
		return s.errorAt(off, "invalid number")
	case placeLiteral:
		return s.errorAt(off-int64(cs.matched), "the input ends inside a literal")
	case placeKey, placeColon:
		return s.failure("an object")
	}
	return s.failure("a value")
}

// syntaxMsg is the text of a validator error without its offset, for the
// states classify cannot name (none are known).
func syntaxMsg(err error) string {
	var se *jsonfast.SyntaxError
	if errors.As(err, &se) {
		return se.Msg
	}
	return err.Error()
}
