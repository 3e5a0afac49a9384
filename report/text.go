package report

import (
	"fmt"
	"io"
	"strings"

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
		t.write(strings.Repeat(" ", pad) + seg)
	}
}

// command writes a command on one line, never wrapped, so it can be
// copied whole; sanitized like every line.
func (t *textWriter) command(indent int, prefix, cmd string) {
	s := strings.Repeat(" ", indent) + Sanitize(prefix+cmd)
	if st, ok := t.styles[styleDim]; ok {
		s = strings.Repeat(" ", indent) + st.Render(Sanitize(prefix+cmd))
	}
	t.write(s)
}

func (t *textWriter) write(s string) {
	if t.err != nil {
		return
	}
	_, t.err = io.WriteString(t.w, s+"\n")
}

// wrap splits text into segments that fit width columns (the first after
// indent, the rest after hang). A word wider than the room stays whole.
func wrap(text string, indent, hang, width int) []string {
	if width <= 0 || indent+lipgloss.Width(text) <= width {
		return []string{text}
	}
	var segs []string
	var cur strings.Builder
	room := width - indent
	for _, word := range strings.Split(text, " ") {
		wl := lipgloss.Width(word)
		switch {
		case cur.Len() == 0:
			cur.WriteString(word)
		case lipgloss.Width(cur.String())+1+wl <= room:
			cur.WriteByte(' ')
			cur.WriteString(word)
		default:
			segs = append(segs, cur.String())
			cur.Reset()
			cur.WriteString(word)
			room = width - hang
		}
	}
	return append(segs, cur.String())
}

