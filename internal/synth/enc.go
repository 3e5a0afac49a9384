package synth

import (
	"encoding/binary"
	"io"
	"strconv"
)

// flushAt is the buffered size at which the encoder hands bytes to the
// underlying writer; large enough to amortise writes, small enough to keep
// memory flat.
const flushAt = 64 << 10

// enc is a streaming JSON writer that reproduces JavaScript's JSON.stringify
// byte for byte: compact, or with a two-space indent (JSON.stringify(v, null,
// 2)). encoding/json is not used because it escapes <, > and & and cannot
// leave containers open across calls, which deep streaming needs.
type enc struct {
	out    io.Writer
	buf    []byte
	n      int64
	err    error
	pretty bool
	// stack holds the open containers, innermost last.
	stack    []frame
	afterKey bool
}

func newEnc(w io.Writer, pretty bool) *enc {
	return &enc{out: w, buf: make([]byte, 0, flushAt+4096), pretty: pretty}
}

// flush writes the buffer out; the first write error sticks and silences
// every later write.
func (e *enc) flush() {
	if len(e.buf) == 0 {
		return
	}
	if e.err == nil {
		var m int
		m, e.err = e.out.Write(e.buf)
		e.n += int64(m)
	}
	e.buf = e.buf[:0]
}

func (e *enc) maybeFlush() {
	if len(e.buf) >= flushAt {
		e.flush()
	}
}

// raw appends bytes outside the JSON structure (NDJSON newlines).
func (e *enc) raw(s string) {
	e.buf = append(e.buf, s...)
	e.maybeFlush()
}

// frame is one open container: its closing byte and whether it is still
// empty.
type frame struct {
	close byte
	empty bool
}

func (e *enc) depth() int { return len(e.stack) }

// closeTo closes containers until depth d remains open; deep chains (the
// execution tree) are left open while they grow and closed here at once.
func (e *enc) closeTo(d int) {
	for len(e.stack) > d {
		e.close()
	}
}

var spaces = []byte("                                                                                                                                ")

func (e *enc) newline(depth int) {
	e.buf = append(e.buf, '\n')
	for n := 2 * depth; n > 0; {
		k := min(n, len(spaces))
		e.buf = append(e.buf, spaces[:k]...)
		n -= k
		if len(e.buf) >= flushAt {
			e.flush()
		}
	}
}

// sep writes what precedes a value or key: nothing after a key, a comma
// between elements, and in pretty mode the line break and indent.
func (e *enc) sep() {
	if e.afterKey {
		e.afterKey = false
		return
	}
	d := len(e.stack)
	if d == 0 {
		return
	}
	if e.stack[d-1].empty {
		e.stack[d-1].empty = false
	} else {
		e.buf = append(e.buf, ',')
	}
	if e.pretty {
		e.newline(d)
	}
}

func (e *enc) key(k string) {
	e.sep()
	e.buf = appendJSString(e.buf, k)
	if e.pretty {
		e.buf = append(e.buf, ':', ' ')
	} else {
		e.buf = append(e.buf, ':')
	}
	e.afterKey = true
}

func (e *enc) open(c, closer byte) {
	e.sep()
	e.buf = append(e.buf, c)
	e.stack = append(e.stack, frame{close: closer, empty: true})
}

func (e *enc) obj() { e.open('{', '}') }
func (e *enc) arr() { e.open('[', ']') }

// close ends the innermost open container, whichever kind it is.
func (e *enc) close() {
	d := len(e.stack)
	f := e.stack[d-1]
	e.stack = e.stack[:d-1]
	if e.pretty && !f.empty {
		e.newline(d - 1)
	}
	e.buf = append(e.buf, f.close)
	e.maybeFlush()
}

// end and endArr close an object and an array; both are close, named for
// reading.
func (e *enc) end()    { e.close() }
func (e *enc) endArr() { e.close() }

func (e *enc) str(s string) {
	e.sep()
	e.buf = appendJSString(e.buf, s)
	e.maybeFlush()
}

func (e *enc) int(i int64) {
	e.sep()
	e.buf = strconv.AppendInt(e.buf, i, 10)
}

func (e *enc) bool(b bool) {
	e.sep()
	e.buf = strconv.AppendBool(e.buf, b)
}

func (e *enc) null() {
	e.sep()
	e.buf = append(e.buf, "null"...)
}

// Shorthands for "key": value members.
func (e *enc) kstr(k, v string) { e.key(k); e.str(v) }
func (e *enc) kint(k string, v int64) {
	e.key(k)
	e.int(v)
}
func (e *enc) kbool(k string, v bool) { e.key(k); e.bool(v) }
func (e *enc) kobj(k string)          { e.key(k); e.obj() }
func (e *enc) karr(k string)          { e.key(k); e.arr() }

// kempty writes "k": {} or "k": [].
func (e *enc) kemptyObj(k string) { e.key(k); e.obj(); e.end() }
func (e *enc) kemptyArr(k string) { e.key(k); e.arr(); e.endArr() }

// kstrs writes "k": ["a", "b"].
func (e *enc) kstrs(k string, vs ...string) {
	e.karr(k)
	for _, v := range vs {
		e.str(v)
	}
	e.endArr()
}

const (
	lo7 = 0x0101010101010101
	hi7 = 0x8080808080808080
)

// needsEscape8 reports whether any of the eight bytes in w is a control
// character, '"' or '\\' (the SWAR "has less than" and "has byte" tests;
// bytes >= 0x80 never match).
func needsEscape8(w uint64) bool {
	ctl := (w - lo7*0x20) & ^w & hi7
	q := w ^ (lo7 * '"')
	quote := (q - lo7) & ^q & hi7
	bs := w ^ (lo7 * '\\')
	back := (bs - lo7) & ^bs & hi7
	return ctl|quote|back != 0
}

const hexDigits = "0123456789abcdef"

// appendJSString quotes s the way JSON.stringify does: only ", \ and
// control characters are escaped (short forms where JSON has them, else
// \u00xx in lowercase hex); everything else, U+2028 included, is kept raw.
func appendJSString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		// skip eight clean bytes at a time: tool results are long and
		// almost never need escaping
		for i+8 <= len(s) && !needsEscape8(binary.LittleEndian.Uint64([]byte(s[i:i+8]))) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
