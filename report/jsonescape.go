package report

import (
	"encoding/binary"
	"encoding/json"
	"io"
)

// encodeJSON writes v as indented JSON the way every machine format of the
// report does (see newJSONEncoder).
func encodeJSON(w io.Writer, v any) error {
	return newJSONStream(w).encode(v)
}

// newJSONEncoder is the encoder of every JSON the report writes: HTML
// characters as they are, and every control character escaped.
// encoding/json escapes C0 controls (and U+2028, U+2029) but writes DEL
// and the C1 controls raw; U+009B alone is a terminal's CSI, so a report
// piped to a terminal could still act on it. Those are escaped too, as
// \u007f and \u0080 to \u009f. Each Encode writes one whole value and a
// newline, so no byte is ever left held back (see controlEscaper).
func newJSONEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(&controlEscaper{w: w})
	enc.SetEscapeHTML(false)
	return enc
}

// controlEscaper escapes DEL and the C1 controls in valid UTF-8 JSON text.
// Outside strings JSON is ASCII without DEL, so every such byte sequence
// is inside a string, where the escape means the same character. A C1
// control is the two bytes C2 80–C2 9F; a C2 at the end of one write is
// held until the next.
type controlEscaper struct {
	w       io.Writer
	pending bool // a C2 byte held back
	buf     []byte
}

func (e *controlEscaper) Write(p []byte) (int, error) {
	i := 0
	if !e.pending {
		i = nextControl(p, 0)
		if i == len(p) {
			// Nothing to escape, as in nearly every write.
			if _, err := e.w.Write(p); err != nil {
				return 0, err
			}
			return len(p), nil
		}
	}
	out := append(e.buf[:0], p[:i]...)
	if e.pending && len(p) > 0 {
		e.pending = false
		if p[0] >= 0x80 && p[0] <= 0x9f {
			out = append(out, '\\', 'u', '0', '0', hexDigits[p[0]>>4], hexDigits[p[0]&0xf])
			i = 1
		} else {
			out = append(out, 0xc2)
		}
	}
	for i < len(p) {
		j := nextControl(p, i)
		out = append(out, p[i:j]...)
		if j == len(p) {
			break
		}
		switch c := p[j]; {
		case c == 0x7f:
			out = append(out, `\u007f`...)
			i = j + 1
		case j+1 == len(p): // a C2 at the end
			e.pending = true
			i = j + 1
		case p[j+1] >= 0x80 && p[j+1] <= 0x9f:
			out = append(out, '\\', 'u', '0', '0', hexDigits[p[j+1]>>4], hexDigits[p[j+1]&0xf])
			i = j + 2
		default:
			out = append(out, c)
			i = j + 1
		}
	}
	e.buf = out
	if _, err := e.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// nextControl is the index of the first DEL or C2 byte of p at or after
// i, or len(p). Eight bytes at a time, a word without a byte of 0x7F or
// more is passed over whole: adding one to each byte sets the top bit of
// those that were 0x7F, and no other byte under 0x80 carries.
func nextControl(p []byte, i int) int {
	for i < len(p) {
		if i+8 <= len(p) {
			w := binary.LittleEndian.Uint64(p[i:])
			if (w|(w+0x0101010101010101))&0x8080808080808080 == 0 {
				i += 8
				continue
			}
		}
		if c := p[i]; c == 0x7f || c == 0xc2 {
			return i
		}
		i++
	}
	return len(p)
}

func (e *controlEscaper) flush() error {
	if !e.pending {
		return nil
	}
	e.pending = false
	_, err := e.w.Write([]byte{0xc2})
	return err
}
