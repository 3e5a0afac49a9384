package recording

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
)

// lineReader splits a stream into lines with bufio.Reader.ReadSlice, which
// returns lines that fit the buffer without copying; longer lines are
// assembled, up to the MaxLineBytes limit.
type lineReader struct {
	br   *bufio.Reader
	long []byte
	max  int64
	// pending is the length, newline included, of the next line when
	// buffered found it whole in br's buffer; 0 when not known.
	pending int
}

// buffered reports whether the next line is already whole in br's
// buffer, so that reading it cannot block. It remembers where the line
// ends, so that next does not look for its newline again.
func (lr *lineReader) buffered() bool {
	if lr.pending > 0 {
		return true
	}
	n := lr.br.Buffered()
	if n == 0 {
		return false
	}
	buf, _ := lr.br.Peek(n)
	i := bytes.IndexByte(buf, '\n')
	if i < 0 {
		return false
	}
	lr.pending = i + 1
	return true
}

// errLineTooLong reports a line over MaxLineBytes.
type errLineTooLong struct{ limit int64 }

func (e *errLineTooLong) Error() string {
	return fmt.Sprintf("the line is longer than %s (limit set by --max-line-bytes)", humanBytes(e.limit))
}

// next returns the next line including its '\n' (nl true), or a last line
// without one (nl false), or io.EOF. The slice is valid until the next call.
func (lr *lineReader) next() (line []byte, nl bool, err error) {
	if n := lr.pending; n > 0 {
		lr.pending = 0
		// Peek and Discard within the buffered bytes neither read nor
		// move them.
		line, _ = lr.br.Peek(n)
		lr.br.Discard(n)
		if int64(n-1) > lr.max {
			return nil, false, &errLineTooLong{lr.max}
		}
		return line, true, nil
	}
	if cap(lr.long) > 4<<20 {
		lr.long = nil // do not keep a huge buffer after one huge line
	}
	frag, err := lr.br.ReadSlice('\n')
	switch err {
	case nil:
		if int64(len(frag)-1) > lr.max {
			return nil, false, &errLineTooLong{lr.max}
		}
		return frag, true, nil
	case io.EOF:
		if len(frag) == 0 {
			return nil, false, io.EOF
		}
		if int64(len(frag)) > lr.max {
			return nil, false, &errLineTooLong{lr.max}
		}
		return frag, false, nil
	case bufio.ErrBufferFull:
	default:
		return nil, false, err
	}
	if int64(len(frag)) > lr.max {
		return nil, false, &errLineTooLong{lr.max}
	}
	lr.long = append(lr.long[:0], frag...)
	for {
		frag, err = lr.br.ReadSlice('\n')
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return nil, false, err
		}
		// The line is refused before its buffer grows past the longest
		// line accepted, max bytes and a newline.
		if int64(len(lr.long)+len(frag)-1) > lr.max {
			return nil, false, &errLineTooLong{lr.max}
		}
		lr.long = append(growCapped(lr.long, len(frag), lr.max+1), frag...)
		switch err {
		case nil:
			return lr.long, true, nil
		case io.EOF:
			if int64(len(lr.long)) > lr.max {
				return nil, false, &errLineTooLong{lr.max}
			}
			return lr.long, false, nil
		}
	}
}

// growCapped returns b with room for n more bytes, never growing it past
// most bytes unless n needs more (most <= 0: no bound). A full buffer
// doubles: append alone grows a large slice by a quarter at a time, which
// copied a line of tens of megabytes a dozen times over, each copy holding
// up the garbage collector, which cannot stop a goroutine mid-copy. most
// is the longest value accepted, and the buffer doubles along its halves
// (most/4, most/2, most), so that while it grows to most the old buffer
// beside it is half of that: doubling past the limit held three times the
// limit for a value then refused unread, and doubling up to just under it
// and then to it, twice the limit.
func growCapped(b []byte, n int, most int64) []byte {
	need := len(b) + n
	if need <= cap(b) {
		return b
	}
	c := int64(max(need, 2*cap(b)))
	if most > 0 {
		if c >= most {
			c = max(most, int64(need))
		} else {
			step := most
			for step/2 >= c {
				step /= 2
			}
			c = step
		}
	}
	grown := make([]byte, len(b), c)
	copy(grown, b)
	return grown
}

