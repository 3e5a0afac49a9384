package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// mdReplacer escapes what GitHub-flavoured markdown would otherwise read as
// markup in a string from a recording: emphasis, code spans, links, HTML,
// table cell borders, strikethrough, math and @-mentions (including the
// "@seam" in "kind @seam"). It runs after
// Sanitize, so no newline or control character is left to break a table
// row or a list item.
var mdReplacer = strings.NewReplacer(
	`\`, `\\`,
	"`", "\\`",
	"*", `\*`,
	"_", `\_`,
	"[", `\[`,
	"]", `\]`,
	"|", `\|`,
	"~", `\~`,
	"$", `\$`,
	"<", "&lt;",
	">", "&gt;",
	"&", "&amp;",
	// A zero-width space after "@" keeps "@name" from notifying a
	// GitHub user: entities and backslashes are decoded before mentions
	// are linked, so neither would stop it. The same space keeps a URL
	// ("scheme://", "www.") from being linked, which it would be with no
	// markup at all (GitHub's extended autolinks; an e-mail address is
	// kept by its "@").
	"@", "@\u200b",
	"://", ":\u200b//",
	"www.", "www\u200b.",
	"WWW.", "WWW\u200b.",
	"Www.", "Www\u200b.",
)

// MarkdownEscape makes a string from a recording safe inside markdown text
// and table cells: control and bidirectional characters are made visible
// (Sanitize) and markdown metacharacters are escaped.
func MarkdownEscape(s string) string {
	return mdReplacer.Replace(Sanitize(s))
}

// mdWriter keeps the first write error.
type mdWriter struct {
	w   io.Writer
	err error
}

func (m *mdWriter) printf(format string, a ...any) {
	if m.err == nil {
		_, m.err = fmt.Fprintf(m.w, format, a...)
	}
}

func (m *mdWriter) line(s string) { m.printf("%s\n", s) }

func verdictMark(v Verdict, allow bool) string {
	switch v {
	case VerdictDefects:
		return "❌ defects"
	case VerdictUnmeasured:
		if allow {
			return "⚠️ unmeasured (allowed)"
		}
		return "⚠️ unmeasured"
	}
	return "✅ green"
}

func exitMark(code int) string {
	switch code {
	case ExitDefects:
		return "❌"
	case ExitUnreadable:
		return "⛔"
	case ExitUnmeasured:
		return "⚠️"
	}
	return "✅"
}

// coverageCell words a run's coverage for a table cell: the recorded
// state with how many registered checks checked something, and the
// replayed one beside it when there is a replay.
func coverageCell(run *Run) (string, string) {
	side := func(s *Side) string {
		if len(s.Rows) == 0 {
			return string(s.Coverage)
		}
		return fmt.Sprintf("%s (%d of %d)", s.Coverage, s.Checking, len(s.Rows))
	}
	if run.Replayed == nil {
		return side(run.Recorded), ""
	}
	return side(run.Recorded), side(run.Replayed)
}

// RenderMarkdown writes the report as GitHub-flavoured markdown for
// $GITHUB_STEP_SUMMARY or a pull-request comment: the result line, a table
// of every input and run, then per run that is not a plain green its
// headline and findings, the baseline's account, and the bound.
func RenderMarkdown(w io.Writer, r *Report) error {
	m := &mdWriter{w: w}
	s := r.Summarize()
	m.line("## fpcheck · find_context_errors")
	m.line("")
	m.line(fmt.Sprintf("**%s Exit %d — %s.** %s", exitMark(s.ExitCode), s.ExitCode, s.exitMeaning(), mdSummaryLine(r, s)))
	m.line("")
	if dr := r.Declarations; dr != nil && len(dr.Unseen) > 0 {
		m.line("**" + MarkdownEscape(dr.Headline()) + "**")
		m.line("")
		for _, u := range dr.Unseen {
			m.line("- ⚠️ " + MarkdownEscape(u.Sentence(dr.Source)) + ".")
		}
		m.line("")
	}
	replayed := false
	for _, run := range r.Runs {
		if run.Replayed != nil {
			replayed = true
		}
	}
	head := []string{"input", "run", "coverage", "defects", "advisories"}
	align := []string{"---", "---", "---", "---:", "---:"}
	if replayed {
		head = slices.Insert(head, 2, "recorded coverage")
		head[3] = "replayed coverage"
		align = slices.Insert(align, 2, "---")
	}
	if r.Baseline != nil {
		head, align = append(head, "baselined"), append(align, "---:")
	}
	head, align = append(head, "verdict"), append(align, "---")
	cells := func(c ...string) { m.line("| " + strings.Join(c, " | ") + " |") }
	cells(head...)
	cells(align...)
	copies := copiesByInput(r)
	for i, idx := range runsByInput(r) {
		in := r.Inputs[i]
		path := MarkdownEscape(displayPath(in.Path))
		dash := slices.Repeat([]string{"—"}, len(head)-2)
		switch {
		case in.Error != "":
			cells(append(append([]string{path}, dash...), "⛔ unreadable")...)
		case in.noTail():
			cells(append(append([]string{path}, dash...), verdictMark(VerdictUnmeasured, r.Options.AllowUnmeasured)+" (no run)")...)
		case in.RunCount == 0 && len(in.StoppedRuns) > 0:
			cells(append(append([]string{path}, dash...), "⛔ not judged ("+noRunJudged(&in)+")")...)
		case in.RunCount == 0:
			cells(append(append([]string{path}, dash...), verdictMark(VerdictUnmeasured, r.Options.AllowUnmeasured)+" ("+noRunJudged(&in)+")")...)
		}
		for _, ri := range idx {
			run := &r.Runs[ri]
			rec, rep := coverageCell(run)
			row := []string{path, MarkdownEscape(runLabel(run)), rec}
			if replayed {
				if rep == "" {
					rep = "—"
				}
				row = append(row, rep)
			}
			row = append(row, fmt.Sprint(run.Defects), fmt.Sprint(run.Advisories))
			if r.Baseline != nil {
				row = append(row, fmt.Sprint(run.Baselined))
			}
			cells(append(row, verdictMark(run.Verdict, r.Options.AllowUnmeasured))...)
		}
		// A copy is a row of its input, counted where it is judged.
		for _, c := range copies[i] {
			cells(append(append([]string{path, MarkdownEscape(runLabel(c.alone))}, dash[1:]...), "copy, counted in "+MarkdownEscape(displayPath(c.judgedIn)))...)
		}
	}
	for i := range r.Inputs {
		in := &r.Inputs[i]
		var lost []string
		if in.Error != "" {
			lost = append(lost, unreadableSentence(in))
		}
		for _, sr := range in.StoppedRuns {
			lost = append(lost, stoppedRunText(sr))
		}
		mark := "⛔"
		if len(lost) == 0 {
			mark = "⚠️"
		}
		if len(in.LostRuns) > 0 {
			lost = append(lost, strings.TrimPrefix(lostRunsNote(in.LostRuns), "⚠ "))
		}
		if len(lost) == 0 {
			continue
		}
		m.line("")
		m.line(fmt.Sprintf("### %s %s", mark, MarkdownEscape(displayPath(in.Path))))
		for _, l := range lost {
			m.line("")
			m.line(MarkdownEscape(l))
		}
	}
	var copied []string
	for i := range r.Runs {
		if run := &r.Runs[i]; len(run.Copies) > 0 {
			copied = append(copied, fmt.Sprintf("%s · %s: %s", displayPath(run.Input), runLabel(run), copyNote(run)))
		}
	}
	if len(copied) > 0 {
		m.line("")
		m.line("### Copies of runs")
		m.line("")
		for _, c := range copied {
			m.line("- " + MarkdownEscape(c))
		}
	}
	for i := range r.Runs {
		run := &r.Runs[i]
		if run.Verdict == VerdictGreen && len(run.Findings) == 0 && len(run.Conflicts) == 0 {
			continue
		}
		m.line("")
		m.line(fmt.Sprintf("### %s %s · %s", exitMark(verdictCode(run.Verdict)), MarkdownEscape(displayPath(run.Input)), MarkdownEscape(runLabel(run))))
		m.line("")
		m.line(MarkdownEscape(run.Headline))
		if run.Verdict == VerdictUnmeasured {
			m.line("")
			m.line("Unmeasured: " + MarkdownEscape(unmeasuredWhy(run)) + ".")
		}
		if len(run.Findings) > 0 {
			m.line("")
			for i, f := range run.Findings {
				m.line("- " + mdFinding(r, f))
				mdEvidence(m, r, run, i)
			}
			if run.Omitted > 0 {
				m.line(fmt.Sprintf("- … %s not listed (limit %d)", count(run.Omitted, "more finding", "more findings"), r.Options.Limit))
			}
		}
		var warn []string
		for _, n := range run.Notes {
			if strings.HasPrefix(n, "⚠") {
				warn = append(warn, n)
			}
		}
		if len(warn) > 0 {
			m.line("")
			for _, n := range warn {
				m.line("> " + MarkdownEscape(n))
			}
		}
	}
	if br := r.Baseline; br != nil {
		head, lines := baselineSentences(br)
		m.line("")
		m.line("### Baseline")
		m.line("")
		m.line(MarkdownEscape(head))
		if len(lines) > 0 {
			m.line("")
			for _, l := range lines {
				m.line("- " + MarkdownEscape(l))
			}
		}
	}
	m.line("")
	m.line("> " + MarkdownEscape(Bound))
	return m.err
}

// mdEvidence lists under a finding its witnesses, its recording positions
// and the command that explains it.
func mdEvidence(m *mdWriter, r *Report, run *Run, i int) {
	f := run.Findings[i]
	for _, w := range f.Witnessed() {
		m.line("  - witness: " + MarkdownEscape(WitnessText(w)))
	}
	m.line("  - " + MarkdownEscape(PositionsLine(run, f)))
	m.line("  - explain: " + mdCode(Sanitize(r.ExplainCommand(run, i))))
}

// mdCode is a code span that holds s whatever backticks it carries.
func mdCode(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdFinding words one listed finding as a list item.
func mdFinding(r *Report, f Finding) string {
	mark := "❌"
	switch {
	case f.Synthetic:
		mark = "🧪 synthetic canary (quarantined)"
	case f.Baseline != nil && !f.Baseline.Expired:
		mark = "☑️ baselined"
	case f.Advisory && !r.Fails(f):
		mark = "💬 advisory"
	case f.Advisory:
		mark = "❌ advisory"
	}
	var where []string
	if f.Iteration != nil {
		where = append(where, fmt.Sprintf("iteration %d", *f.Iteration))
	}
	if rp := RepeatsPhrase(f); rp != "" {
		where = append(where, rp)
	} else if f.Line > 0 {
		where = append(where, fmt.Sprintf("line %d", f.Line))
	}
	if f.Source != "" && f.Source != "recorded" {
		where = append(where, MarkdownEscape(f.Source))
	}
	s := fmt.Sprintf("%s **%s**", mark, MarkdownEscape(orUnrecorded(f.Kind)+" @"+orUnrecorded(f.Seam)))
	if len(where) > 0 {
		s += " · " + strings.Join(where, " · ")
	}
	msg := f.Message
	if msg == "" {
		msg = "(no message recorded)"
	}
	s += " — " + MarkdownEscape(msg)
	if tag := baselineTag(f); tag != "" {
		s += " _" + MarkdownEscape(strings.TrimPrefix(tag, " · ")) + "_"
	}
	return s
}

// mdSummaryLine is the closing line's counts.
func mdSummaryLine(r *Report, s Summary) string {
	line := s.inputsAndRuns()
	defects, advisories, baselined := 0, 0, 0
	for _, run := range r.Runs {
		defects += run.Defects
		advisories += run.Advisories
		baselined += run.Baselined
	}
	line += fmt.Sprintf(" · %s, %s", count(defects, "defect", "defects"), count(advisories, "advisory", "advisories"))
	if baselined > 0 {
		line += fmt.Sprintf(", %d baselined", baselined)
	}
	return line + "."
}
