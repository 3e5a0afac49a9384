package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/fpcheck/fpcheck/replay"
)

// TextOptions shape the human report. The CLI decides colour (terminal,
// NO_COLOR, --color); the report only obeys.
type TextOptions struct {
	// Color styles headlines by verdict and dims secondary lines. Without
	// it the output is plain text with no escape sequence at all.
	Color bool
	// Width wraps lines longer than this many columns at spaces, with a
	// hanging indent; 0 never wraps.
	Width int
	// Ledger shows every run's full ledgers and notes, not only an
	// unmeasured run's.
	Ledger bool
	// Quiet prints only the result line and the findings.
	Quiet bool
}

// style names a line's role; the styling itself is decided once per render.
type style int

const (
	stylePlain style = iota
	styleBold
	styleDim
	styleGreen
	styleDefects
	styleUnmeasured
	// styleMatch marks a value a finding names where it appears.
	styleMatch
)

// textWriter writes sanitized, optionally wrapped and styled lines and keeps
// the first write error.
type textWriter struct {
	w      io.Writer
	width  int
	styles map[style]lipgloss.Style
	err    error
	// lineBuf is writeAt's buffer.
	lineBuf []byte
	// once holds the lines lineOnce rendered.
	once map[onceKey][]byte
}

type onceKey struct {
	indent int
	st     style
	text   string
}

func newTextWriter(w io.Writer, o TextOptions) *textWriter {
	t := &textWriter{w: w, width: o.Width}
	if o.Color {
		// A fixed 16-colour profile: the caller already decided colour is
		// wanted, so nothing here probes the terminal.
		r := lipgloss.NewRenderer(w, termenv.WithProfile(termenv.ANSI))
		r.SetColorProfile(termenv.ANSI)
		r.SetHasDarkBackground(true)
		t.styles = map[style]lipgloss.Style{
			styleBold:       r.NewStyle().Bold(true),
			styleDim:        r.NewStyle().Faint(true),
			styleGreen:      r.NewStyle().Bold(true).Foreground(lipgloss.Color("2")),
			styleDefects:    r.NewStyle().Bold(true).Foreground(lipgloss.Color("1")),
			styleUnmeasured: r.NewStyle().Bold(true).Foreground(lipgloss.Color("3")),
			styleMatch:      r.NewStyle().Reverse(true).Bold(true),
		}
	}
	return t
}

func (t *textWriter) blank() { t.write("") }

// line writes text at an indent; wrapped continuation lines hang two
// columns deeper.
func (t *textWriter) line(indent int, st style, text string) {
	t.hang(indent, indent+2, st, text)
}

// lineOnce is line for a text the report writes the same for every run
// that has it (a heading, a constant note): rendered the first time, then
// written as it was.
func (t *textWriter) lineOnce(indent int, st style, text string) {
	if t.err != nil {
		return
	}
	k := onceKey{indent, st, text}
	b, ok := t.once[k]
	if !ok {
		var buf bytes.Buffer
		w := t.w
		t.w = &buf
		t.line(indent, st, text)
		t.w = w
		b = buf.Bytes()
		if t.once == nil {
			t.once = map[onceKey][]byte{}
		}
		t.once[k] = b
	}
	_, t.err = t.w.Write(b)
}

// hang writes text at indent, continuation lines at hang. Every line passes
// through Sanitize here, so no string from a recording reaches the terminal
// unescaped, whatever sentence it was composed into.
func (t *textWriter) hang(indent, hang int, st style, text string) {
	text = Sanitize(text)
	for i, seg := range wrap(text, indent, hang, t.width) {
		pad := indent
		if i > 0 {
			pad = hang
		}
		if s, ok := t.styles[st]; ok {
			seg = s.Render(seg)
		}
		t.writeAt(pad, seg)
	}
}

