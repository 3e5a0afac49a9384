package report

import "fmt"

// StderrLines are what the CLI writes to stderr beside the report, so that a
// CI log shows what a machine format on stdout (or in a file) says: one
// warning per declared tool no run showed, whatever the format, and, when
// stdout does not carry the text report, one summary line with the result,
// the exit code, the damaged inputs and the unseen declarations, as linters
// do. Strings from recordings are sanitized: the log is a terminal.
func (r *Report) StderrLines(textOnStdout bool) []string {
	var out []string
	if dr := r.Declarations; dr != nil {
		level := "warning"
		if dr.Strict {
			level = "error"
		}
		for _, u := range dr.Unseen {
			out = append(out, Sanitize(fmt.Sprintf("fpcheck: %s: %s.", level, u.Sentence(dr.Source))))
		}
	}
	if textOnStdout {
		return out
	}
	for _, sk := range r.Skipped {
		out = append(out, sk.StderrLine())
	}
	s := r.Summarize()
	line := fmt.Sprintf("fpcheck: exit %d (%s) — %s", s.ExitCode, s.exitMeaning(), s.inputsAndRuns())
	if damaged := r.damagedInputs(); len(damaged) > 0 {
		line += "; evidence damaged in " + nameList(damaged, 3)
	}
	if dr := r.Declarations; dr != nil && len(dr.Unseen) > 0 {
		line += "; " + count(len(dr.Unseen), "declared tool", "declared tools") + " in no run"
	}
	return append(out, Sanitize(line+"."))
}

// damagedInputs names, in input order, the inputs with a damaged run or a
// run lost whole.
func (r *Report) damagedInputs() []string {
	var out []string
	for i, idx := range runsByInput(r) {
		in := r.Inputs[i]
		damaged := len(in.LostRuns) > 0
		for _, ri := range idx {
			damaged = damaged || r.Runs[ri].Damaged()
		}
		if damaged {
			out = append(out, displayPath(in.Path))
		}
	}
	return out
}
