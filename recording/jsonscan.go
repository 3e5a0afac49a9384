package recording

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
)

// scanner is a small streaming JSON tokenizer. encoding/json's Decoder
// buffers a whole value before decoding it, which for a recording means the
// whole engine snapshot (tens of megabytes, nested thousands of levels
// deep); scanner instead walks a document key by key, skips values it does
// not need without keeping them, validates what it skips, and counts lines
// and depth as it goes. Values the loader does need (one event, one small
// object) are captured as bytes and handed to the codec.
type scanner struct {
	r    io.Reader
	buf  []byte
	pos  int
	end  int
	base int64 // stream offset of buf[0]
	eof  bool
	err  error // sticky read error other than io.EOF

	lines    int64 // newlines consumed so far
	depth    int   // open containers, including those the walker entered
	maxDepth int

	capturing bool
	capStart  int
	capBuf    []byte
	capBase   int // length of capBuf before the value being captured
	capLimit  int64
	capSpare  []byte // the captures' buffer, kept between calls (keepSpare)

	js jsonfast.Scanner // skipValue's validator, kept for its depth stack
	// spec, when set, has validated parts of the input ahead of the
	// scanner (see speculator), and skip moves the input n bytes on
	// without reading them, newlines of them being newlines.
	spec *speculator
	skip func(n, newlines int64) error
	// lend, when set and spec is not, is asked every askEvery bytes
	// validated whether a speculator can start now that a core has come
	// free (see loader.lateSpec); askAt is the offset of the next
	// question.
	lend     func(at int64) *speculator
	askEvery int64
	askAt    int64
	// legacy selects the byte-at-a-time skipValue (see legacyCodec).
	legacy bool
}

// syntaxError is malformed JSON inside a document, located by byte offset
// and line.
type syntaxError struct {
	Offset int64
	Line   int64
	Msg    string
}

func (e *syntaxError) Error() string { return e.Msg }

// depthError is a document nested deeper than the scanner allows.
type depthError struct {
	Offset int64
	Line   int64
	Limit  int
}

func (e *depthError) Error() string {
	return fmt.Sprintf("nesting deeper than %d levels", e.Limit)
}

// captureError is a captured value larger than its limit.
type captureError struct {
	Limit int64
}

func (e *captureError) Error() string {
	return fmt.Sprintf("a single value is longer than the %s limit", humanBytes(e.Limit))
}

// scanBufSize is the scanner's buffer. It is twice the source's read
// buffer, so that its reads (of at least readBufSize) bypass that buffer
// and each byte is copied once.
const scanBufSize = 2 * readBufSize

func newScanner(r io.Reader, maxDepth int) *scanner {
	return &scanner{r: r, buf: make([]byte, scanBufSize), maxDepth: maxDepth, legacy: legacyCodec}
}

// newSliceScanner scans b in place, without copying it. Slice scanners
// run on decoding goroutines too, so they do not look at legacyCodec.
func newSliceScanner(b []byte, maxDepth int) *scanner {
	return &scanner{buf: b, end: len(b), eof: true, maxDepth: maxDepth}
}

// offset is the stream offset of the next unread byte.
func (s *scanner) offset() int64 { return s.base + int64(s.pos) }

// line is the 1-based line of the next unread byte.
func (s *scanner) line() int64 { return s.lines + 1 }

func (s *scanner) syntaxErr(format string, args ...any) error {
	return &syntaxError{Offset: s.offset(), Line: s.line(), Msg: fmt.Sprintf(format, args...)}
}

// ensure makes at least n unread bytes available, reading more as needed.
// It returns false when the input ends (or fails) first; s.err then holds
// a read failure.
func (s *scanner) ensure(n int) bool {
	for s.end-s.pos < n {
		if s.eof || s.err != nil {
			return false
		}
		if s.r == nil {
			s.eof = true
			return false
		}
		if s.capturing {
			if err := s.gather(); err != nil {
				s.err = err
				return false
			}
			s.capStart = 0
		}
		copy(s.buf, s.buf[s.pos:s.end])
		s.base += int64(s.pos)
		s.end -= s.pos
		s.pos = 0
		if s.end == len(s.buf) {
			// Only ensure(n) with n > len(buf) gets here; never used.
			s.buf = append(s.buf, make([]byte, len(s.buf))...)
		}
		m, err := s.r.Read(s.buf[s.end:])
		s.end += m
		if err == io.EOF {
			s.eof = true
		} else if err != nil {
			s.err = err
		}
	}
	return true
}