// command writes a shell command so that it can be copied whole: broken
// only between words, each broken line ending in a backslash, so the lines
// pasted together are the one command; sanitized like every line.
func (t *textWriter) command(indent int, prefix string, args []string) {
	var lines []string
	cur := Sanitize(prefix)
	for i, a := range args {
		a = Sanitize(a)
		switch {
		case i == 0:
			cur += a
		case t.width > 0 && indent+cellWidth(cur)+1+cellWidth(a)+2 > t.width:
			lines = append(lines, cur+" \\")
			cur = "    " + a
		default:
			cur += " " + a
		}
	}
	lines = append(lines, cur)
	st, styled := t.styles[styleDim]
	for _, l := range lines {
		if styled {
			l = st.Render(l)
		}
		t.writeAt(indent, l)
	}
}

func (t *textWriter) write(s string) { t.writeAt(0, s) }

// writeAt writes s as one line after pad spaces, in one Write, through a
// buffer the writer keeps: a report is a line or more per finding, and
// joining each into a new string cost more than writing it.
func (t *textWriter) writeAt(pad int, s string) {
	if t.err != nil {
		return
	}
	b := t.lineBuf[:0]
	for ; pad > 0; pad-- {
		b = append(b, ' ')
	}
	b = append(append(b, s...), '\n')
	_, t.err = t.w.Write(b)
	if cap(b) <= maxKeptLine {
		t.lineBuf = b
	}
}

// maxKeptLine is the longest line buffer a textWriter keeps for the next.
const maxKeptLine = 64 << 10

// wrap splits text into segments that fit width columns (the first after
// indent, the rest after hang). A word wider than the room stays whole.
// A segment is words with the single spaces between them as text has
// them, so each is a slice of text; an empty word (of a run of spaces)
// that would open a segment is dropped with the space after it.
func wrap(text string, indent, hang, width int) []string {
	if width <= 0 || indent+cellWidth(text) <= width {
		return []string{text}
	}
	var segs []string
	// The segment so far is text[start:end], empty when they are equal.
	start, end := 0, 0
	// curWidth is its width while every word in it is plain (see
	// plainWidth), -1 once one is not and it must be measured whole.
	curWidth := 0
	room := width - indent
	for i := 0; ; {
		wordEnd := len(text)
		if k := strings.IndexByte(text[i:], ' '); k >= 0 {
			wordEnd = i + k
		}
		word := text[i:wordEnd]
		wl, plain := plainWidth(word)
		if !plain {
			wl = lipgloss.Width(word)
		}
		switch {
		case start == end:
			start, end = i, wordEnd
			curWidth = knownWidth(plain, wl)
		case joinedWidth(text[start:end], curWidth)+1+wl <= room:
			end = wordEnd
			if curWidth >= 0 {
				curWidth = knownWidth(plain, curWidth+1+wl)
			}
		default:
			segs = append(segs, text[start:end])
			start, end = i, wordEnd
			curWidth = knownWidth(plain, wl)
			room = width - hang
		}
		if wordEnd == len(text) {
			break
		}
		i = wordEnd + 1
	}
	return append(segs, text[start:end])
}

// knownWidth is w when the text it measures is plain, else -1.
func knownWidth(plain bool, w int) int {
	if plain {
		return w
	}
	return -1
}

// joinedWidth is the width of the words joined so far: known while they
// are plain, measured whole otherwise, as clusters may join across a
// space.
func joinedWidth(cur string, known int) int {
	if known >= 0 {
		return known
	}
	return lipgloss.Width(cur)
}

// cellWidth is the terminal width of a sanitized line. Nearly every line
// of a report is plain, one column a character; only the others need the
// grapheme and escape-aware measure, which costs far more than the rest of
// the rendering.
func cellWidth(s string) int {
	if w, ok := plainWidth(s); ok {
		return w
	}
	return lipgloss.Width(s)
}

// plainWidth is the width of s when s is plain: printable ASCII and the
// marks the report's own sentences use (ownMark), each character one
// column and a grapheme of its own, so that widths add up. ok is false
// for anything else.
func plainWidth(s string) (w int, ok bool) {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			i++
		case c < 0x80:
			return 0, false
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !ownMark(r) {
				return 0, false
			}
			i += size
		}
		w++
	}
	return w, true
}

