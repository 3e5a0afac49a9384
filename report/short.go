package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// FormatShort is one line per finding, as compilers and linters write
// them, so editors and CI problem matchers can jump to it.
const FormatShort = "short"

// ShortLine is the pattern every finding line of --format short matches:
// PATH:LINE: kind@seam: message. The closing RESULT line does not match it.
const ShortLine = `^(.+):(\d+): (\S+@\S+): (.*)$`

// RenderShort writes every listed finding as PATH:LINE: kind@seam: message,
// at the finding's anchor (the event that carried it, or the call it
// judged; the run's first line when nothing narrower is known), then one
// line per unmeasured run at its first line, and a closing RESULT line with
// the exit code, so an empty list can never pass for a clean one.
func RenderShort(w io.Writer, r *Report) error {
	sw := &shortWriter{w: w}
	for i := range r.Runs {
		run := &r.Runs[i]
		for j, f := range run.Findings {
			path, line := anchorLine(run, f)
			kind := orText(f.Kind, "unrecorded") + "@" + orText(f.Seam, "unrecorded")
			msg := orText(f.Message, "(no message recorded)")
			switch {
			case f.Synthetic:
				msg = "synthetic canary, not counted: " + msg
			case f.Advisory:
				msg = "advisory: " + msg
			}
			sw.finding(path, line, kind, msg+" [run "+orNone(run.RunID)+"; "+r.ExplainCommand(run, j)+"]")
		}
		if run.Verdict == VerdictUnmeasured {
			_, line := anchorLine(run, Finding{})
			why := unmeasuredReason(&run.Recorded)
			if run.Damaged() {
				why = "evidence damaged"
			}
			sw.finding(run.Input, line, "unmeasured@run", "run "+orNone(run.RunID)+": "+why+"; no evidence its checks ran, not a clean run")
		}
	}
	s := r.Summarize()
	sw.printf("RESULT exit %d (%s) — %s.\n", s.ExitCode, exitMeaning(s.ExitCode), s.inputsAndRuns())
	return sw.err
}

// RenderDiffShort writes the head's findings as RenderShort does, then the
// diff's own result line.
func RenderDiffShort(w io.Writer, d *Diff) error {
	sw := &shortWriter{w: w}
	if d.Head != nil {
		for i := range d.Head.Runs {
			run := &d.Head.Runs[i]
			for _, f := range run.Findings {
				path, line := anchorLine(run, f)
				sw.finding(path, line, orText(f.Kind, "unrecorded")+"@"+orText(f.Seam, "unrecorded"), orText(f.Message, "(no message recorded)")+" [run "+orNone(run.RunID)+"]")
			}
		}
	}
	sw.printf("RESULT exit %d — %d new defects, %d regressions.\n", d.ExitCode(), d.Totals.NewDefects, d.Totals.Regressions)
	return sw.err
}

// anchorLine is where a finding's line points: its anchor, else the run's
// first line (of a stream; a document's run starts at line 1 as far as
// the report knows).
func anchorLine(run *Run, f Finding) (string, int64) {
	if p, ok := f.Anchor(); ok && p.Line > 0 {
		return PositionPath(run.Input, p), p.Line
	}
	if run.LineNumbers {
		return run.Input, run.FirstLine
	}
	return run.Input, 1
}

type shortWriter struct {
	w   io.Writer
	err error
}

func (s *shortWriter) printf(format string, a ...any) {
	if s.err == nil {
		_, s.err = fmt.Fprintf(s.w, format, a...)
	}
}

// finding writes one line; every field is sanitized, so a recording can
// neither break the line nor fake another.
func (s *shortWriter) finding(path string, line int64, kind, msg string) {
	if line < 1 {
		line = 1
	}
	// A kind with a space would end the kind@seam field early.
	kind = strings.ReplaceAll(Sanitize(kind), " ", "_")
	s.printf("%s:%s: %s: %s\n", Sanitize(displayPath(path)), strconv.FormatInt(line, 10), kind, Sanitize(msg))
}
