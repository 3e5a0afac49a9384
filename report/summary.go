package report

import (
	"fmt"
	"slices"
	"strings"
)

// InputSummary is one input's outcome in a line: what a CI log of many
// recordings shows per recording before the aggregate.
type InputSummary struct {
	Path string
	// Error is why the input could not be read; empty when it was.
	Error string
	Runs  int
	// Green, WithDefects and Unmeasured count the input's runs by verdict.
	Green, WithDefects, Unmeasured int
	// Defects, Advisories and Baselined sum the runs' distinct counts.
	Defects, Advisories, Baselined int
	// ExitCode is the code this input alone would give, under the same
	// rules and precedence as Report.ExitCode.
	ExitCode int
	// Copies counts the input's runs that are copies of a run judged in
	// another input (counted in Runs and by their own verdict, as the
	// input alone would give); JudgedIn names those inputs, in order.
	Copies   int
	JudgedIn []string
	// NotJudged says which of the input's runs were stopped at a limit or
	// lost whole (noRunJudged); empty when none was.
	NotJudged string
}

// runsByInput returns, for each input, the indices of its runs in r.Runs.
// Build appends each input's runs contiguously, RunCount of them less the
// copies judged in another input.
func runsByInput(r *Report) [][]int {
	out := make([][]int, len(r.Inputs))
	next := 0
	for i, in := range r.Inputs {
		for j := 0; j < in.RunCount-in.Copies && next < len(r.Runs); j++ {
			out[i] = append(out[i], next)
			next++
		}
	}
	return out
}

// InputSummaries counts each input's runs by outcome, in input order.
func (r *Report) InputSummaries() []InputSummary {
	var out []InputSummary
	copies := copiesByInput(r)
	for i, idx := range runsByInput(r) {
		in := r.Inputs[i]
		s := InputSummary{Path: in.Path, Error: in.Error, Runs: len(idx) + len(copies[i]), Copies: len(copies[i]), NotJudged: noRunJudged(&in)}
		code := r.Options.inputCode(&in)
		runs := make([]*Run, 0, s.Runs)
		for _, ri := range idx {
			runs = append(runs, &r.Runs[ri])
		}
		for _, c := range copies[i] {
			runs = append(runs, c.alone)
			if !slices.Contains(s.JudgedIn, c.judgedIn) {
				s.JudgedIn = append(s.JudgedIn, c.judgedIn)
			}
		}
		for _, run := range runs {
			switch run.Verdict {
			case VerdictDefects:
				s.WithDefects++
			case VerdictUnmeasured:
				s.Unmeasured++
			default:
				s.Green++
			}
			s.Defects += run.Defects
			s.Advisories += run.Advisories
			s.Baselined += run.Baselined
			code = worseExit(code, r.Options.runCode(run))
		}
		s.ExitCode = code
		out = append(out, s)
	}
	return out
}

// Line words the summary in one line (without the path).
func (s InputSummary) Line() string {
	if s.Error != "" {
		return "unreadable: " + s.Error
	}
	switch {
	case s.Runs == 0 && s.NotJudged != "":
		return "no run judged: " + s.NotJudged
	case s.Runs == 0:
		return "no run (no-tail): no evidence, not a clean run"
	}
	line := count(s.Runs, "run", "runs") + ": " + strings.Join(runOutcomes(s.Green, s.WithDefects, s.Unmeasured), ", ")
	var counts []string
	if s.Defects > 0 {
		counts = append(counts, count(s.Defects, "defect", "defects"))
	}
	if s.Advisories > 0 {
		counts = append(counts, count(s.Advisories, "advisory", "advisories"))
	}
	if s.Baselined > 0 {
		counts = append(counts, fmt.Sprintf("%d baselined", s.Baselined))
	}
	if len(counts) > 0 {
		line += " (" + strings.Join(counts, ", ") + ")"
	}
	if s.Copies > 0 {
		what := "a copy of a run"
		if s.Copies > 1 {
			what = fmt.Sprintf("%d of them copies of runs", s.Copies)
		}
		line += fmt.Sprintf("; %s judged in %s, counted there", what, strings.Join(mapSlice(s.JudgedIn, displayPath), ", "))
	}
	if s.NotJudged != "" {
		line += "; not judged: " + s.NotJudged
	}
	return line
}

func mapSlice(ss []string, f func(string) string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = f(s)
	}
	return out
}

