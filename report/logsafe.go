package report

import (
	"bytes"
	"io"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A report is often printed into a CI log, and a CI runner reads its log
// for commands: GitHub Actions takes a line whose first non-blank
// characters are "::" for a workflow command (::error, ::add-mask,
// ::stop-commands …), and its older parser takes "##[" anywhere in a line
// for one (##[error], ##[stop-commands] …). Recording text reaches a report
// in run ids, tool names, arguments, messages and file names, so a crafted
// recording could raise annotations of its own or stop the runner reading
// fpcheck's. Field by field escaping cannot see where wrapping starts a
// line, so the whole output passes through a guard instead, which writes
// the one character that would complete either sequence in a form the
// format reads back as the same character: an escape in JSON, a character
// reference in XML and HTML, a backslash escape in Markdown, and the
// \xNN spelling Sanitize uses in plain text.

// logEscapes are the two replacements of one format: for a '[' after
// "##", and for the second ':' of a line that starts (after blanks) "::".
type logEscapes struct {
	bracket, colon string
	// lineStart is false where the format's own lines are workflow
	// commands (github); its renderer keeps recording text off their
	// starts, and only the "##[" rule applies.
	lineStart bool
}

var (
	plainEscapes    = logEscapes{bracket: `\x5b`, colon: `\x3a`, lineStart: true}
	jsonEscapes     = logEscapes{bracket: `\u005b`, colon: `\u003a`, lineStart: true}
	markupEscapes   = logEscapes{bracket: "&#91;", colon: "&#58;", lineStart: true}
	markdownEscapes = logEscapes{bracket: `\[`, colon: `\:`, lineStart: true}
	githubEscapes   = logEscapes{bracket: `\x5b`, lineStart: false}
)

func escapesOf(format string) logEscapes {
	switch format {
	case FormatJSON, FormatJSONL, FormatSARIF:
		return jsonEscapes
	case FormatJUnit, FormatHTML:
		return markupEscapes
	case FormatMarkdown:
		return markdownEscapes
	case FormatGitHub:
		return githubEscapes
	}
	return plainEscapes
}

// LogSafe returns w guarded for a report in format (a name of Formats;
// any other name, such as "text" for standard error, is guarded as plain
// text). The guard keeps no bytes back: it needs no flush, and writes in
// the order it is given them. It is safe for concurrent use.
func LogSafe(w io.Writer, format string) io.Writer {
	return &logGuard{w: w, esc: escapesOf(format)}
}

// Line-start states of a logGuard.
const (
	leadBlank = iota // only blanks so far on this line
	leadColon        // the line's first non-blank character was ':'
	leadPast         // past the line's start
)

type logGuard struct {
	mu  sync.Mutex
	w   io.Writer
	esc logEscapes
	// lead is the line-start state; part holds the bytes of a character
	// begun at the end of the last write, while the line is still blank,
	// to tell a blank (U+00A0, U+3000 …) from the first character.
	lead  int
	part  [utf8.UTFMax]byte
	nPart int
	// hashes counts the '#' just written, up to two.
	hashes int
}

func (g *logGuard) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gw := guardWrite{w: g.w, p: p}
	// next is where the next "##[" of p starts at or after i (len(p) for
	// none), searched for once across lines rather than line by line.
	next := -1
	i := 0
	for i < len(p) && gw.err == nil {
		if g.lead == leadBlank && g.nPart == 0 && g.hashes == 0 {
			// Indentation, the bulk of an indented report's line starts.
			for i < len(p) && (p[i] == ' ' || p[i] == '\t') {
				i++
			}
			if i == len(p) {
				break
			}
		}
		if g.lead != leadPast || g.hashes > 0 {
			i = g.step(&gw, i)
			continue
		}
		// Past the line's start and after no '#': only a newline or a
		// "##[" before it matters.
		end := bytes.IndexByte(p[i:], '\n')
		if end < 0 {
			end = len(p)
		} else {
			end += i
		}
		for {
			if next < i {
				next = len(p)
				if k := bytes.Index(p[i:], []byte("##[")); k >= 0 {
					next = i + k
				}
			}
			if next >= end {
				break
			}
			gw.replace(next+2, g.esc.bracket)
			i = next + 3
		}
		if end == len(p) {
			g.hashes = trailingHashes(p[i:end])
			i = end
			break
		}
		i = end + 1
		g.lead, g.hashes = leadBlank, 0
	}
	gw.rest()
	if gw.err != nil {
		return gw.done, gw.err
	}
	return len(p), nil
}

// step takes the one byte at p[i] through the states and returns the
// index of the next.
func (g *logGuard) step(gw *guardWrite, i int) int {
	c := gw.p[i]
	switch {
	case c == '\n':
		g.lead, g.hashes, g.nPart = leadBlank, 0, 0
		return i + 1
	case c == '[' && g.hashes == 2:
		gw.replace(i, g.esc.bracket)
		g.hashes, g.lead = 0, leadPast
		return i + 1
	case c == '#':
		g.hashes = min(g.hashes+1, 2)
	default:
		g.hashes = 0
	}
	switch g.lead {
	case leadBlank:
		g.blank(c)
	case leadColon:
		if c == ':' && g.esc.lineStart {
			gw.replace(i, g.esc.colon)
		}
		g.lead = leadPast
	}
	return i + 1
}

// blank moves the line-start state on by one byte of a line blank so far.
func (g *logGuard) blank(c byte) {
	if g.nPart == 0 && c < utf8.RuneSelf {
		switch c {
		case ' ', '\t', '\v', '\f', '\r':
		case ':':
			g.lead = leadColon
		default:
			g.lead = leadPast
		}
		return
	}
	g.part[g.nPart] = c
	g.nPart++
	if !utf8.FullRune(g.part[:g.nPart]) {
		return
	}
	r, _ := utf8.DecodeRune(g.part[:g.nPart])
	g.nPart = 0
	// A runner trims every Unicode blank before it looks for "::".
	if r == utf8.RuneError || !unicode.IsSpace(r) {
		g.lead = leadPast
	}
}

// trailingHashes is how many '#' end b, at most two. The fast path that
// asks starts after no '#', so none before b counts.
func trailingHashes(b []byte) int {
	n := 0
	for n < len(b) && n < 2 && b[len(b)-1-n] == '#' {
		n++
	}
	return n
}

// guardWrite writes p to w, with single bytes replaced, in order.
type guardWrite struct {
	w     io.Writer
	p     []byte
	start int // p[start:] is not written yet
	done  int // bytes of p accounted for as written
	err   error
}

// replace writes what precedes p[at], then s in place of p[at].
func (gw *guardWrite) replace(at int, s string) {
	if gw.err != nil {
		return
	}
	if _, gw.err = gw.w.Write(gw.p[gw.start:at]); gw.err != nil {
		return
	}
	gw.done = at
	if _, gw.err = io.WriteString(gw.w, s); gw.err != nil {
		return
	}
	gw.start, gw.done = at+1, at+1
}

// rest writes what is left of p.
func (gw *guardWrite) rest() {
	if gw.err != nil || gw.start == len(gw.p) {
		return
	}
	if _, gw.err = gw.w.Write(gw.p[gw.start:]); gw.err == nil {
		gw.done = len(gw.p)
	}
}
