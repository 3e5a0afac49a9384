package report

// ExitCode is the one mapping from a report to the process exit code; every
// output format gives the same code.
//
// Each input and run contributes a code:
//   - an input that could not be read: 2 (ExitUnreadable);
//   - a readable input with no run at all (no-tail): 3 (ExitUnmeasured);
//   - a run whose verdict is defects: 1 (ExitDefects). Defects are real
//     findings at or above Options.FailOn, and evidence missing (the ledger
//     counts findings the events no longer carry) always counts;
//   - a run whose verdict is unmeasured: 3 (coverage no-tail,
//     no-integrity-events, no-disposition, no-check-registered or
//     nothing-checked, or a registered check that never ran);
//   - a green run: 0.
//
// AllowUnmeasured turns every 3 into 0. A report with no input at all is
// unmeasured too: an empty invocation must not look green.
//
// Several codes combine by precedence, not by number: 2 > 1 > 3 > 0. An
// unreadable input beats everything, because the report is incomplete; a
// proven defect beats missing coverage, because it is the more actionable
// news and a fix for it does not depend on the coverage being repaired.
// Kind and Limit never change the code: a filter changes what is shown,
// never what is judged.
func (r *Report) ExitCode() int {
	code := ExitGreen
	raise := func(c int) {
		if c == ExitUnmeasured && r.Options.AllowUnmeasured {
			c = ExitGreen
		}
		if exitRank(c) > exitRank(code) {
			code = c
		}
	}
	if len(r.Inputs) == 0 {
		raise(ExitUnmeasured)
	}
	for _, in := range r.Inputs {
		switch {
		case in.Error != "":
			raise(ExitUnreadable)
		case in.RunCount == 0:
			raise(ExitUnmeasured)
		}
	}
	for _, run := range r.Runs {
		raise(verdictCode(run.Verdict))
	}
	return code
}

// verdictCode is a run's own exit code before AllowUnmeasured.
func verdictCode(v Verdict) int {
	switch v {
	case VerdictDefects:
		return ExitDefects
	case VerdictUnmeasured:
		return ExitUnmeasured
	}
	return ExitGreen
}

// exitRank orders exit codes by precedence: 2 > 1 > 3 > 0.
func exitRank(code int) int {
	switch code {
	case ExitUnreadable:
		return 3
	case ExitDefects:
		return 2
	case ExitUnmeasured:
		return 1
	}
	return 0
}

// Summary counts the report's outcome for a closing line.
type Summary struct {
	Inputs, Unreadable, Empty int
	Runs, Green, Defects      int
	Unmeasured                int
	Conversations             int
	ExitCode                  int
}

// Summarize counts inputs and runs by outcome.
func (r *Report) Summarize() Summary {
	s := Summary{Inputs: len(r.Inputs), Runs: len(r.Runs), Conversations: len(r.Conversations), ExitCode: r.ExitCode()}
	for _, in := range r.Inputs {
		switch {
		case in.Error != "":
			s.Unreadable++
		case in.RunCount == 0:
			s.Empty++
		}
	}
	for _, run := range r.Runs {
		switch run.Verdict {
		case VerdictDefects:
			s.Defects++
		case VerdictUnmeasured:
			s.Unmeasured++
		default:
			s.Green++
		}
	}
	return s
}