// ownMark reports whether r is one of the marks the report writes itself
// beyond ASCII. Each is one column wide and never joins a neighbour into
// one grapheme: no combining mark, joiner or variation selector is among
// them (TestOwnMarksAreOneColumn).
func ownMark(r rune) bool {
	switch r {
	case '·', '—', '–', '…', '⚠', '×', '→', '←', '↔', '✓', '✗', '«', '»':
		return true
	}
	return false
}

// RenderText writes the human report, in the order a reader needs it: the
// result line, what was lost reading the inputs, the findings (each with
// its evidence and the command that explains it; one identity repeated in
// several runs is shown once, with the runs it is in), then one coverage
// line per run (its ledgers too with Ledger, or when the run is
// unmeasured, where they are the point), the conversations, and the bound
// once. Quiet keeps the result line and the findings.
func RenderText(w io.Writer, r *Report, o TextOptions) error {
	t := newTextWriter(w, o)
	textResultLine(t, r)
	textDamage(t, r, o)
	// What the declarations and the skipped inputs say qualifies every
	// run below, so it stands under the result.
	textDeclarations(t, r)
	textSkipped(t, r)
	textFindings(t, r, o)
	if o.Quiet {
		return t.err
	}
	if len(r.Runs) > 0 {
		t.blank()
		for i := 0; i < len(r.Runs); {
			n := sameRuns(r, i, o)
			if n > 1 {
				textRunGroup(t, r, r.Runs[i:i+n])
			} else {
				textRun(t, r, &r.Runs[i], o)
			}
			i += n
		}
	}
	if len(r.Conversations) > 0 {
		t.blank()
		textConversations(t, r)
	}
	textExtras(t, r)
	t.blank()
	t.line(0, styleDim, Bound)
	if !o.Ledger {
		return t.err
	}
	t.line(0, styleDim, "Exit codes: 0 bounded green · 1 defects · 2 usage, an unreadable input or a run stopped at a limit · 3 unmeasured (4: an internal error). With several inputs or runs, 2 outranks 1, 1 outranks 3, and 3 outranks 0.")
	return t.err
}

// textDamage states, per input, what reading it lost: the notes that weaken
// what follows. An input read whole says nothing here; --ledger shows its
// full accounting.
func textDamage(t *textWriter, r *Report, o TextOptions) {
	for _, in := range r.Inputs {
		lossy := in.Error != "" || in.Malformed > 0 || in.TruncatedTail || in.RunCount == 0 || len(in.Problems) > 0
		for _, n := range in.Notes {
			lossy = lossy || strings.HasPrefix(n, "⚠")
		}
		if !lossy && !o.Ledger {
			continue
		}
		// The whole accounting, so the loss is read beside what was kept.
		t.blank()
		textInput(t, in, in.Notes)
	}
}

// findingGroup is one identity of the report's listing: where it is first
// listed, and every run it is listed in.
type findingGroup struct {
	first FindingAt
	runs  []int
}

// groupFindings groups the listed findings of every run by identity, in
// the order each is first listed.
func groupFindings(r *Report) []findingGroup {
	var out []findingGroup
	at := map[string]int{}
	for i := range r.Runs {
		for j, f := range r.Runs[i].Findings {
			if g, ok := at[f.Identity]; ok && !f.Synthetic {
				if out[g].runs[len(out[g].runs)-1] != i {
					out[g].runs = append(out[g].runs, i)
				}
				continue
			}
			if !f.Synthetic {
				at[f.Identity] = len(out)
			}
			out = append(out, findingGroup{first: FindingAt{Run: i, Finding: j}, runs: []int{i}})
		}
	}
	return out
}

func textFindings(t *textWriter, r *Report, o TextOptions) {
	groups := groupFindings(r)
	omitted := 0
	for _, run := range r.Runs {
		omitted += run.Omitted
	}
	if len(groups) == 0 && omitted == 0 {
		return
	}
	t.blank()
	for k, g := range groups {
		run := &r.Runs[g.first.Run]
		textFinding(t, r, run, g.first.Finding, k+1, g.runs, o)
	}
	if omitted > 0 {
		t.line(2, styleDim, fmt.Sprintf("…%s not listed (limit %d): raise the limit or filter by kind.",
			count(omitted, "more finding", "more findings"), r.Options.Limit))
	}
}

