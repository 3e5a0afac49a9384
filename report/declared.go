package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fpcheck/fpcheck/checks"
	"golang.org/x/text/unicode/norm"
)

// DeclarationsReport holds the declarations file against the recordings:
// every tool it names that no run of any input offered or called. A name
// that matches nothing disarms the checks it was meant to arm without a
// word, so it is reported like a typo in a key.
type DeclarationsReport struct {
	Source string
	// Names counts the places the file names a tool.
	Names int
	// Unseen are the names no run showed, in file order.
	Unseen []UnseenTool
	// Strict is Options.StrictDeclarations: unseen names exit 2.
	Strict bool
}

// UnseenTool is one declared tool name no run offered or called.
type UnseenTool struct {
	checks.NamedTool
	// Suggestion is the nearest tool name the recordings do carry, when one
	// is near enough to be a likely typo; empty otherwise.
	Suggestion string
}

// Sentence words one unseen name, at its place in source.
func (u UnseenTool) Sentence(source string) string {
	at := source
	if u.Line > 0 {
		at = fmt.Sprintf("%s:%d", source, u.Line)
	}
	return at + ": " + u.what()
}

// what is Sentence without the place, for a format that states the place
// apart.
func (u UnseenTool) what() string {
	s := fmt.Sprintf("%s names tool %q, which no run of any input offered or called", u.Field, u.Name)
	switch {
	case u.Suggestion == "":
	case norm.NFC.String(u.Name) == norm.NFC.String(u.Suggestion):
		// The two print alike: only the code points tell them apart.
		s += fmt.Sprintf(" (it differs from %s, which a run did show, only in Unicode normalization: %s; write it as the recording does)",
			u.Suggestion, normalizationDiff(u.Name, u.Suggestion))
	default:
		s += fmt.Sprintf(" (did you mean %s?)", u.Suggestion)
	}
	return s + "; the checks it arms never see it"
}

// normalizationDiff words where two canonically equivalent names differ,
// segment by segment, as code points: "e U+0301 here, U+00E9 in the
// recording". Each differing pair is named once.
func normalizationDiff(declared, seen string) string {
	a, b := normSegments(declared), normSegments(seen)
	if len(a) != len(b) {
		a, b = []string{declared}, []string{seen}
	}
	var parts []string
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		p := codePoints(a[i]) + " here, " + codePoints(b[i]) + " in the recording"
		if !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "; ")
}