// failure is the error to report when the input ended early: the read
// failure if there was one, else an unexpected end of input.
func (s *scanner) failure(what string) error {
	if s.err != nil {
		return s.err
	}
	return s.syntaxErr("the input ends inside %s", what)
}

// skipSpace consumes whitespace, counting newlines, and returns the next
// byte without consuming it. ok is false at the end of the input.
func (s *scanner) skipSpace() (byte, bool) {
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			switch c {
			case '\n':
				s.lines++
			case ' ', '\t', '\r':
			default:
				return c, true
			}
			s.pos++
		}
		if !s.ensure(1) {
			return 0, false
		}
	}
}

// next consumes whitespace and returns the next byte, consuming it too.
func (s *scanner) next(what string) (byte, error) {
	c, ok := s.skipSpace()
	if !ok {
		return 0, s.failure(what)
	}
	s.pos++
	return c, nil
}

func (s *scanner) expect(want byte, what string) error {
	c, err := s.next(what)
	if err != nil {
		return err
	}
	if c != want {
		s.pos--
		return s.syntaxErr("expected %s, found %s", quoteByte(want), quoteByte(c))
	}
	return nil
}

func (s *scanner) enter() error {
	s.depth++
	if s.depth > s.maxDepth {
		return &depthError{Offset: s.offset(), Line: s.line(), Limit: s.maxDepth}
	}
	return nil
}

func (s *scanner) leave() { s.depth-- }

// readKey reads an object key (the opening quote not yet consumed) and the
// colon after it. Keys longer than max are truncated: the walker only
// compares keys with short known names.
func (s *scanner) readKey(max int) (string, error) {
	if err := s.expect('"', "an object"); err != nil {
		return "", err
	}
	k, err := s.readStringBody(max)
	if err != nil {
		return "", err
	}
	if err := s.expect(':', "an object"); err != nil {
		return "", err
	}
	return k, nil
}

// readString reads a string value, the opening quote not yet consumed.
func (s *scanner) readString(max int) (string, error) {
	if err := s.expect('"', "a value"); err != nil {
		return "", err
	}
	return s.readStringBody(max)
}