// textConversations lists the turns of each conversation with their
// verdicts, so a defect in one turn is seen beside its siblings.
func textConversations(t *textWriter, r *Report) {
	t.line(0, styleBold, "CONVERSATIONS (runs sharing a session id are turns of one conversation)")
	verdicts := map[string]Verdict{}
	for _, run := range r.Runs {
		if _, ok := verdicts[run.RunID]; !ok {
			verdicts[run.RunID] = run.Verdict
		}
	}
	for _, c := range r.Conversations {
		turns := make([]string, len(c.RunIDs))
		for i, id := range c.RunIDs {
			turns[i] = fmt.Sprintf("%d. %s (%s)", i+1, id, verdicts[id])
		}
		t.line(2, stylePlain, fmt.Sprintf("%s — %s: %s", c.SessionID, count(len(c.RunIDs), "turn", "turns"), strings.Join(turns, ", ")))
	}
}

func textInput(t *textWriter, in Input, notes []string) {
	head := "INPUT " + displayPath(in.Path)
	var kind []string
	if in.Format != "" {
		kind = append(kind, in.Format)
	}
	switch in.Compression {
	case "":
	case "none":
		kind = append(kind, "uncompressed")
	default:
		kind = append(kind, in.Compression)
	}
	if len(kind) > 0 {
		head += " (" + strings.Join(kind, ", ") + ")"
	}
	t.line(0, styleBold, head)
	for _, n := range notes {
		t.line(2, noteStyle(n), n)
	}
}

// textRun is one run's coverage line, its notes, and its ledgers when
// asked for or when the run is unmeasured.
func textRun(t *textWriter, r *Report, run *Run, o TextOptions) {
	id := run.RunID
	if id == "" {
		id = "(no run id)"
	}
	head := "RUN " + id + " · " + displayPath(run.Input) + runStart(run)
	if run.Turns > 0 {
		head += fmt.Sprintf(" · turn %d of %d", run.Turn, run.Turns)
	}
	head += " · " + runMark(run.Verdict) + " " + runOutcome(run)
	head += " · " + coverageLine(run)
	t.hang(2, 6, verdictStyle(run.Verdict), head)
	full := o.Ledger || run.Verdict == VerdictUnmeasured
	// The coverage line says what a green's headline would; the headline
	// stays where it says more: evidence missing, a filter, an absence.
	says := false
	switch run.HeadlineKind {
	case HeadlineFindings:
		// Advisories only: the headline says why they are counted apart;
		// a baseline's acceptances are said there too.
		says = run.Defects == 0 || run.Baselined > 0
	case HeadlineAbsence:
		says = run.Verdict != VerdictGreen
	default:
		says = true
	}
	if full || says {
		t.hang(6, 8, verdictStyle(run.Verdict), run.Headline)
	}
	for _, n := range run.Notes {
		if full || noteWeakens(n) {
			t.hang(6, 8, noteStyle(n), n)
		}
	}
	if !full {
		// The rows whose silence weakens the verdict, and only those.
		for _, side := range []*Side{run.Recorded, run.Replayed} {
			if side == nil {
				continue
			}
			for _, row := range side.Rows {
				if slices.ContainsFunc(row.Parts, func(p string) bool { return strings.Contains(p, "⚠") }) {
					t.hang(6, 10, styleUnmeasured, sideName(side, run)+" "+Sanitize(row.Key())+"  "+strings.Join(row.Parts, " · "))
				}
			}
		}
		textValidation(t, run)
		return
	}
	if len(run.Recorded.Rows) > 0 || run.HeadlineKind != HeadlineAbsence {
		textLedger(t, run.Recorded)
	}
	if run.Replayed != nil {
		textLedger(t, run.Replayed)
	}
	textValidation(t, run)
	t.hang(6, 8, verdictStyle(run.Verdict), verdictLine(r, run))
}

// sideName says which side a ledger is.
func sideName(s *Side, run *Run) string {
	if s == run.Replayed {
		return "replayed"
	}
	return "recorded"
}

