package report

import (
	"unicode/utf8"
)

// Segment is one piece of a folded text: text as written, text a needle
// matched, or a run of characters folded away (Text empty, Folded > 0).
type Segment struct {
	Text   string
	Match  bool
	Folded int
}

// Fold cuts a long text down to the parts around its matches, keeping
// context characters on each side of each, and stands the rest in by how
// many characters were folded. A text of at most 3*context characters is
// kept whole; a long text with no match keeps its first 2*context.
func Fold(text string, matches []Match, context int) []Segment {
	n := utf8.RuneCountInString(text)
	if n <= 3*context {
		return split(text, matches, 0, len(text))
	}
	if len(matches) == 0 {
		cut := byteAtRune(text, 2*context)
		return []Segment{{Text: text[:cut]}, {Folded: utf8.RuneCountInString(text[cut:])}}
	}
	// Windows of context around each match, merged where they touch.
	type window struct{ from, to int }
	var ws []window
	for _, m := range matches {
		from := backRunes(text, m.Start, context)
		to := forwardRunes(text, m.End, context)
		if len(ws) > 0 && from <= ws[len(ws)-1].to {
			ws[len(ws)-1].to = max(ws[len(ws)-1].to, to)
			continue
		}
		ws = append(ws, window{from, to})
	}
	var out []Segment
	at := 0
	for _, w := range ws {
		if w.from > at {
			out = append(out, Segment{Folded: utf8.RuneCountInString(text[at:w.from])})
		}
		out = append(out, split(text, matches, w.from, w.to)...)
		at = w.to
	}
	if at < len(text) {
		out = append(out, Segment{Folded: utf8.RuneCountInString(text[at:])})
	}
	return out
}

// split is text[from:to] cut at the matches inside it.
func split(text string, matches []Match, from, to int) []Segment {
	var out []Segment
	at := from
	for _, m := range matches {
		if m.Start < at || m.End > to {
			continue
		}
		if m.Start > at {
			out = append(out, Segment{Text: text[at:m.Start]})
		}
		out = append(out, matchSegments(text[m.Start:m.End])...)
		at = m.End
	}
	if at < to {
		out = append(out, Segment{Text: text[at:to]})
	}
	return out
}

// matchSegments is one match, marked. A match longer than a witness value
// is shown (maxShown) is marked at both ends and its middle folded: a value
// is as long as a recording makes it.
func matchSegments(s string) []Segment {
	if utf8.RuneCountInString(s) <= maxShown {
		return []Segment{{Text: s, Match: true}}
	}
	head, tail := byteAtRune(s, maxShown/2), backRunes(s, len(s), maxShown/2)
	return []Segment{{Text: s[:head], Match: true}, {Folded: utf8.RuneCountInString(s[head:tail])}, {Text: s[tail:], Match: true}}
}

func byteAtRune(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// backRunes is the offset n runes before at (or 0).
func backRunes(s string, at, n int) int {
	for at > 0 && n > 0 {
		_, size := utf8.DecodeLastRuneInString(s[:at])
		at -= size
		n--
	}
	return at
}

// forwardRunes is the offset n runes after at (or the end).
func forwardRunes(s string, at, n int) int {
	for at < len(s) && n > 0 {
		_, size := utf8.DecodeRuneInString(s[at:])
		at += size
		n--
	}
	return at
}
