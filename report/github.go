package report

import (
	"fmt"
	"io"
	"strings"
)

// GitHub Actions workflow commands. The runner reads a command from a line
// of the step's output that starts with "::"; its data (after the second
// "::") and its property values have their own escaping, which is what
// keeps a string from a recording from ending the command or starting
// another one.
var (
	ghData     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// GitHubData escapes a workflow command's message.
func GitHubData(s string) string { return ghData.Replace(s) }

// GitHubProperty escapes a workflow command's property value (file, title).
func GitHubProperty(s string) string { return ghProperty.Replace(s) }

// ghCommand writes one workflow command. Strings from recordings are
// passed through Sanitize by the caller (the Actions log is a terminal), so
// only the line breaks this renderer puts in itself become %0A.
func ghCommand(w *strings.Builder, cmd, file string, line int64, title, msg string) {
	w.WriteString("::" + cmd)
	var props []string
	if file != "" {
		props = append(props, "file="+GitHubProperty(file))
		if line > 0 {
			props = append(props, fmt.Sprintf("line=%d", line))
		}
	}
	if title != "" {
		props = append(props, "title="+GitHubProperty(title))
	}
	if len(props) > 0 {
		w.WriteString(" " + strings.Join(props, ","))
	}
	w.WriteString("::" + GitHubData(msg) + "\n")
}

// RenderGitHub writes the report as GitHub Actions workflow commands: an
// ::error per listed real defect (and per expired baseline entry's
// finding), a ::warning per advisory, a ::notice per unmeasured run or
// input with no run, an ::error per unreadable input, then one plain
// closing line with the same counts as the text report and the bound. Accepted findings
// are not annotated; the closing line counts them.
func RenderGitHub(w io.Writer, r *Report, o RenderOptions) error {
	var b strings.Builder
	if dr := r.Declarations; dr != nil {
		cmd := "warning"
		if dr.Strict {
			cmd = "error"
		}
		for _, u := range dr.Unseen {
			ghCommand(&b, cmd, Sanitize(displayRel(dr.Source, o.Root)), int64(u.Line), "fpcheck: declared tool never seen",
				Sanitize(u.Sentence(dr.Source)+"."))
		}
	}
	copies := copiesByInput(r)
	for i, idx := range runsByInput(r) {
		in := r.Inputs[i]
		file := Sanitize(displayRel(in.Path, o.Root))
		for _, c := range copies[i] {
			ghCommand(&b, "notice", file, c.line(), "fpcheck: copy of a run", Sanitize(copyOfSentence(c)))
		}
		switch {
		case in.Error != "":
			ghCommand(&b, "error", file, 0, "fpcheck: unreadable input", Sanitize(unreadableSentence(&in)))
		case in.noTail():
			ghCommand(&b, failCommand(r.Options.inputCode(&in), "notice"), file, 0, "fpcheck: unmeasured",
				Sanitize(displayPath(in.Path)+" holds no run (no-tail): no evidence, not a clean run."))
		}
		if len(in.LostRuns) > 0 {
			ghCommand(&b, failCommand(r.Options.inputCode(&in), "warning"), file, lostRunLine(in.LostRuns), "fpcheck: evidence damaged",
				Sanitize(strings.TrimPrefix(lostRunsNote(in.LostRuns), "⚠ ")))
		}
		for _, sr := range in.StoppedRuns {
			ghCommand(&b, "error", file, sr.Line, "fpcheck: run stopped at a limit", Sanitize(stoppedRunText(sr)))
		}
		for _, ri := range idx {
			run := &r.Runs[ri]
			file := Sanitize(displayRel(run.Input, o.Root))
			for _, f := range uniqueFindings(run) {
				if f.Baseline != nil && !f.Baseline.Expired {
					continue
				}
				cmd, what := "error", "defect"
				if f.Advisory {
					cmd, what = "warning", "advisory"
				}
				title := fmt.Sprintf("fpcheck %s: %s @%s", what, orUnrecorded(f.Kind), orUnrecorded(f.Seam))
				msg := f.Message
				if msg == "" {
					msg = "(no message recorded)"
				}
				detail := []string{Sanitize(msg), Sanitize("run " + runLabel(run) + " · identity " + f.Identity)}
				if f.Baseline != nil {
					detail = append(detail, "The baseline entry for this finding expired on "+Sanitize(f.Baseline.Expires)+"; it fails again.")
				}
				at, line := f.AnchorAt(run.Input)
				ghCommand(&b, cmd, Sanitize(displayRel(at, o.Root)), line, Sanitize(title), strings.Join(detail, "\n"))
			}
			line := int64(0)
			if run.LineNumbers {
				line = run.FirstLine
			}
			if len(run.Conflicts) > 0 {
				ghCommand(&b, "warning", file, line, "fpcheck: disagreeing copies",
					Sanitize(fmt.Sprintf("Run %s: %s", runLabel(run), strings.TrimPrefix(conflictNote(run), "⚠ "))))
			}
			switch {
			case run.Verdict == VerdictUnmeasured:
				title := "fpcheck: unmeasured"
				if run.Damaged() {
					title = "fpcheck: evidence damaged"
				}
				ghCommand(&b, failCommand(r.Options.runCode(run), "notice"), file, damageLine(run, line), title,
					Sanitize(fmt.Sprintf("Run %s is unmeasured: %s. No evidence its checks ran, not a clean run.", runLabel(run), unmeasuredWhy(run))))
			case run.Damaged():
				ghCommand(&b, "warning", file, damageLine(run, line), "fpcheck: evidence damaged",
					Sanitize(fmt.Sprintf("Run %s: evidence damaged: %s.", runLabel(run), damageText(run))))
			}
		}
	}
	if br := r.Baseline; br != nil {
		for _, e := range br.Stale {
			ghCommand(&b, "notice", "", 0, "fpcheck: stale baseline entry",
				Sanitize("No longer found, remove it from "+br.Path+": "+e.class()+e.Identity))
		}
	}
	// The result line carries the bound, as the text report does: a log
	// reader who sees "bounded green" sees what it bounds.
	s := r.Summarize()
	result := strings.TrimSuffix(fmt.Sprintf("fpcheck: exit %d (%s) — %s", s.ExitCode, s.exitMeaning(), mdPlainSummary(r, s)), ".")
	b.WriteString(Sanitize(result+". "+Bound) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// failCommand is ::error for an annotation about something that fails the
// job, and the given command for one an allowance let pass: a job that
// fails must say why at error level.
func failCommand(code int, allowed string) string {
	if code == ExitGreen {
		return allowed
	}
	return "error"
}

// mdPlainSummary is the summary line without markdown escaping.
func mdPlainSummary(r *Report, s Summary) string {
	return mdSummaryLine(r, s)
}