// noteWeakens reports whether a run note qualifies its verdict, and so is
// said without --ledger: a warning, or a pass owed to the app's word (an
// excused argument) rather than to the evidence.
func noteWeakens(n string) bool {
	return strings.HasPrefix(n, "⚠") || strings.HasPrefix(n, "Excused") || strings.HasPrefix(n, copiesPrefix)
}

// runStart says where a run's events begin: at a line of a stream, or at a
// position among a document's events, whatever lines a pretty-printed
// document has.
func runStart(run *Run) string {
	switch {
	case run.Events == 0:
		return " · no events"
	case run.LineNumbers:
		return fmt.Sprintf(" · %s from line %d", count(run.Events, "event", "events"), run.FirstLine)
	}
	return fmt.Sprintf(" · %s from event #%d", count(run.Events, "event", "events"), run.FirstLine)
}

// sameRuns is how many runs from i on a report can state in one line: runs
// of one input, outside any conversation, with the same outcome and
// coverage and nothing that weakens them to say on their own.
func sameRuns(r *Report, i int, o TextOptions) int {
	if o.Ledger {
		return 1
	}
	alone := func(run *Run) bool {
		if run.Verdict == VerdictUnmeasured || run.Turns > 0 || run.HeadlineKind != HeadlineFindings && run.Verdict != VerdictGreen {
			return true
		}
		for _, n := range run.Notes {
			if noteWeakens(n) {
				return true
			}
		}
		return false
	}
	first := &r.Runs[i]
	if alone(first) {
		return 1
	}
	// Fewer than three runs cost no more lines one by one.
	const minGroup = 3
	key := runOutcome(first) + "\x00" + coverageLine(first) + "\x00" + first.Input
	n := 1
	for j := i + 1; j < len(r.Runs); j++ {
		run := &r.Runs[j]
		if alone(run) || runOutcome(run)+"\x00"+coverageLine(run)+"\x00"+run.Input != key {
			break
		}
		n++
	}
	if n < minGroup {
		return 1
	}
	return n
}

// textRunGroup states runs sameRuns grouped in one line.
func textRunGroup(t *textWriter, r *Report, runs []Run) {
	first, last := &runs[0], &runs[len(runs)-1]
	head := fmt.Sprintf("%d runs, %s to %s", len(runs), orNone(first.RunID), orNone(last.RunID))
	if len(r.Inputs) > 1 {
		head += " · " + displayPath(first.Input)
	}
	head += fmt.Sprintf(" · each %s %s · %s", runMark(first.Verdict), runOutcome(first), coverageLine(first))
	t.hang(2, 6, verdictStyle(first.Verdict), head)
}

// runMark is a run's verdict at a glance, in plain text.
func runMark(v Verdict) string {
	switch v {
	case VerdictDefects:
		return "✗"
	case VerdictUnmeasured:
		return "?"
	}
	return "✓"
}

// runOutcome is the run's verdict with its counts.
func runOutcome(run *Run) string {
	switch run.Verdict {
	case VerdictDefects:
		s := "DEFECTS " + count(run.Defects, "defect", "defects")
		if run.Advisories > 0 {
			s += ", " + count(run.Advisories, "advisory", "advisories")
		}
		if run.Recorded.EvidenceMissing || run.Replayed != nil && run.Replayed.EvidenceMissing {
			s += ", ⚠ evidence missing"
		}
		return s
	case VerdictUnmeasured:
		if run.Damaged() {
			return "⚠ UNMEASURED (evidence damaged)"
		}
		return "⚠ UNMEASURED (" + unmeasuredReason(run.Recorded) + ")"
	}
	s := "GREEN"
	if run.Advisories > 0 {
		s += ", " + count(run.Advisories, "advisory", "advisories")
	}
	return s
}

// coverageLine is what each side's ledger proves, in one phrase each.
func coverageLine(run *Run) string {
	parts := []string{"recorded " + sideCoverage(run.Recorded)}
	if run.Replayed != nil {
		parts = append(parts, "replayed "+sideCoverage(run.Replayed))
	}
	return strings.Join(parts, "; ")
}