// normSegments splits s where normalization may start afresh, so that the
// segments of two equivalent strings pair up.
func normSegments(s string) []string {
	var out []string
	for s != "" {
		n := norm.NFC.NextBoundaryInString(s, true)
		if n <= 0 {
			n = len(s)
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// codePoints spells s with every rune outside printable ASCII as U+XXXX.
func codePoints(s string) string {
	var parts []string
	for _, r := range s {
		if r > ' ' && r < 0x7f {
			parts = append(parts, string(r))
		} else {
			parts = append(parts, fmt.Sprintf("U+%04X", r))
		}
	}
	return strings.Join(parts, " ")
}

// maxNearTools bounds the near names a run keeps per declared name.
const maxNearTools = 8

// RelevantTools keeps, of the tools a run showed, those the declarations
// name and those near enough to a declared name to be suggested for it: a
// crafted recording can offer a million tool names, and a report needs only
// these.
func RelevantTools(seen []string, decl *checks.Declarations) []string {
	return NewToolFilter(decl).Relevant(seen)
}

// ToolFilter is RelevantTools for one set of declarations, read once for
// the runs it is asked about. Safe for concurrent use.
type ToolFilter struct {
	named []checks.NamedTool
	want  map[string]bool
	// nfc is each named tool in NFC: a tool equal to one but for
	// normalization is kept however far apart their bytes are.
	nfc []string
}

// NewToolFilter reads the tool names decl states.
func NewToolFilter(decl *checks.Declarations) *ToolFilter {
	f := &ToolFilter{named: decl.ToolNames(), want: map[string]bool{}}
	for _, n := range f.named {
		f.want[n.Name] = true
		f.nfc = append(f.nfc, norm.NFC.String(n.Name))
	}
	return f
}

// Relevant is RelevantTools(seen, decl) for the filter's declarations.
func (f *ToolFilter) Relevant(seen []string) []string {
	named, want := f.named, f.want
	if len(named) == 0 {
		return nil
	}
	near := map[string]int{}
	var out []string
	for _, s := range seen {
		if want[s] {
			out = append(out, s)
			continue
		}
		nfc := norm.NFC.String(s)
		for i, n := range named {
			if near[n.Name] < maxNearTools && (nfc == f.nfc[i] || nearName(n.Name, s)) {
				near[n.Name]++
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// nearName reports whether b is within the typo distance of a.
func nearName(a, b string) bool {
	_, ok := editDistance(a, b, typoDistance(a))
	return ok
}

// typoDistance is how many edits still read as a typo of name: one for a
// short name, up to a third of a long one.
func typoDistance(name string) int {
	return max(1, min(4, len([]rune(name))/3))
}

// editDistance is the Levenshtein distance of a and b when it is at most
// limit (ok), computed in a band of width 2·limit+1 so that a long name
// costs no more than a short one.
func editDistance(a, b string, limit int) (int, bool) {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return 0, false
	}
	const inf = 1 << 30
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
		if j > limit {
			prev[j] = inf
		}
	}
	for i := 1; i <= len(ra); i++ {
		for j := range cur {
			cur[j] = inf
		}
		if i <= limit {
			cur[0] = i
		}
		best := cur[0]
		for j := max(1, i-limit); j <= min(len(rb), i+limit); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j-1]+cost, prev[j]+1, cur[j-1]+1)
			best = min(best, cur[j])
		}
		if best > limit {
			return 0, false
		}
		prev, cur = cur, prev
	}
	if prev[len(rb)] > limit {
		return 0, false
	}
	return prev[len(rb)], true
}

// holdDeclarations finds the declared names no run showed, with the nearest
// name the runs do show.
func holdDeclarations(inputs []InputResult, opts Options) *DeclarationsReport {
	if opts.Declared == nil {
		return nil
	}
	dr := &DeclarationsReport{Source: opts.Declared.Source, Names: len(opts.DeclaredNames), Strict: opts.StrictDeclarations}
	// With no run read, nothing showed any tool; that absence is the
	// report's own news, not the declarations'.
	seen := map[string]bool{}
	read := 0
	for _, in := range inputs {
		for i := range in.Runs {
			rr := &in.Runs[i]
			if !rr.ToolsRead {
				continue
			}
			read++
			for _, t := range rr.Tools {
				seen[t] = true
			}
		}
	}
	// A run whose tools were not read (one from a saved report written
	// without these declarations) shows nothing either way.
	if read == 0 {
		return dr
	}
	all := make([]string, 0, len(seen))
	for t := range seen {
		all = append(all, t)
	}
	slices.Sort(all)
	for _, n := range opts.DeclaredNames {
		if seen[n.Name] {
			continue
		}
		u := UnseenTool{NamedTool: n}
		// A name equal but for normalization is the one meant, however
		// many edits apart its bytes are.
		nfc := norm.NFC.String(n.Name)
		bestD := -1
		for _, t := range all {
			if norm.NFC.String(t) == nfc {
				u.Suggestion = t
				break
			}
			if d, ok := editDistance(n.Name, t, typoDistance(n.Name)); ok && (bestD < 0 || d < bestD) {
				bestD, u.Suggestion = d, t
			}
		}
		dr.Unseen = append(dr.Unseen, u)
	}
	return dr
}

// Headline words the declarations' standing in one line.
func (dr *DeclarationsReport) Headline() string {
	switch {
	case len(dr.Unseen) > 0:
		s := fmt.Sprintf("DECLARATIONS %s — %s, %d of them in no run of any input", dr.Source, count(dr.Names, "tool name", "tool names"), len(dr.Unseen))
		if dr.Strict {
			s += " (--strict-declarations: exit 2)"
		}
		return s + ":"
	case dr.Names == 0:
		return fmt.Sprintf("DECLARATIONS %s — no tool named.", dr.Source)
	}
	return fmt.Sprintf("DECLARATIONS %s — %s, each offered or called by some run.", dr.Source, count(dr.Names, "tool name", "tool names"))
}

// textDeclarations writes the declarations block of the text report.
func textDeclarations(t *textWriter, r *Report) {
	dr := r.Declarations
	if dr == nil {
		return
	}
	// All met, the declarations are one line under the result; unseen
	// ones weaken the verdict and stand apart.
	if len(dr.Unseen) > 0 {
		t.blank()
	}
	st := styleBold
	if len(dr.Unseen) > 0 {
		st = styleUnmeasured
		if dr.Strict {
			st = styleDefects
		}
	}
	t.line(0, st, dr.Headline())
	for _, u := range dr.Unseen {
		t.line(2, stylePlain, "⚠ "+u.Sentence(dr.Source)+".")
	}
}

// armingTools are the declared tools whose appearance in a run gives an
// armed check something to judge, by check; a check not listed is armed by
// something other than a tool name.
func armingTools(decl *checks.Declarations, kind, seam string) []string {
	if decl == nil {
		return nil
	}
	var out []string
	switch checks.Key(kind, seam) {
	case checks.Key(checks.KindDanglingReference, checks.SeamCompose),
		checks.Key(checks.KindUnsupportedArgument, checks.SeamChoice),
		checks.Key(checks.KindEmptyLookup, checks.SeamWrite):
		for _, t := range decl.Tools {
			if len(t.ArgumentsFrom) > 0 {
				out = append(out, t.Name)
			}
		}
	case checks.Key(checks.KindInvariantViolation, checks.SeamCompose):
		for _, m := range decl.Maps {
			out = append(out, m.Tools...)
		}
	case checks.Key(checks.KindColumnTypeMismatch, checks.SeamWrite),
		checks.Key(checks.KindMissingColumn, checks.SeamWrite):
		for _, t := range decl.Tools {
			if len(t.ResultColumns) > 0 {
				out = append(out, t.Name)
			}
		}
	}
	return out
}

// arming is what the declarations arm, check by check: the tools that arm
// each and the row part saying none of them appeared in a run. Both depend
// on the declarations alone, so a report makes them once, not for every
// row of every run.
type arming struct {
	decl  *checks.Declarations
	byKey map[string]armedThrough
}

// armedThrough is one check's arming; tools is nil when the declarations do
// not arm it through tools.
type armedThrough struct {
	tools []string
	part  string
}

func newArming(decl *checks.Declarations) *arming {
	return &arming{decl: decl, byKey: map[string]armedThrough{}}
}

func (a *arming) of(kind, seam string) armedThrough {
	k := checks.Key(kind, seam)
	if e, ok := a.byKey[k]; ok {
		return e
	}
	var e armedThrough
	if tools := armingTools(a.decl, kind, seam); len(tools) > 0 && declarationsArm(a.decl, kind, seam) {
		which := "which never appeared in this run"
		if len(tools) > 1 {
			which = "none of which appeared in this run"
		}
		e = armedThrough{tools: tools, part: fmt.Sprintf("⚠ armed for %s, %s: nothing was judged against the declarations, so this is not a pass", strings.Join(tools, ", "), which)}
	}
	a.byKey[k] = e
	return e
}

// markAbsentTools marks each replayed row whose check the declarations arm
// through tools none of which appeared in the run: such a row did not judge
// and pass, it had nothing of its own to judge.
func markAbsentTools(side *Side, a *arming, rr RunResult) {
	tools := rr.Tools
	if side == nil || a.decl == nil || !rr.ToolsRead {
		return
	}
	for i := range side.Rows {
		row := &side.Rows[i]
		e := a.of(row.Check, row.Seam)
		if e.tools == nil || slices.ContainsFunc(e.tools, func(t string) bool { return slices.Contains(tools, t) }) {
			continue
		}
		row.ToolsAbsent = e.tools
		row.Parts = append(row.Parts, e.part)
	}
}

// declarationsArm reports whether the declarations arm the registered check of
// kind and seam.
func declarationsArm(decl *checks.Declarations, kind, seam string) bool {
	for _, c := range checks.Registry {
		if c.Kind == kind && c.Seam == seam {
			return c.Armed != nil && c.Armed(decl)
		}
	}
	return false
}