// RenderText writes the human report: per input its loss accounting, then
// per run its headline, listed findings, notes, ledger rows, verdict and the
// bound, and a closing line with the exit code.
func RenderText(w io.Writer, r *Report, o TextOptions) error {
	t := newTextWriter(w, o)
	title := "fpcheck · find_context_errors — recorded integrity evidence"
	for _, run := range r.Runs {
		if run.Replayed != nil {
			title = "fpcheck · find_context_errors — recorded and replayed integrity evidence"
			break
		}
	}
	t.line(0, styleBold, title)
	textDeclarations(t, r)
	textSkipped(t, r)
	next := 0
	for _, in := range r.Inputs {
		t.blank()
		textInput(t, in)
		for i := 0; i < in.RunCount && next < len(r.Runs); i++ {
			t.blank()
			textRun(t, r, &r.Runs[next])
			next++
		}
	}
	for ; next < len(r.Runs); next++ {
		t.blank()
		textRun(t, r, &r.Runs[next])
	}
	if len(r.Conversations) > 0 {
		t.blank()
		textConversations(t, r)
	}
	textExtras(t, r)
	t.blank()
	textSummary(t, r)
	return t.err
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

func textInput(t *textWriter, in Input) {
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
	for _, n := range in.Notes {
		t.line(2, noteStyle(n), n)
	}
}

func textRun(t *textWriter, r *Report, run *Run) {
	id := run.RunID
	if id == "" {
		id = "(no run id)"
	}
	head := fmt.Sprintf("RUN %s · %s · %s", id, displayPath(run.Input), count(run.Events, "event", "events"))
	if run.Events > 0 {
		if run.LineNumbers {
			head += fmt.Sprintf(" from line %d", run.FirstLine)
		} else {
			head += fmt.Sprintf(" from event #%d", run.FirstLine)
		}
	}
	if run.Turns > 0 {
		head += fmt.Sprintf(" · conversation %s, turn %d of %d", run.SessionID, run.Turn, run.Turns)
	}
	t.line(0, styleBold, head)
	t.line(2, verdictStyle(run.Verdict), run.Headline)

	if len(run.Findings) > 0 {
		t.blank()
		for i := range run.Findings {
			textFinding(t, r, run, i)
		}
		if run.Omitted > 0 {
			t.line(2, styleDim, fmt.Sprintf("…%s not listed (limit %d): raise the limit or filter by kind.",
				count(run.Omitted, "more finding", "more findings"), r.Options.Limit))
		}
	}
	if len(run.Notes) > 0 {
		t.blank()
		for _, n := range run.Notes {
			t.line(2, noteStyle(n), n)
		}
	}

	// An absence headline already says what a ledger without rows would.
	if len(run.Recorded.Rows) > 0 || run.HeadlineKind != HeadlineAbsence {
		t.blank()
		textLedger(t, &run.Recorded)
	}
	if run.Replayed != nil {
		t.blank()
		textLedger(t, run.Replayed)
	}
	textValidation(t, run)

	t.blank()
	t.line(2, verdictStyle(run.Verdict), verdictLine(r, run))
	t.line(2, styleDim, Bound)
}

func textFinding(t *textWriter, r *Report, run *Run, i int) {
	f, pos, replayed := run.Findings[i], i+1, run.Replayed != nil
	kind, seam := f.Kind, f.Seam
	if kind == "" {
		kind = "⚠ (kind not recorded)"
	}
	if seam == "" {
		seam = "⚠ (seam not recorded)"
	}
	head := fmt.Sprintf("[%d] %s @%s", pos, kind, seam)
	if f.Epoch != nil {
		head += fmt.Sprintf(" · epoch %d", *f.Epoch)
	}
	if f.Iteration != nil {
		head += fmt.Sprintf(" · iteration %d", *f.Iteration)
	}
	if f.Synthetic {
		head += " · SYNTHETIC canary (quarantined, not a real defect)"
	}
	head += baselineTag(f)
	if f.Advisory {
		head += " · ADVISORY (counted apart from defects)"
	}
	t.hang(2, 6, stylePlain, head)
	msg := f.Message
	if msg == "" {
		msg = "⚠ (no message recorded on this finding)"
	}
	t.line(6, stylePlain, msg)

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
	t.hang(6, 8, styleDim, PositionsLine(run, f))
	if replayed {
		src := "source: recorded and replayed"
		switch f.Source {
		case replay.SourceRecorded:
			src = "source: recorded only"
		case replay.SourceReplayed:
			src = "source: replayed only"
		}
		if f.Why != "" {
			src += " — " + f.Why
		}
		t.line(6, styleDim, src)
	}
	t.command(6, "explain: ", r.ExplainCommand(run, i))
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
		keyWidth = max(keyWidth, lipgloss.Width(Sanitize(row.Key())))
	}
	for _, row := range s.Rows {
		key := Sanitize(row.Key())
		key += strings.Repeat(" ", keyWidth-lipgloss.Width(key))
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
		s := "verdict: UNMEASURED — " + unmeasuredReason(&run.Recorded)
		if run.Damaged() {
			s = "verdict: UNMEASURED — evidence damaged"
			if !run.DamagedOnly {
				s += ", and " + unmeasuredReason(&run.Recorded)
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

func textSummary(t *textWriter, r *Report) {
	s := r.Summarize()
	line := fmt.Sprintf("RESULT exit %d (%s) — %s", s.ExitCode, exitMeaning(s.ExitCode), s.inputsAndRuns())
	if s.Conversations > 0 {
		line += "; " + count(s.Conversations, "conversation", "conversations")
	}
	line += "."
	st := styleGreen
	switch s.ExitCode {
	case ExitDefects, ExitUnreadable:
		st = styleDefects
	case ExitUnmeasured:
		st = styleUnmeasured
	}
	t.line(0, st, line)
	t.line(0, styleDim, "Exit codes: 0 bounded green · 1 defects · 2 usage or unreadable input · 3 unmeasured (4: an internal error). With several inputs or runs, 2 outranks 1, 1 outranks 3, and 3 outranks 0.")
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

func exitMeaning(code int) string {
	switch code {
	case ExitDefects:
		return "defects"
	case ExitUnreadable:
		return "unreadable input"
	case ExitUnmeasured:
		return "unmeasured"
	}
	return "bounded green"
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