func sideCoverage(s *Side) string {
	if s.Coverage.Unmeasured() && s.Coverage != CoveragePartial {
		return "⚠ " + string(s.Coverage)
	}
	out := fmt.Sprintf("%d/%d checked", s.Checking, len(s.Rows))
	var rest []string
	var na, unr, never int
	for _, row := range s.Rows {
		switch {
		case row.NeverRan():
			never++
		case row.Checked <= 0 && row.Unreachable > 0:
			unr++
		case row.Checked <= 0:
			na++
		}
	}
	// Out of scope by rule weakens nothing; --ledger lists those rows.
	_ = na
	if unr > 0 {
		rest = append(rest, fmt.Sprintf("⚠ %d unreachable", unr))
	}
	if never > 0 {
		rest = append(rest, fmt.Sprintf("⚠ %d never ran", never))
	}
	if s.EvidenceMissing {
		rest = append(rest, "⚠ evidence missing")
	}
	if len(rest) > 0 {
		out += " (" + strings.Join(rest, ", ") + ")"
	}
	return out
}

// textFinding writes one listed finding, loud: kind@seam, the run, the
// message, its evidence in two or three lines, the runs it repeats in, and
// the command that explains it.
func textFinding(t *textWriter, r *Report, run *Run, i, number int, runs []int, o TextOptions) {
	f := run.Findings[i]
	head := fmt.Sprintf("[%d] %s @%s", number, orText(f.Kind, "⚠ (kind not recorded)"), orText(f.Seam, "⚠ (seam not recorded)"))
	switch {
	case f.Synthetic:
		head += " · SYNTHETIC canary (quarantined, not a real defect)"
	case f.Advisory:
		head += " · ADVISORY"
	}
	head += baselineTag(f)
	if f.Iteration != nil {
		head += fmt.Sprintf(" · iteration %d", *f.Iteration)
	}
	if run.Replayed != nil {
		switch f.Source {
		case replay.SourceRecorded:
			head += " · recorded only"
		case replay.SourceReplayed:
			head += " · replayed only"
		default:
			head += " · recorded and replayed"
		}
	}
	st := styleDefects
	if f.Synthetic || f.Advisory && !r.Fails(f) || f.Baseline != nil && !f.Baseline.Expired {
		st = styleBold
	}
	if len(runs) > 1 {
		// The first is shown; the explain command names it.
		head += fmt.Sprintf(" · in %d runs", len(runs))
	} else {
		head += " · run " + orNone(run.RunID)
		if run.Turns > 0 {
			head += fmt.Sprintf(" (turn %d of %d)", run.Turn, run.Turns)
		}
	}
	t.hang(2, 6, st, head)
	t.hang(6, 6, stylePlain, orText(f.Message, "⚠ (no message recorded on this finding)"))
	ws := f.Witnessed()
	switch {
	case len(ws) > 0:
		label := "witness: "
		if len(ws) > 1 {
			label = fmt.Sprintf("witness 1 of %d: ", len(ws))
		}
		t.line(6, styleDim, t.fit(6, label+witnessBrief(ws[0])))
	default:
		t.line(6, styleDim, witnessLine(f))
	}
	t.hang(6, 8, styleDim, PositionsLine(run, f))
	if rp := RepeatsPhrase(f); rp != "" {
		t.hang(6, 8, styleDim, "⚠ "+rp+", listed once")
	}
	// A side that could not judge weakens the finding's agreement; that,
	// and drift, are said by default, every other reason with --ledger.
	if f.Drift || strings.HasPrefix(f.Why, "replay lacked input") || o.Ledger && f.Why != "" {
		t.line(6, styleDim, t.fit(6, "⚠ one-sided: "+f.Why))
	}
	if o.Ledger {
		textFindingDetail(t, f)
	}
	if len(runs) > 1 && o.Ledger {
		ids := make([]string, 0, len(runs))
		for _, ri := range runs {
			ids = append(ids, orNone(r.Runs[ri].RunID))
		}
		t.hang(6, 8, stylePlain, "runs: "+strings.Join(ids, ", "))
	}
	t.command(6, "", r.ExplainArgs(run, i))
}