// textExtras writes what comes between the runs and the closing line: the
// baseline's account, and with several inputs one line per input, so a CI
// log of many recordings ends with a scannable list before the aggregate.
func textExtras(t *textWriter, r *Report) {
	if br := r.Baseline; br != nil {
		head, lines := baselineSentences(br)
		t.blank()
		st := styleBold
		if len(br.Expired) > 0 {
			st = styleDefects
		}
		t.line(0, st, head)
		for _, l := range lines {
			t.line(2, noteStyle(l), l)
		}
	}
	if len(r.Inputs) < 2 {
		return
	}
	t.blank()
	t.line(0, styleBold, "PER INPUT (exit code each input alone would give)")
	for _, s := range r.InputSummaries() {
		t.line(2, exitStyle(s.ExitCode), fmt.Sprintf("exit %d  %s — %s", s.ExitCode, displayPath(s.Path), s.Line()))
	}
}

// baselineTag marks a listed finding the baseline names.
func baselineTag(f Finding) string {
	b := f.Baseline
	switch {
	case b == nil:
		return ""
	case b.Expired:
		return " · ⚠ BASELINE EXPIRED on " + b.Expires + " (fails again)"
	}
	s := " · BASELINED (accepted"
	if b.Reason != "" {
		s += ": " + b.Reason
	}
	if b.Expires != "" {
		s += "; until " + b.Expires
	}
	return s + "; does not fail)"
}

// Fails reports whether a finding of the run counts against the gate: a
// real finding the baseline does not accept that is a defect, or an
// advisory under --fail-on advisory or drift (drift includes advisory).
// Renderers use it to tell a failing finding from one that is only shown;
// it agrees with the verdict by construction.
func (r *Report) Fails(f Finding) bool {
	if f.Synthetic || (f.Baseline != nil && !f.Baseline.Expired) {
		return false
	}
	return !f.Advisory || r.Options.failOn() != FailOnDefect
}

// uniqueFindings returns the run's listed real findings, one per identity
// (the first listing of each), with synthetic canaries left out: the
// machine formats report one result per defect per run.
func uniqueFindings(run *Run) []Finding {
	return firstOf(run.Findings, identityOf)
}

// runLabel names a run for one-line formats.
func runLabel(run *Run) string {
	if run.RunID == "" {
		return "(no run id)"
	}
	return run.RunID
}

// unmeasuredWhy says why a run is unmeasured, in words.
func unmeasuredWhy(run *Run) string {
	if run.DamagedOnly {
		return "evidence damaged: " + damageText(run)
	}
	why := unmeasuredReason(run.Recorded)
	if run.CheckerDead != "" {
		why = "dead checker: " + run.CheckerDead
	}
	if run.Damaged() {
		why += "; evidence damaged too: " + damageText(run)
	}
	return why
}

// runOutcomes words how many runs ended green, with defects and unmeasured,
// leaving out the outcomes no run had.
func runOutcomes(green, defects, unmeasured int) []string {
	var parts []string
	if green > 0 {
		parts = append(parts, fmt.Sprintf("%d green", green))
	}
	if defects > 0 {
		parts = append(parts, fmt.Sprintf("%d with defects", defects))
	}
	if unmeasured > 0 {
		parts = append(parts, fmt.Sprintf("%d unmeasured", unmeasured))
	}
	return parts
}

// inputsAndRuns words the report's size and outcome: "3 inputs (1
// unreadable), 4 runs: 3 green, 1 with defects".
func (s Summary) inputsAndRuns() string {
	line := count(s.Inputs, "input", "inputs")
	if s.Inputs == 0 && s.Shard != nil {
		line += fmt.Sprintf(" (shard %s drew none: nothing measured)", s.Shard)
	}
	var flaws []string
	if s.Unreadable > 0 {
		flaws = append(flaws, fmt.Sprintf("%d unreadable", s.Unreadable))
	}
	if s.Empty > 0 {
		flaws = append(flaws, fmt.Sprintf("%d with no run", s.Empty))
	}
	if s.LostRuns > 0 {
		flaws = append(flaws, fmt.Sprintf("%d with a run lost whole", s.LostRuns))
	}
	if s.StoppedRuns > 0 {
		flaws = append(flaws, fmt.Sprintf("%d with a run stopped at a limit", s.StoppedRuns))
	}
	if len(flaws) > 0 {
		line += " (" + strings.Join(flaws, ", ") + ")"
	}
	line += ", " + count(s.Runs, "run", "runs")
	if parts := runOutcomes(s.Green, s.Defects, s.Unmeasured); len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	if s.Damaged > 0 {
		line += fmt.Sprintf(" (%d with damaged evidence)", s.Damaged)
	}
	if s.Copies > 0 {
		line += fmt.Sprintf("; %s of them in other inputs, counted once", count(s.Copies, "copy", "copies"))
	}
	return line
}
