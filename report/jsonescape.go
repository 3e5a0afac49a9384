package report

import (
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
	out := e.buf[:0]
	i := 0
	if e.pending && len(p) > 0 {
		e.pending = false
		if p[0] >= 0x80 && p[0] <= 0x9f {
			out = append(out, '\\', 'u', '0', '0', hexDigits[p[0]>>4], hexDigits[p[0]&0xf])
			i = 1
		} else {
			out = append(out, 0xc2)
		}
	}
	for ; i < len(p); i++ {
		switch c := p[i]; {
		case c == 0x7f:
			out = append(out, `\u007f`...)
		case c == 0xc2 && i+1 == len(p):
			e.pending = true
		case c == 0xc2 && p[i+1] >= 0x80 && p[i+1] <= 0x9f:
			out = append(out, '\\', 'u', '0', '0', hexDigits[p[i+1]>>4], hexDigits[p[i+1]&0xf])
			i++
		default:
			out = append(out, c)
		}
	}
	e.buf = out
	if _, err := e.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (e *controlEscaper) flush() error {
	if !e.pending {
		return nil
	}
	e.pending = false
	_, err := e.w.Write([]byte{0xc2})
	return err
}