// textFindingDetail is what --ledger adds to a finding: who it is about,
// where it was filed, and every witness.
func textFindingDetail(t *textWriter, f Finding) {
	about := "about: ⚠ no subjects recorded — the finding names no identity"
	if len(f.Subjects) > 0 {
		const shown = 6
		var names []string
		for i, s := range f.Subjects {
			if i == shown {
				break
			}
			names = append(names, s.Kind+":"+s.ID)
		}
		about = "about: " + strings.Join(names, ", ")
		if len(f.Subjects) > shown {
			about += fmt.Sprintf(", … +%d more", len(f.Subjects)-shown)
		}
	}
	if f.Predicate != "" {
		about += " · predicate " + f.Predicate
	}
	t.line(6, styleDim, about)
	filed := "filed at: ⚠ no stage recorded on the event"
	if f.FiledAt != "" {
		filed = "filed at " + f.FiledAt
	}
	if f.Line > 0 {
		filed += fmt.Sprintf(" · input line %d", f.Line)
	}
	if f.Source == replay.SourceReplayed {
		filed = "filed by the replay"
		if f.FiledAt != "" {
			filed += " at " + f.FiledAt
		}
	}
	t.line(6, styleDim, filed)
	t.line(6, styleDim, witnessLine(f))
	for _, w := range f.Witnessed() {
		t.hang(8, 10, styleDim, WitnessText(w))
	}
}

// witnessBrief is a witness in the words a one-line summary has room for:
// who, what, the value, and where it came from.
func witnessBrief(w EvidenceWitness) string {
	s := w.Subject.Kind
	if w.Subject.ID != "" {
		s += ":" + w.Subject.ID
	}
	if w.Predicate != "" {
		s += " " + w.Predicate
	}
	s += " = " + WitnessValue(w.Value)
	if w.Provenance != "" {
		s += " — " + w.Provenance
	}
	return s
}

// fit cuts text to the room left on one line after indent, so a one-line
// summary never wraps: at a word boundary, unless that would leave most of
// the line empty (a long first word, a tool name a recording made long),
// where the word is cut instead of dropped whole.
func (t *textWriter) fit(indent int, text string) string {
	room := t.width - indent
	if t.width <= 0 || cellWidth(Sanitize(text)) <= room {
		return text
	}
	words := strings.Split(text, " ")
	out := ""
	for _, w := range words {
		next := w
		if out != "" {
			next = out + " " + w
		}
		if cellWidth(Sanitize(next))+2 > room {
			break
		}
		out = next
	}
	if cellWidth(Sanitize(out))*2 < room {
		return clipCells(Sanitize(text), room-1) + "…"
	}
	return out + " …"
}

// clipCells is the longest prefix of s, cut between characters, that is
// at most n cells wide. s is sanitized (Sanitize is the same on it again).
func clipCells(s string, n int) string {
	cuts := make([]int, 0, len(s)+1)
	for i := range s {
		cuts = append(cuts, i)
	}
	cuts = append(cuts, len(s))
	// Found by halving: measuring each longer prefix in turn would take
	// time in the square of a word a recording made long.
	k := sort.Search(len(cuts), func(j int) bool { return cellWidth(s[:cuts[j]]) > n })
	if k == 0 {
		return ""
	}
	return s[:cuts[k-1]]
}

// exitStyle styles a line by the exit code it states.
func exitStyle(code int) style {
	switch code {
	case ExitDefects, ExitUnreadable:
		return styleDefects
	case ExitUnmeasured:
		return styleUnmeasured
	}
	return styleGreen
}

// textResultLine is the report's outcome, first: the exit code and the
// runs by verdict.
func textResultLine(t *textWriter, r *Report) {
	s := r.Summarize()
	line := fmt.Sprintf("RESULT exit %d (%s) — %s", s.ExitCode, s.exitMeaning(), s.inputsAndRuns())
	if s.Conversations > 0 {
		line += "; " + count(s.Conversations, "conversation", "conversations")
	}
	line += "."
	st := exitStyle(s.ExitCode)
	t.hang(0, 4, st, line)
}

