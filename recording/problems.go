package recording

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// problemsPerKind is how many problems of one kind are listed; the rest are
// counted in one closing line, so a file with a million bad lines still
// gives a short report.
const problemsPerKind = 5

// problemLog collects an input's problems in the order they are met.
type problemLog struct {
	list   []Problem
	counts map[string]int
}

// add records one problem of a kind. Problem.Line already locates it, so a
// message that starts by naming the same line ("line 7: …") loses that prefix: readers show the
// line once, from Line.
func (p *problemLog) add(kind string, line int64, msg string) {
	if line > 0 {
		msg = strings.TrimPrefix(msg, "line "+strconv.FormatInt(line, 10)+": ")
	}
	if p.counts == nil {
		p.counts = map[string]int{}
	}
	p.counts[kind]++
	if p.counts[kind] <= problemsPerKind {
		p.list = append(p.list, Problem{Line: line, Message: msg})
	}
}

// finish returns the problems, followed by one line per kind that had more
// than could be listed (kinds in name order, for stable output).
func (p *problemLog) finish() []Problem {
	out := append([]Problem{}, p.list...)
	kinds := make([]string, 0, len(p.counts))
	for k, n := range p.counts {
		if n > problemsPerKind {
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		out = append(out, Problem{Message: fmt.Sprintf("%d more %s problems not listed", p.counts[k]-problemsPerKind, k)})
	}
	return out
}

// snippetBytes is how much of a bad line a problem quotes.
const snippetBytes = 80

// snippet quotes the start of b safely for a terminal: at most
// snippetBytes bytes, cut on a character boundary, with control
// characters and invalid UTF-8 escaped, and the full length when cut.
func snippet(b []byte) string {
	cut := b
	if len(cut) > snippetBytes {
		cut = wholeRunes(cut[:snippetBytes])
	}
	q := strconv.Quote(string(cut))
	if len(cut) < len(b) {
		return fmt.Sprintf("%s… (%d bytes)", q, len(b))
	}
	return q
}

// wholeRunes is b without a multi-byte character its end cuts in two.
func wholeRunes(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// quoteName quotes a value read from an input (a type, a runId, a format
// string) for a message, shortened if long.
func quoteName(s string) string {
	if len(s) > snippetBytes {
		return snippet([]byte(s))
	}
	return strconv.Quote(s)
}

// safePath renders a file name for a message. Names come from directory
// walks of inputs fpcheck did not write (an unpacked bug report, a
// stranger's archive), so one can carry escape sequences, carriage returns
// or bidirectional overrides; such a name is shown Go-quoted, with every
// unsafe character escaped. An ordinary name, including one with spaces,
// non-ASCII letters or Windows backslashes, is shown as is.
func safePath(p string) string {
	if !utf8.ValidString(p) {
		return strconv.Quote(p)
	}
	for _, r := range p {
		if !unicode.IsPrint(r) {
			return strconv.Quote(p)
		}
	}
	return p
}
