package report

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// jsonStream writes one indented JSON value the way encodeJSON does,
// byte for byte, but writes the long lists in it (a report's runs, the
// evidence's run results) one element at a time. Encoded whole, a report
// of many runs was held three times over (the values, their compact
// encoding, the indented copy), several times the size of the text
// written; streamed, only one element is held encoded at a time.
//
// A list stands in its enclosing value as a mark, a JSON string holding a
// nonce drawn for this stream: the enclosing value is encoded with the
// marks in it, and each mark is replaced by its list's elements as it is
// written. The nonce is unknown to whoever wrote the recording, so no
// recorded string can pass for a mark; it never reaches the output.
type jsonStream struct {
	w     *bufio.Writer
	esc   *controlEscaper
	nonce []byte // `"` + hex + `-`: how every mark of this stream starts
	lists []*jsonList
	open  bool // encode is running
	err   error
	// compact is what enc writes, a value at a time; indented[k] is the
	// indented text of the value being written at depth k of the lists,
	// kept while its lists' elements are written.
	compact  bytes.Buffer
	enc      *json.Encoder
	indented [][]byte
	depth    int
	// marks counts the marks the encoder has written: a value whose
	// encoding wrote none is written without looking for one.
	marks int
}

// jsonList is a JSON array of n elements, element i being at(i), written
// by the jsonStream that made it. Marshaled by anything else it is an
// error, never a silently wrong document.
type jsonList struct {
	s    *jsonStream
	mark string
	n    int
	at   func(i int) any
}

func (l *jsonList) MarshalJSON() ([]byte, error) {
	if l == nil || l.s == nil || !l.s.open {
		return nil, errors.New("report: a streamed list encoded outside its stream")
	}
	l.s.marks++
	return []byte(l.mark), nil
}

// maxKeptJSON is the largest buffer a stream keeps for its next value: a
// run with much evidence is encoded in megabytes, which need not be held
// while the rest of the report is written.
const maxKeptJSON = 1 << 20

func newJSONStream(w io.Writer) *jsonStream {
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		// crypto/rand does not fail on supported platforms; a fixed nonce
		// would still write correct JSON for every recording not crafted
		// against this build.
		copy(nonce[:], "fpcheck-stream-0")
	}
	esc := &controlEscaper{w: w}
	s := &jsonStream{
		w:     bufio.NewWriterSize(esc, 64<<10),
		esc:   esc,
		nonce: []byte(`"` + hex.EncodeToString(nonce[:]) + "-"),
	}
	s.enc = json.NewEncoder(&s.compact)
	s.enc.SetEscapeHTML(false)
	return s
}

// list returns the list of n elements that at gives, to be placed in the
// value the stream encodes; each element is built when it is written.
func (s *jsonStream) list(n int, at func(i int) any) *jsonList {
	l := &jsonList{s: s, mark: string(s.nonce) + strconv.Itoa(len(s.lists)) + `"`, n: n, at: at}
	s.lists = append(s.lists, l)
	return l
}

// encode writes v and a final newline, as encodeJSON does.
func (s *jsonStream) encode(v any) error {
	s.open = true
	defer func() { s.open = false }()
	s.value(v, "")
	s.write([]byte{'\n'})
	if s.err == nil {
		s.err = s.w.Flush()
	}
	if s.err == nil {
		s.err = s.esc.flush()
	}
	return s.err
}

// value writes v indented as it would stand at a line starting with
// prefix, with every mark in it replaced by its list.
func (s *jsonStream) value(v any, prefix string) {
	if s.err != nil {
		return
	}
	s.compact.Reset()
	marks := s.marks
	if err := s.enc.Encode(v); err != nil {
		s.err = err
		return
	}
	marks = s.marks - marks
	if s.depth == len(s.indented) {
		s.indented = append(s.indented, nil)
	}
	k := s.depth
	s.indented[k] = appendIndented(s.indented[k][:0], s.compact.Bytes(), prefix, "  ")
	if s.compact.Cap() > maxKeptJSON {
		s.compact = bytes.Buffer{}
	}
	s.depth++
	defer func() {
		s.depth--
		if cap(s.indented[k]) > maxKeptJSON {
			s.indented[k] = nil
		}
	}()
	b := bytes.TrimSuffix(s.indented[k], []byte{'\n'})
	for ; marks > 0; marks-- {
		at := bytes.Index(b, s.nonce)
		if at < 0 {
			s.err = errors.New("report: a streamed list's mark is missing")
			return
		}
		end := bytes.IndexByte(b[at+len(s.nonce):], '"')
		if end < 0 {
			s.err = errors.New("report: a streamed list's mark is cut short")
			return
		}
		end += at + len(s.nonce)
		id, err := strconv.Atoi(string(b[at+len(s.nonce) : end]))
		if err != nil || id < 0 || id >= len(s.lists) {
			s.err = fmt.Errorf("report: %q is no list of this stream", b[at:end+1])
			return
		}
		s.write(b[:at])
		s.array(s.lists[id], lineIndent(b, at, prefix))
		b = b[end+1:]
	}
	s.write(b)
}

// array writes l as encoding/json indents an array standing at a line
// indented by indent.
func (s *jsonStream) array(l *jsonList, indent string) {
	if l.n == 0 {
		s.write([]byte("[]"))
		return
	}
	inner := indent + "  "
	s.write([]byte("[\n"))
	for i := range l.n {
		s.write([]byte(inner))
		s.value(l.at(i), inner)
		if i+1 < l.n {
			s.write([]byte(",\n"))
		} else {
			s.write([]byte("\n"))
		}
	}
	s.write([]byte(indent))
	s.write([]byte("]"))
}

// lineIndent is the indentation of the line holding b[at]: the spaces
// after the last newline before it, or, on the value's first line, the
// prefix the value stands at. JSON strings hold no raw newline, so the
// last newline is the indented text's own.
func lineIndent(b []byte, at int, prefix string) string {
	start := bytes.LastIndexByte(b[:at], '\n')
	if start < 0 {
		return prefix
	}
	line := b[start+1 : at]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " "))])
}

func (s *jsonStream) write(p []byte) {
	if s.err == nil {
		_, s.err = s.w.Write(p)
	}
}
