package report

import (
	"fmt"
	"io"
	"strings"
)

// RenderDiffText writes the diff for a person: per input pair and run pair,
// the coverage on each side, the findings new, persisting and resolved, the
// checks that changed, the regressions, and whether the head is measured;
// then a closing line with the exit code. Every line passes through
// Sanitize.
func RenderDiffText(w io.Writer, d *Diff, o TextOptions) error {
	t := newTextWriter(w, o)
	t.line(0, styleBold, fmt.Sprintf("fpcheck diff — base %s → head %s", displayPath(d.BaseName), displayPath(d.HeadName)))
	if d.HeadEmpty {
		t.blank()
		t.line(2, styleUnmeasured, "⚠ The head holds no recording (every file found was skipped, as stderr says): nothing in it is measured.")
	}
	for i := range d.Inputs {
		in := &d.Inputs[i]
		t.blank()
		textDiffInput(t, d, in)
	}
	t.blank()
	textDiffBaseline(t, d)
	if len(d.Inputs) > 1 {
		t.line(0, styleBold, "PER SCENARIO (exit code each scenario alone would give)")
		for i := range d.Inputs {
			in := &d.Inputs[i]
			code := in.ExitCode(d.Options)
			t.line(2, exitStyle(code), fmt.Sprintf("exit %d  %s — %s", code, displayPath(in.Name), in.summaryLine()))
		}
		t.blank()
	}
	code := d.ExitCode()
	t.line(0, exitStyle(code), d.resultLine("RESULT"))
	t.line(0, styleDim, "Exit codes: 0 no regression · 1 a new defect or a coverage regression · 2 usage, an unreadable input or a run stopped at a limit · 3 head unmeasured or runs not compared. 2 outranks 1, 1 outranks 3, and 3 outranks 0.")
	t.line(0, styleDim, DiffBound)
	return t.err
}

func textDiffInput(t *textWriter, d *Diff, in *InputDiff) {
	head := "INPUT " + displayPath(in.Name)
	switch {
	case in.Base == nil:
		head += " (head only: no base recording of that name)"
	case in.Head == nil:
		head += " (base only: no head recording of that name)"
	}
	t.line(0, styleBold, head)
	for _, side := range []struct {
		label string
		in    *Input
	}{{"base", in.Base}, {"head", in.Head}} {
		if side.in != nil && side.in.Error != "" {
			t.line(2, styleDefects, fmt.Sprintf("⚠ %s unreadable: %s. Nothing from it is compared.", side.label, side.in.Error))
		}
	}
	for _, l := range in.losses() {
		st := styleUnmeasured
		if l.stopped {
			st = styleDefects
		}
		t.line(2, st, "⚠ "+l.side+": "+l.sentence)
	}
	if in.Head != nil && in.Head.noTail() {
		t.line(2, styleUnmeasured, "⚠ The head holds no run (no-tail): nothing in it is measured.")
	}
	for _, r := range in.Regressions {
		t.line(2, styleDefects, "⚠ REGRESSION — "+r.Sentence)
	}
	for i := range in.Runs {
		t.blank()
		textDiffRun(t, d, &in.Runs[i])
	}
}

func textDiffRun(t *textWriter, d *Diff, rd *RunDiff) {
	how := rd.MatchedBy
	switch {
	case rd.Unmatched:
		how = "not compared: " + how
	case how == MatchedByRunID || how == MatchedByScenario || how == MatchedByPrompt || how == MatchedByPromptOrder:
		how = "matched by " + how
	}
	t.line(2, styleBold, fmt.Sprintf("RUN %d · %s (%s)", rd.Position, runPairLabel(rd), how))
	if rd.Base != nil && rd.Head != nil {
		var parts []string
		parts = append(parts, fmt.Sprintf("recorded %s → %s", rd.Base.Recorded.Coverage, rd.Head.Recorded.Coverage))
		if rd.Base.Replayed != nil && rd.Head.Replayed != nil {
			parts = append(parts, fmt.Sprintf("replayed %s → %s", rd.Base.Replayed.Coverage, rd.Head.Replayed.Coverage))
		}
		t.line(4, styleDim, "coverage: "+strings.Join(parts, " · "))
	}
	if len(rd.Findings) == 0 {
		t.line(4, styleDim, "findings: none on either side")
	}
	for _, fc := range rd.Findings {
		st := stylePlain
		if fc.Fails {
			st = styleDefects
		}
		t.hang(4, 8, st, diffFindingHead(fc))
		msg := fc.Finding.Message
		if msg == "" {
			msg = "⚠ (no message recorded on this finding)"
		}
		t.line(8, stylePlain, msg)
		t.line(8, styleDim, "identity: "+fc.Finding.Identity)
	}
	for _, c := range rd.Checks {
		if !c.Regression {
			t.line(4, styleDim, c.Sentence)
		}
	}
	for _, r := range rd.Regressions {
		t.line(4, styleDefects, "⚠ REGRESSION — "+r.Sentence)
	}
	if rd.Unmatched {
		t.line(4, styleUnmeasured, "⚠ NOT COMPARED — "+rd.UnmatchedWhy)
	}
	if rd.HeadUnmeasured {
		t.line(4, styleUnmeasured, "⚠ HEAD UNMEASURED — "+rd.HeadUnmeasuredWhy+": nothing proves the head's checks ran.")
	}
}

// diffFindingHead words a finding change's first line.
func diffFindingHead(fc FindingChange) string {
	f := fc.Finding
	what := "defect"
	if f.Advisory {
		what = "advisory"
	}
	s := fmt.Sprintf("%s %s %s @%s", strings.ToUpper(fc.Change), what, orUnrecorded(f.Kind), orUnrecorded(f.Seam))
	if f.Iteration != nil {
		s += fmt.Sprintf(" · iteration %d", *f.Iteration)
	}
	if f.Line > 0 {
		s += fmt.Sprintf(" · line %d", f.Line)
	}
	if fc.Change != ChangeResolved {
		s += baselineTag(f)
	}
	if fc.Fails {
		s += " · FAILS"
	}
	return s
}

func textDiffBaseline(t *textWriter, d *Diff) {
	br := d.Head.Baseline
	if br == nil {
		return
	}
	head, lines := baselineSentences(br)
	t.line(0, styleBold, head)
	for _, l := range lines {
		t.line(2, noteStyle(l), l)
	}
	t.blank()
}
