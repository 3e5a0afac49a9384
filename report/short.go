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

// RenderShort writes, per input, what the input itself lost (shortInput),
// then every listed finding of its runs as PATH:LINE: kind@seam: message,
// at the finding's anchor (the event that carried it, or the call it
// judged; the run's first line when nothing narrower is known), one
// line per unmeasured run at its first line, one per disagreeing copies and
// one per copy of a run judged elsewhere (copy@run, at the copy's own
// input); then one line per declared tool no run showed, and a closing
// RESULT line with the exit code, so an empty list can never pass for a
// clean one.
func RenderShort(w io.Writer, r *Report) error {
	sw := &shortWriter{w: w}
	for i, idx := range runsByInput(r) {
		sw.input(&r.Inputs[i])
		for _, ri := range idx {
			sw.run(r, &r.Runs[ri])
		}
	}
	if dr := r.Declarations; dr != nil {
		for _, u := range dr.Unseen {
			sw.finding(dr.Source, int64(u.Line), "unseen@declarations", u.what())
		}
	}
	s := r.Summarize()
	sw.printf("RESULT exit %d (%s) — %s.\n", s.ExitCode, s.exitMeaning(), s.inputsAndRuns())
	return sw.err
}

// input writes one line per problem of the input itself, in the words
// every other format uses: a read error at its line (unreadable@input),
// each run stopped at a limit (stopped@run), the runs lost whole
// (lost@input), and an input read whole that holds no run
// (unmeasured@input).
func (sw *shortWriter) input(in *Input) {
	if in.Error != "" {
		sw.finding(in.Path, in.ErrorLine, "unreadable@input", unreadableSentence(in))
	}
	for _, sr := range in.StoppedRuns {
		sw.finding(in.Path, sr.Line, "stopped@run", stoppedRunText(sr))
	}
	if len(in.LostRuns) > 0 {
		sw.finding(in.Path, lostRunLine(in.LostRuns), "lost@input", strings.TrimPrefix(lostRunsNote(in.LostRuns), "⚠ "))
	}
	if in.noTail() {
		sw.finding(in.Path, 1, "unmeasured@input", strings.TrimPrefix(noTailNote, "⚠ "))
	}
}

// run writes one run's lines.
func (sw *shortWriter) run(r *Report, run *Run) {
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
		why := unmeasuredReason(run.Recorded)
		if run.Damaged() {
			// At the first line lost, as github and SARIF place it.
			why, line = "evidence damaged", damageLine(run, line)
		}
		sw.finding(run.Input, line, "unmeasured@run", "run "+orNone(run.RunID)+": "+why+"; no evidence its checks ran, not a clean run")
	}
	_, line := anchorLine(run, Finding{})
	if len(run.Conflicts) > 0 {
		sw.finding(run.Input, line, "disagreeing@run", "run "+orNone(run.RunID)+": "+strings.TrimPrefix(conflictNote(run), "⚠ "))
	}
	for j := range run.Copies {
		c := &run.Copies[j]
		sw.finding(c.Input, c.line(), "copy@run", copyOfSentence(c))
	}
}

// RenderDiffShort writes what the diff holds against the head, one line
// each at its place: every new finding (and a persisting one whose
// baseline entry expired) at its anchor, every regression, every run not
// compared and every unmeasured head run at the input, every input of
// either side that could not be read, at its line, and a head input that
// holds no run; then the diff's result
// line. Persisting and resolved findings are the base's story, not
// a problem to jump to.
func RenderDiffShort(w io.Writer, d *Diff) error {
	sw := &shortWriter{w: w}
	for i := range d.Inputs {
		in := &d.Inputs[i]
		for _, side := range []*Input{in.Base, in.Head} {
			if side != nil && side.Error != "" {
				sw.finding(side.Path, side.ErrorLine, "unreadable@input", "Unreadable: "+side.Error+". Nothing from it is compared.")
			}
		}
		for _, l := range in.losses() {
			sw.finding(l.path, l.line, l.kind, l.side+": "+l.sentence)
		}
		if in.Head != nil && in.Head.noTail() {
			sw.finding(in.Head.Path, 1, "unmeasured@input", "The head holds no run (no-tail): nothing in it is measured.")
		}
		for _, reg := range in.Regressions {
			sw.finding(in.headInputPath(), 1, "regression@"+reg.Kind, reg.Sentence)
		}
		for j := range in.Runs {
			rd := &in.Runs[j]
			for _, fc := range rd.Findings {
				if fc.Change == ChangeResolved || (fc.Change == ChangePersisting && !fc.Fails) {
					continue
				}
				f := fc.Finding
				path, line := anchorLine(rd.Head, f)
				msg := orText(f.Message, "(no message recorded)")
				if f.Advisory {
					msg = "advisory: " + msg
				}
				state := fc.Change
				if fc.Fails {
					state += ", fails"
				}
				sw.finding(path, line, orText(f.Kind, "unrecorded")+"@"+orText(f.Seam, "unrecorded"), msg+" ["+state+"; run "+orNone(rd.Head.RunID)+"]")
			}
			run := rd.run()
			_, line := anchorLine(run, Finding{})
			for _, reg := range rd.Regressions {
				sw.finding(run.Input, line, "regression@"+reg.Kind, reg.Sentence)
			}
			if rd.Unmatched {
				sw.finding(run.Input, line, "not-compared@run", rd.UnmatchedWhy)
			}
			if rd.HeadUnmeasured {
				sw.finding(run.Input, line, "unmeasured@run", "head run "+orNone(run.RunID)+": "+rd.HeadUnmeasuredWhy+"; no evidence its checks ran")
			}
		}
	}
	sw.printf("%s\n", Sanitize(d.resultLine("RESULT")))
	return sw.err
}

// anchorLine is where a finding's line points: its anchor, else the run's
// first line in a stream. A document's run is placed by its position among
// the document's events (FirstLine), which is no line even in a
// pretty-printed document, so it points at the document, line 1.
func anchorLine(run *Run, f Finding) (string, int64) {
	if at, line := f.AnchorAt(run.Input); line > 0 {
		return at, line
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
	s.printf("%s:%s: %s: %s\n", noLocation(Sanitize(displayPath(path))), strconv.FormatInt(line, 10), kind, noLocation(Sanitize(msg)))
}

// noLocation writes the ':' of every ":N: " in s as \x3a, so that a path
// or message cannot hold a second PATH:LINE: for ShortLine (or a problem
// matcher, greedy or not) to take in place of the line's own.
func noLocation(s string) string {
	var b strings.Builder
	from := 0
	for i := 0; i < len(s); i++ {
		if s[i] != ':' {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i+1 || !strings.HasPrefix(s[j:], ": ") {
			continue
		}
		b.WriteString(s[from:i])
		b.WriteString(`\x3a`)
		from = i + 1
	}
	if from == 0 {
		return s
	}
	b.WriteString(s[from:])
	return b.String()
}
