package report

import "strings"

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
// With StrictDeclarations, a declared tool no run offered or called is 2:
// the declarations cannot be honoured as written.
//
// A run whose input lost lines that may have been its own (Run.Damage) is
// unmeasured unless it carries a proven defect, and so is an input that lost
// a run whole (Input.LostRuns): 3.
//
// AllowUnmeasured turns every 3 into 0; AllowDamaged only those of runs
// unmeasured for their damage alone, and of inputs that lost a run. A report with no input at all is
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
	if len(r.Inputs) == 0 && !r.Options.AllowUnmeasured {
		code = ExitUnmeasured
	}
	for _, in := range r.Inputs {
		code = worseExit(code, r.Options.inputCode(&in))
	}
	for i := range r.Runs {
		code = worseExit(code, r.Options.runCode(&r.Runs[i]))
	}
	if dr := r.Declarations; dr != nil && dr.Strict && len(dr.Unseen) > 0 {
		code = worseExit(code, ExitUnreadable)
	}
	return code
}

// inputCode is an input's own exit code, apart from its runs' codes, with
// the allowances applied.
func (o Options) inputCode(in *Input) int {
	switch {
	case in.Error != "", len(in.StoppedRuns) > 0:
		return ExitUnreadable
	case in.RunCount == 0:
		return o.allow(ExitUnmeasured, false)
	case len(in.LostRuns) > 0:
		return o.allow(ExitUnmeasured, true)
	}
	return ExitGreen
}

// runCode is a run's exit code with the allowances applied.
func (o Options) runCode(run *Run) int {
	return o.allow(verdictCode(run.Verdict), run.DamagedOnly)
}

// allow applies AllowUnmeasured, and AllowDamaged to a code unmeasured
// only for damaged evidence.
func (o Options) allow(code int, damagedOnly bool) int {
	if code == ExitUnmeasured && (o.AllowUnmeasured || damagedOnly && o.AllowDamaged) {
		return ExitGreen
	}
	return code
}

// worseExit is the code of higher precedence.
func worseExit(a, b int) int {
	if exitRank(b) > exitRank(a) {
		return b
	}
	return a
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
	// Empty counts the inputs read that hold no run at all (no-tail).
	Inputs, Unreadable, Empty int
	Runs, Green, Defects      int
	Unmeasured                int
	// Damaged counts runs whose evidence is damaged, whatever their
	// verdict; LostRuns the inputs that lost a run whole.
	Damaged, LostRuns int
	// StoppedRuns counts the inputs with a run stopped at a limit of its
	// own (Input.StoppedRuns).
	StoppedRuns int
	// Copies counts the inputs' runs that are copies of a run counted
	// once, elsewhere (Run.Copies); they are not in Runs.
	Copies        int
	Conversations int
	// StrictUnseen counts the declared tools no run showed when
	// --strict-declarations makes them exit 2.
	StrictUnseen int
	ExitCode     int
	// Shard is the shard the report holds, nil for all the inputs: a
	// shard that drew no input says so, not only "0 inputs".
	Shard *Shard
}

// exitMeaning words the exit code by what set it: the one label every
// format and the stderr summary line give it.
func (s Summary) exitMeaning() string {
	switch s.ExitCode {
	case ExitDefects:
		return "defects"
	case ExitUnreadable:
		return unreadableMeaning(s.Unreadable, s.StoppedRuns, s.StrictUnseen)
	case ExitUnmeasured:
		return "unmeasured"
	}
	// --allow-unmeasured or --allow-damaged let an unmeasured run pass:
	// the exit is 0, but what passed was not a bounded green.
	if s.Unmeasured > 0 || s.Empty > 0 || s.LostRuns > 0 {
		return "unmeasured, allowed"
	}
	return "bounded green"
}

// unreadableMeaning words what made an exit code 2, of analyze or diff:
// each cause present. An exit 2 of none of them is an input that could
// not be read.
func unreadableMeaning(unreadable, stopped, strictUnseen int) string {
	var why []string
	if unreadable > 0 {
		why = append(why, "unreadable input")
	}
	if stopped > 0 {
		why = append(why, "run stopped at a limit")
	}
	if strictUnseen > 0 {
		why = append(why, "--strict-declarations: a declared tool in no run")
	}
	if len(why) == 0 {
		return "unreadable input"
	}
	return strings.Join(why, ", ")
}

// incomplete reports whether some input was not read whole: one could not
// be read past a point, or a run of one was stopped at a limit.
func (s Summary) incomplete() bool { return s.Unreadable > 0 || s.StoppedRuns > 0 }

// Summarize counts inputs and runs by outcome.
func (r *Report) Summarize() Summary {
	s := Summary{Inputs: len(r.Inputs), Runs: len(r.Runs), Conversations: len(r.Conversations), ExitCode: r.ExitCode(), Shard: r.Provenance.Shard}
	if dr := r.Declarations; dr != nil && dr.Strict {
		s.StrictUnseen = len(dr.Unseen)
	}
	for _, in := range r.Inputs {
		switch {
		case in.Error != "":
			s.Unreadable++
		case in.noTail():
			s.Empty++
		}
		if len(in.LostRuns) > 0 {
			s.LostRuns++
		}
		if len(in.StoppedRuns) > 0 {
			s.StoppedRuns++
		}
	}
	for _, run := range r.Runs {
		s.Copies += len(run.Copies)
		if run.Damaged() {
			s.Damaged++
		}
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
