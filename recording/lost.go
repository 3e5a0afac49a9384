package recording

import (
	"bytes"
	"unicode/utf8"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
)

// Loss is a group of lines (or events elements) of one input that did not
// decode, by kind and by the run id still readable in them. A report charges
// a loss to the run it names, or to every run of the input when it names
// none: a green about a run that may have lost its own events is not one.
type Loss struct {
	// Kind is "malformed", "cut off", or "unread": the input could not be
	// read past a point (Lines) while the run was not yet read whole.
	Kind string `json:"kind"`
	// RunID is the run id the lost lines still carry; empty when none
	// could be read, or when the lines disagree about it.
	RunID string `json:"runId"`
	// Count is how many lines of this kind and run id were lost; for
	// "unread", how many times reading stopped (once).
	Count int64 `json:"count"`
	// Lines are the first lostLinesListed positions (input lines; for a
	// document, the line its element starts on).
	Lines []int64 `json:"lines"`
}

const (
	// lostLinesListed is how many positions a Loss keeps; the rest are
	// counted.
	lostLinesListed = 5
	// lostRunIDs bounds how many run ids losses are kept apart for. A
	// crafted input can put a fresh run id on every bad line; past the
	// bound, losses are charged to no run in particular, which damages
	// every run of the input rather than none.
	lostRunIDs = 256
	// runIDBytes bounds the run id read from a line that did not decode.
	runIDBytes = 256
)

// lossLog collects an input's losses in the order they are met.
type lossLog struct {
	list  []Loss
	index map[[2]string]int
	ids   map[string]bool
}

// add records one lost line of a kind; id is the run id salvaged from it.
func (g *lossLog) add(kind string, line int64, id string) {
	if g.index == nil {
		g.index, g.ids = map[[2]string]int{}, map[string]bool{}
	}
	if id != "" && !g.ids[id] {
		if len(g.ids) >= lostRunIDs {
			id = ""
		} else {
			g.ids[id] = true
		}
	}
	key := [2]string{kind, id}
	i, ok := g.index[key]
	if !ok {
		i = len(g.list)
		g.index[key] = i
		g.list = append(g.list, Loss{Kind: kind, RunID: id})
	}
	l := &g.list[i]
	l.Count++
	if line > 0 && len(l.Lines) < lostLinesListed {
		l.Lines = append(l.Lines, line)
	}
}

func (g *lossLog) finish() []Loss {
	if len(g.list) == 0 {
		return nil
	}
	return append([]Loss(nil), g.list...)
}

var runIDKey = []byte(`"runId"`)

// salvageRunID reads the run id a line that did not decode still carries:
// the line's own meta.runId, read where an event holds it (the runId
// member of the meta member of the object the line opens, reached through
// whole members only), a plain string value, and every other "runId" key
// of the line naming the same id. Anything less certain (the line damaged
// before its meta.runId, a key spelled with an escape or in another case,
// an escape in the value, a value cut off, two different ids) reads as no
// run id, which charges the loss to every run of the input: a crafted line
// cannot steer its loss away from the run it damaged, by a "runId" in its
// payload or anywhere else.
func salvageRunID(body []byte) string {
	id := lineMetaRunID(body)
	if id == "" {
		return ""
	}
	for rest := body; ; {
		i := bytes.Index(rest, runIDKey)
		if i < 0 {
			return id
		}
		rest = rest[i+len(runIDKey):]
		v := bytes.TrimLeft(rest, " \t\r\n")
		if len(v) == 0 || v[0] != ':' {
			continue
		}
		if s, ok := plainString(bytes.TrimLeft(v[1:], " \t\r\n")); !ok || s != id {
			return ""
		}
	}
}

// lineMetaRunID is the meta.runId of the event a line opens, as far as the line
// is whole up to it; "" when it cannot be read for certain.
func lineMetaRunID(b []byte) string {
	i := jsonfast.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return ""
	}
	m := memberValue(b, i+1, "meta")
	if m < 0 || b[m] != '{' {
		return ""
	}
	r := memberValue(b, m+1, "runId")
	if r < 0 {
		return ""
	}
	id, _ := plainString(b[r:])
	return id
}

// memberValue walks the members of the object whose '{' is just before
// b[i] to the member named key and returns where its value starts. It
// returns -1 when the object ends or is damaged first, or when a key the
// decoder could read as key (one with an escape, or in another case) comes
// first.
func memberValue(b []byte, i int, key string) int {
	for {
		i = jsonfast.SkipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		n := bytes.IndexByte(b[i+1:], '"')
		if n < 0 {
			return -1
		}
		k := b[i+1 : i+1+n]
		i = jsonfast.SkipSpace(b, i+2+n)
		if i >= len(b) || b[i] != ':' || bytes.IndexByte(k, '\\') >= 0 {
			return -1
		}
		i = jsonfast.SkipSpace(b, i+1)
		if string(k) == key {
			if i >= len(b) {
				return -1
			}
			return i
		}
		if bytes.EqualFold(k, []byte(key)) {
			return -1
		}
		end, err := jsonfast.SkipValue(b, i)
		if err != nil {
			return -1
		}
		i = jsonfast.SkipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			return -1
		}
		i++
	}
}

// plainString reads the string value v starts with when it is plain: no
// escape, valid UTF-8, no control character, at most runIDBytes bytes, not
// empty, and closed.
func plainString(v []byte) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	end := bytes.IndexByte(v[1:], '"')
	if end < 0 || end > runIDBytes {
		return "", false
	}
	s := v[1 : 1+end]
	if len(s) == 0 || bytes.IndexByte(s, '\\') >= 0 || !utf8.Valid(s) {
		return "", false
	}
	for _, c := range s {
		if c < 0x20 {
			return "", false
		}
	}
	return string(s), true
}