// witnessLine says how much proof travelled with a finding and whether any
// of it names the step that asserted it.
func witnessLine(f Finding) string {
	switch {
	case !f.WitnessesRecorded && f.Source != replay.SourceReplayed:
		return "witnesses: ⚠ none recorded — the proof did not travel with the finding"
	case len(f.Witnesses) == 0:
		return "witnesses: 0 — the finding carries an empty proof list"
	}
	var stamped []string
	for _, w := range f.Witnesses {
		if w.RuntimeStageID != "" && !containsString(stamped, w.RuntimeStageID) {
			stamped = append(stamped, w.RuntimeStageID)
		}
	}
	n := stampedWitnesses(f)
	if n == 0 {
		return fmt.Sprintf("witnesses: %d, none carries a step id", len(f.Witnesses))
	}
	s := fmt.Sprintf("witnesses: %d, %d stamped (%s)", len(f.Witnesses), n, nameList(stamped, 6))
	if rest := len(f.Witnesses) - n; rest > 0 {
		s += fmt.Sprintf(", %d without a step id", rest)
	}
	return s
}

func textLedger(t *textWriter, s *Side) {
	t.line(2, ledgerStyle(s), s.Ledger)
	if len(s.Rows) == 0 {
		return
	}
	keyWidth := 0
	for _, row := range s.Rows {
		keyWidth = max(keyWidth, cellWidth(Sanitize(row.Key())))
	}
	for _, row := range s.Rows {
		key := Sanitize(row.Key())
		key += strings.Repeat(" ", keyWidth-cellWidth(key))
		st := stylePlain
		if row.State != RowChecked {
			st = styleUnmeasured
		}
		t.hang(4, 4+keyWidth+2, st, key+"  "+strings.Join(row.Parts, " · "))
	}
}

func verdictLine(r *Report, run *Run) string {
	switch run.Verdict {
	case VerdictDefects:
		return fmt.Sprintf("verdict: DEFECTS — fails the gate (fail on %s)", r.Options.failOn())
	case VerdictUnmeasured:
		s := "verdict: UNMEASURED — " + unmeasuredReason(run.Recorded)
		if run.Damaged() {
			s = "verdict: UNMEASURED — evidence damaged"
			if !run.DamagedOnly {
				s += ", and " + unmeasuredReason(run.Recorded)
			}
		}
		if run.DamagedOnly && r.Options.AllowDamaged {
			s += " (allowed by --allow-damaged: it does not fail the exit code)"
		} else if r.Options.AllowUnmeasured {
			s += " (allowed: it does not fail the exit code)"
		}
		return s
	}
	return "verdict: GREEN, within the bound below"
}

// unmeasuredReason names what is missing for a run to count as measured.
func unmeasuredReason(s *Side) string {
	switch s.Coverage {
	case CoverageNoTail:
		return "no event tail"
	case CoverageNoIntegrityEvents:
		return "no integrity events"
	case CoverageNoDisposition:
		return "no ledger records which checks ran"
	case CoverageNoCheckRegistered:
		return "no check registered"
	case CoverageNothingChecked:
		return "no check checked anything"
	}
	return fmt.Sprintf("%s never ran (%s)", count(len(s.NeverRan), "registered check", "registered checks"), nameList(s.NeverRan, 6))
}

func verdictStyle(v Verdict) style {
	switch v {
	case VerdictDefects:
		return styleDefects
	case VerdictUnmeasured:
		return styleUnmeasured
	}
	return styleGreen
}

func ledgerStyle(s *Side) style {
	if s.Unmeasured || s.Coverage == CoveragePartial {
		return styleUnmeasured
	}
	return styleBold
}

// noteStyle keeps warnings at full strength and dims the rest.
func noteStyle(n string) style {
	if strings.HasPrefix(n, "⚠") {
		return stylePlain
	}
	return styleDim
}

func displayPath(p string) string {
	if p == "" {
		return "(unnamed input)"
	}
	return p
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
