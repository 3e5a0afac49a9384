package recording

import (
	"bytes"
	"unicode/utf8"
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
// every "runId" key followed by a plain string value, all of them naming
// the same id. Anything less certain (no such key, an escape in the value,
// a value cut off, two different ids) reads as no run id, so a crafted line
// cannot steer its loss away from the run it damaged.
func salvageRunID(body []byte) string {
	var id string
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
		v = bytes.TrimLeft(v[1:], " \t\r\n")
		if len(v) == 0 || v[0] != '"' {
			return ""
		}
		end := bytes.IndexByte(v[1:], '"')
		if end < 0 || end > runIDBytes {
			return ""
		}
		s := v[1 : 1+end]
		if len(s) == 0 || bytes.IndexByte(s, '\\') >= 0 || !utf8.Valid(s) {
			return ""
		}
		for _, c := range s {
			if c < 0x20 {
				return ""
			}
		}
		if id != "" && id != string(s) {
			return ""
		}
		id = string(s)
	}
}