// readNDJSON reads an event stream line by line. rotated marks the older
// file of a rotated pair: its line numbers are its own, and its messages
// name it.
func (l *loader) readNDJSON(src *source, rotated bool) error {
	w := where{index: -1}
	if rotated {
		w.rotated = src.name
	}
	if src.bom {
		l.probs.add("byte-order mark", 1, filePrefix(w.rotated)+"a UTF-8 byte-order mark at the start was skipped")
	}
	// An event stream is a tail by nature: it has events to read, even if
	// none of its lines decodes.
	l.stats.HasEvents = true
	l.split.filter = l.opts.PayloadFilter
	l.split.release = l.opts.Release
	l.split.fold = l.opts.Fold
	l.split.startLate = l.opts.StartLate
	l.split.lateBytes = cmp.Or(l.opts.LateFoldBytes, DefaultLateFoldBytes)
	l.split.lateInFlight = cmp.Or(l.opts.LateInFlight, DefaultLateInFlight)
	l.split.aliased = l.split.filter != nil || l.split.fold != nil
	l.dec.alias = l.split.aliased
	lr := &lineReader{br: src.br, max: l.opts.MaxLineBytes}
	if l.opts.Workers > 1 {
		return l.readNDJSONParallel(src, lr, w, 0)
	}
	var lineNo int64
	var res lineResult
	for {
		if l.opts.Spare != nil && lineNo > 0 && lineNo%int64(l.opts.spareLines) == 0 {
			if n := l.opts.Spare(); n > 0 {
				// The cores are the input's from now on, for a rotated
				// stream's second file too.
				l.opts.Workers += n
				return l.readNDJSONParallel(src, lr, w, lineNo)
			}
		}
		line, nl, err := lr.next()
		if err == io.EOF {
			return nil
		}
		lineNo++
		if err != nil {
			return l.lineError(src, err, lineNo)
		}
		body := line
		if nl {
			body = body[:len(body)-1]
		}
		w.line = lineNo
		decodeLine(&l.dec, body, nl, w, &res)
		if err := l.applyLine(&res, w); err != nil {
			return err
		}
	}
}

// lineKind is what one line of a stream turned out to be.
type lineKind uint8

const (
	lineBlank     lineKind = iota
	lineEvent              // an event, in res.dec
	lineMalformed          // not an event; res.msg says why
	lineCutOff             // the last line, without a newline, not an event
)

// lineResult is what decoding one line found, before it is counted.
type lineResult struct {
	kind lineKind
	dec  decodedEvent
	msg  string // the problem of a malformed or cut-off line
	// runID is the run id a malformed or cut-off line still carries.
	runID string
}

// decodeLine decodes one line (without its newline; nl says whether it had
// one) found at w. It touches no loader state, so lines can be decoded on
// any goroutine, ahead of their accounting.
func decodeLine(d *eventDecoder, body []byte, nl bool, w where, r *lineResult) {
	*r = lineResult{}
	if isBlank(body) {
		return
	}
	d.decode(body, &r.dec)
	if r.dec.err == nil {
		r.kind = lineEvent
		return
	}
	r.runID = salvageRunID(body)
	if crSeparated(body) {
		// Not a killed writer: a file whose lines end in CR alone reads
		// as one long line, and saying "cut off" would send the reader
		// looking for the wrong damage.
		r.kind = lineMalformed
		r.msg = fmt.Sprintf("%s: malformed: events separated by carriage returns alone (%d CR): NDJSON lines end in a newline, so none of them is read; convert the line endings (tr '\\r' '\\n') and read the file again", w, bytes.Count(body, []byte{'\r'}))
		return
	}
	if !nl {
		r.kind = lineCutOff
		r.msg = fmt.Sprintf("%s: cut off mid-line (the writer was killed before it finished the line)", w)
		return
	}
	r.kind = lineMalformed
	switch n := bytes.Count(body, []byte{0}); {
	case n == len(body):
		// Quoting a run of NULs would only fill the report with \x00.
		r.msg = fmt.Sprintf("%s: malformed: %d NUL bytes and nothing else (a crash or a pre-allocated file can leave a run of them)", w, n)
	case n > 0:
		r.msg = fmt.Sprintf("%s: malformed: %v: %s (%d NUL bytes: a crash can leave a run of them in a file)", w, r.dec.err, snippet(body), n)
	default:
		r.msg = fmt.Sprintf("%s: malformed: %v: %s", w, r.dec.err, snippet(body))
	}
}

// crSeparated reports whether a line that is no event is events separated
// by carriage returns: what comes before its first CR is a JSON object.
func crSeparated(body []byte) bool {
	i := bytes.IndexByte(body, '\r')
	if i < 0 || i == len(bytes.TrimRight(body, "\r")) {
		return false
	}
	first := bytes.TrimSpace(body[:i])
	return len(first) > 0 && first[0] == '{' && json.Valid(first)
}

// applyLine counts one decoded line, in input order, and puts its event in
// its run.
func (l *loader) applyLine(r *lineResult, w where) error {
	l.stats.Lines++
	switch r.kind {
	case lineBlank:
		l.stats.Blank++
		return nil
	case lineCutOff:
		l.stats.TruncatedTail = true
		l.probs.add("cut off", w.line, r.msg)
		l.losses.add("cut off", w.line, r.runID)
		return nil
	case lineMalformed:
		l.stats.Malformed++
		l.probs.add("malformed", w.line, r.msg)
		l.losses.add("malformed", w.line, r.runID)
		return nil
	}
	l.account(&r.dec, w)
	ev := r.dec.ev
	ev.Line = w.line
	ev.Index = l.nextIndex
	ev.Rotated = w.rotated != ""
	l.nextIndex++
	return l.accept(ev, w)
}

// lineError is the error of a line that could not be read.
func (l *loader) lineError(src *source, err error, lineNo int64) error {
	l.stopLine = lineNo
	var tl *errLineTooLong
	if errors.As(err, &tl) {
		return &InputError{Path: src.name, Line: lineNo, Err: err}
	}
	return src.readError(err, src.out.n)
}

func filePrefix(name string) string {
	if name == "" {
		return ""
	}
	return safePath(name) + ": "
}

// isBlank reports a line of JSON whitespace only.
func isBlank(b []byte) bool {
	return jsonfast.SkipSpace(b, 0) == len(b)
}