// readStringBody decodes a string whose opening quote is consumed, keeping
// at most max bytes of it.
func (s *scanner) readStringBody(max int) (string, error) {
	// The usual key or short value: whole in the buffer, nothing to
	// decode. (Raw invalid UTF-8 is kept as it is, as stringDecoder does.)
	for i := s.pos; i < s.end; i++ {
		c := s.buf[i]
		if c == '"' {
			b := s.buf[s.pos:i]
			if len(b) > max {
				b = b[:max]
			}
			s.pos = i + 1
			return string(b), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	var out []byte
	var sr stringDecoder
	sr.s = s
	var tmp [512]byte
	for {
		n, err := sr.Read(tmp[:])
		if len(out) < max {
			room := max - len(out)
			if n > room {
				n = room
			}
			out = append(out, tmp[:n]...)
		}
		if err == io.EOF {
			return string(out), nil
		}
		if err != nil {
			return "", err
		}
	}
}

// skipStringBody validates and skips a string whose opening quote is
// consumed.
func (s *scanner) skipStringBody() error {
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			switch {
			case c == '"':
				s.pos++
				return nil
			case c == '\\':
				if !s.ensure(2) {
					return s.failure("a string")
				}
				switch e := s.buf[s.pos+1]; e {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
					s.pos += 2
				case 'u':
					if !s.ensure(6) {
						return s.failure("a string")
					}
					for _, h := range s.buf[s.pos+2 : s.pos+6] {
						if !isHex(h) {
							return s.syntaxErr("invalid \\u escape in a string")
						}
					}
					s.pos += 6
				default:
					return s.syntaxErr("invalid escape %s in a string", quoteByte(e))
				}
			case c < 0x20:
				return s.syntaxErr("control character %s inside a string", quoteByte(c))
			default:
				s.pos++
			}
		}
		if !s.ensure(1) {
			return s.failure("a string")
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// skipLiteral validates and skips true, false or null; c is its first byte,
// not yet consumed.
func (s *scanner) skipLiteral(c byte) error {
	var lit string
	switch c {
	case 't':
		lit = "true"
	case 'f':
		lit = "false"
	default:
		lit = "null"
	}
	if !s.ensure(len(lit)) {
		if s.err != nil {
			return s.err
		}
		return s.syntaxErr("the input ends inside a literal")
	}
	if string(s.buf[s.pos:s.pos+len(lit)]) != lit {
		return s.syntaxErr("invalid literal (expected %s)", lit)
	}
	s.pos += len(lit)
	return nil
}

// skipNumber validates and skips a number by the JSON grammar; its first
// byte is not yet consumed.
func (s *scanner) skipNumber() error {
	// states: 0 start, 1 after '-', 2 int zero, 3 int digits, 4 after '.',
	// 5 frac digits, 6 after e, 7 after e sign, 8 exp digits
	state := 0
	for {
		if s.pos == s.end && !s.ensure(1) {
			if s.err != nil {
				return s.err
			}
			break
		}
		c := s.buf[s.pos]
		next := -1
		switch state {
		case 0:
			switch {
			case c == '-':
				next = 1
			case c == '0':
				next = 2
			case '1' <= c && c <= '9':
				next = 3
			}
		case 1:
			switch {
			case c == '0':
				next = 2
			case '1' <= c && c <= '9':
				next = 3
			}
		case 2, 3:
			switch {
			case state == 3 && '0' <= c && c <= '9':
				next = 3
			case c == '.':
				next = 4
			case c == 'e' || c == 'E':
				next = 6
			}
		case 4, 5:
			switch {
			case '0' <= c && c <= '9':
				next = 5
			case state == 5 && (c == 'e' || c == 'E'):
				next = 6
			}
		case 6:
			switch {
			case c == '+' || c == '-':
				next = 7
			case '0' <= c && c <= '9':
				next = 8
			}
		case 7, 8:
			if '0' <= c && c <= '9' {
				next = 8
			}
		}
		if next < 0 {
			break
		}
		state = next
		s.pos++
	}
	switch state {
	case 2, 3, 5, 8:
		return nil
	}
	return s.syntaxErr("invalid number")
}

// skipValue validates and skips one value. jsonfast.Scanner does the
// work on each buffered piece: it keeps one bit per open container, so a
// hostile depth ends in a depthError, never in a stack overflow, and it
// walks string bodies (nearly all of a snapshot's bytes) a word at a time.
// Line numbers stay exact by counting the newlines of what it consumed:
// JSON strings cannot hold a raw newline, so every one is whitespace.
func (s *scanner) skipValue() error {
	if s.legacy {
		return s.skipValueLegacy()
	}
	c, ok := s.skipSpace()
	if !ok {
		return s.failure("a value")
	}
	limit := s.maxDepth - s.depth
	if limit <= 0 {
		if c == '{' || c == '[' {
			s.pos++
			return &depthError{Offset: s.offset(), Line: s.line(), Limit: s.maxDepth}
		}
		limit = 1 // a scalar opens nothing
	}
	js := &s.js
	js.Reset(limit)
	for {
		p := s.buf[s.pos:s.end]
		if s.lend != nil && s.spec == nil && !s.capturing && s.offset() >= s.askAt {
			s.askAt = s.offset() + s.askEvery
			if sp := s.lend(s.offset()); sp != nil {
				s.spec, s.lend = sp, nil
			}
		}
		if sp := s.spec; sp != nil && !s.capturing {
			// Take over a chunk the speculator validated, or stop at its
			// start to try.
			if c, ok := sp.at(s.offset()); ok {
				switch d := c.start - s.offset(); {
				case d == 0:
					sp.advance() // taken over or not, this chunk is done with
					if js.Apply(&c.sum) {
						if err := s.pass(&c); err != nil {
							return err
						}
						continue
					}
				case d < int64(len(p)):
					p = p[:d]
				}
			}
		}
		before := *js
		n, done, err := js.Scan(p)
		if err != nil {
			return s.scanError(before, p, n, err)
		}
		s.lines += int64(bytes.Count(p[:n], newline))
		s.pos += n
		if done {
			return nil
		}
		if !s.ensure(1) {
			if s.err != nil {
				return s.err
			}
			before = *js
			if err := js.End(); err != nil {
				return s.endError(before)
			}
			return nil
		}
	}
}

var newline = []byte{'\n'}

// skipValueLegacy is the byte-at-a-time walker skipValue replaced; it is
// kept for the tests that hold the two to the same answers.
func (s *scanner) skipValueLegacy() error {
	// Most values nest only a few levels: start the stack in place so that
	// skipping one allocates nothing.
	var inline [32]byte
	stack := inline[:0]
	defer func() { s.depth -= len(stack) }()
	for {
		// A value starts here.
		c, ok := s.skipSpace()
		if !ok {
			return s.failure("a value")
		}
		switch {
		case c == '{' || c == '[':
			s.pos++
			stack = append(stack, c)
			s.depth++
			if s.depth > s.maxDepth {
				return &depthError{Offset: s.offset(), Line: s.line(), Limit: s.maxDepth}
			}
			close := byte('}')
			if c == '[' {
				close = ']'
			}
			d, ok := s.skipSpace()
			if !ok {
				return s.failure("a value")
			}
			if d == close {
				s.pos++
				stack = stack[:len(stack)-1]
				s.depth--
				break
			}
			if c == '{' {
				if err := s.skipKey(); err != nil {
					return err
				}
			}
			continue
		case c == '"':
			s.pos++
			if err := s.skipStringBody(); err != nil {
				return err
			}
		case c == 't' || c == 'f' || c == 'n':
			if err := s.skipLiteral(c); err != nil {
				return err
			}
		case c == '-' || '0' <= c && c <= '9':
			if err := s.skipNumber(); err != nil {
				return err
			}
		default:
			return s.syntaxErr("unexpected %s where a value should start", quoteByte(c))
		}
		// A value ended: close containers or move to the next member.
		for {
			if len(stack) == 0 {
				return nil
			}
			c, err := s.next("a value")
			if err != nil {
				return err
			}
			top := stack[len(stack)-1]
			if c == ',' {
				if top == '{' {
					if err := s.skipKey(); err != nil {
						return err
					}
				}
				break
			}
			if top == '{' && c == '}' || top == '[' && c == ']' {
				stack = stack[:len(stack)-1]
				s.depth--
				continue
			}
			s.pos--
			return s.syntaxErr("expected , or %s, found %s", closerOf(top), quoteByte(c))
		}
	}
}

// skipKey skips an object key and its colon.
func (s *scanner) skipKey() error {
	if err := s.expect('"', "an object"); err != nil {
		return err
	}
	if err := s.skipStringBody(); err != nil {
		return err
	}
	return s.expect(':', "an object")
}

func closerOf(open byte) string {
	if open == '{' {
		return "}"
	}
	return "]"
}

// captureValue skips one value and returns its bytes (a fresh slice).
// limit bounds its length; 0 means no limit.
func (s *scanner) captureValue(limit int64) ([]byte, error) {
	raw, err := s.captureTransient(limit)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(raw), nil
}

// keepSpare keeps b, a capture's buffer, for the next capture, unless it
// grew past what is worth holding between values.
func (s *scanner) keepSpare(b []byte) {
	if cap(b) <= 4<<20 {
		s.capSpare = b[:0]
	} else {
		s.capSpare = nil
	}
}

// captureTransient skips one value and returns its bytes, valid only
// until the scanner reads again: for a caller that is done with them
// before then (one that copies what it keeps), it spares the copy into
// memory of their own that captureValue adds. A value read whole is
// handed out of the scanner's buffer; one that spans reads is gathered
// in the kept capture buffer (keepSpare).
func (s *scanner) captureTransient(limit int64) ([]byte, error) {
	raw, inBuf, err := s.capture(s.capSpare[:0], limit, true)
	if err != nil {
		return nil, err
	}
	if !inBuf {
		s.keepSpare(raw)
	}
	return raw, nil
}

// appendValue skips one value and appends its bytes to dst. limit bounds
// its length; 0 means no limit.
func (s *scanner) appendValue(dst []byte, limit int64) ([]byte, error) {
	out, _, err := s.capture(dst, limit, false)
	return out, err
}

// capture is appendValue; with inPlace, a value that never left the
// scanner's buffer comes back as a slice of it (inBuf) when dst is empty.
func (s *scanner) capture(dst []byte, limit int64, inPlace bool) (out []byte, inBuf bool, err error) {
	if _, ok := s.skipSpace(); !ok {
		return dst, false, s.failure("a value")
	}
	if s.spec != nil {
		// Captured values are validated here: speculating on bytes the
		// walker has reached is wasted.
		s.spec.walker.Store(s.offset())
	}
	s.capturing = true
	s.capStart = s.pos
	s.capBuf = dst
	s.capBase = len(dst)
	s.capLimit = limit
	err = s.skipValue()
	s.capturing = false
	inBuf = inPlace && len(dst) == 0 && len(s.capBuf) == 0
	if err == nil && !inBuf {
		err = s.gather()
	}
	out = s.capBuf
	s.capBuf = nil
	if err != nil {
		return dst, false, err
	}
	if inBuf {
		out = s.buf[s.capStart:s.pos:s.pos]
		if limit > 0 && int64(len(out)) > limit {
			return dst, false, &captureError{Limit: limit}
		}
	}
	return out, inBuf, nil
}

// gather moves the captured bytes in the scanner's buffer to capBuf. A
// value over the capture's limit is refused before capBuf grows past it.
func (s *scanner) gather() error {
	chunk := s.buf[s.capStart:s.pos]
	most := int64(0)
	if s.capLimit > 0 {
		most = int64(s.capBase) + s.capLimit
		if int64(len(s.capBuf)+len(chunk)) > most {
			return &captureError{Limit: s.capLimit}
		}
	}
	s.capBuf = append(growCapped(s.capBuf, len(chunk), most), chunk...)
	return nil
}

// atEnd consumes trailing whitespace and reports whether the input ends.
func (s *scanner) atEnd() bool {
	_, ok := s.skipSpace()
	return !ok && s.err == nil
}

// stringDecoder reads the decoded content of a JSON string from a scanner
// whose opening quote is consumed, as UTF-8 bytes, and returns io.EOF after
// the closing quote. It lets the loader read a recording stored as JSON text
// inside a JSON string (an artifact) without ever holding that text whole.
type stringDecoder struct {
	s    *scanner
	done bool
	// pending holds decoded bytes that did not fit the caller's buffer.
	pending [8]byte
	np      int
}

func (d *stringDecoder) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n := 0
	for n < len(p) && d.np > 0 {
		p[n] = d.pending[0]
		copy(d.pending[:], d.pending[1:d.np])
		d.np--
		n++
	}
	s := d.s
	for n < len(p) && !d.done {
		if s.pos == s.end && !s.ensure(1) {
			return n, s.failure("a string")
		}
		c := s.buf[s.pos]
		switch {
		case c == '"':
			s.pos++
			d.done = true
		case c == '\\':
			r, err := d.escape()
			if err != nil {
				return n, err
			}
			var enc [4]byte
			m := utf8.EncodeRune(enc[:], r)
			k := copy(p[n:], enc[:m])
			n += k
			d.np = copy(d.pending[:], enc[k:m])
			if d.np > 0 {
				return n, nil
			}
		case c < 0x20:
			return n, s.syntaxErr("control character %s inside a string", quoteByte(c))
		default:
			// Copy a run of plain bytes at once.
			i := s.pos
			for i < s.end && n+(i-s.pos) < len(p) {
				b := s.buf[i]
				if b == '"' || b == '\\' || b < 0x20 {
					break
				}
				i++
			}
			n += copy(p[n:], s.buf[s.pos:i])
			s.pos = i
		}
	}
	if d.done && n == 0 && d.np == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// escape decodes one backslash escape at s.pos, joining a surrogate pair.
// A lone surrogate becomes U+FFFD, as encoding/json does.
func (d *stringDecoder) escape() (rune, error) {
	s := d.s
	if !s.ensure(2) {
		return 0, s.failure("a string")
	}
	e := s.buf[s.pos+1]
	switch e {
	case '"', '\\', '/':
		s.pos += 2
		return rune(e), nil
	case 'b':
		s.pos += 2
		return '\b', nil
	case 'f':
		s.pos += 2
		return '\f', nil
	case 'n':
		s.pos += 2
		return '\n', nil
	case 'r':
		s.pos += 2
		return '\r', nil
	case 't':
		s.pos += 2
		return '\t', nil
	case 'u':
		r, err := d.hex4()
		if err != nil {
			return 0, err
		}
		if utf16.IsSurrogate(r) {
			if r < 0xDC00 && s.ensure(6) && s.buf[s.pos] == '\\' && s.buf[s.pos+1] == 'u' {
				save := s.pos
				r2, err := d.hex4()
				if err != nil {
					return 0, err
				}
				if j := utf16.DecodeRune(r, r2); j != utf8.RuneError {
					return j, nil
				}
				s.pos = save
			}
			return utf8.RuneError, nil
		}
		return r, nil
	}
	return 0, s.syntaxErr("invalid escape %s in a string", quoteByte(e))
}

func (d *stringDecoder) hex4() (rune, error) {
	s := d.s
	if !s.ensure(6) {
		return 0, s.failure("a string")
	}
	var r rune
	for _, h := range s.buf[s.pos+2 : s.pos+6] {
		var v byte
		switch {
		case '0' <= h && h <= '9':
			v = h - '0'
		case 'a' <= h && h <= 'f':
			v = h - 'a' + 10
		case 'A' <= h && h <= 'F':
			v = h - 'A' + 10
		default:
			return 0, s.syntaxErr("invalid \\u escape in a string")
		}
		r = r<<4 | rune(v)
	}
	s.pos += 6
	return r, nil
}

// quoteByte renders a byte for an error message without letting a raw
// control or non-ASCII byte reach a terminal.
func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("'%c'", c)
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

var errNotObject = errors.New("not a JSON object")
