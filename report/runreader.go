package report

import (
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

// RunReader reads what a report says of a run besides its evidence (its
// prompt key, its print, its size) from the run's events as they are read,
// so that a run folded by the loader need not be held whole for it.
type RunReader struct {
	run    *recording.Run
	events int
	prompt promptKeyReader
	// print is nil when the run's print is not wanted (NewRunReader).
	print *printReader
}

// NewRunReader starts reading run, whose events are then handed to Add.
// Without prints the result has no Print: a print is what tells a run's
// copies in other inputs apart and what a JSON report keeps for a later
// merge, and it costs a hash of every integrity event and about 0.5 KB a
// run held until the report is written.
func NewRunReader(run *recording.Run, prints bool) *RunReader {
	r := &RunReader{run: run}
	if prints {
		p := newPrintReader()
		r.print = &p
	}
	return r
}

// Add reads one event of the run; nothing of it is kept past the call but
// digests.
func (r *RunReader) Add(ev *recording.Event) {
	r.events++
	r.prompt.add(ev)
	if r.print != nil {
		r.print.add(ev)
	}
}

// Result is the run's result with its recorded evidence, once its last
// event is read.
func (r *RunReader) Result(recorded *replay.Evidence) RunResult {
	run := r.run
	var print *RunPrint
	if r.print != nil {
		print = r.print.result()
	}
	return RunResult{
		Input:       run.Input,
		RunID:       run.ID,
		SessionID:   run.SessionID,
		PromptKey:   r.prompt.key,
		Events:      r.events,
		HeadMissing: run.HeadMissing,
		FirstLine:   run.FirstLine,
		Recorded:    recorded,
		Print:       print,
	}
}

// NewRunResult reads a loaded run's recorded evidence.
func NewRunResult(run *recording.Run) RunResult {
	r := NewRunReader(run, true)
	for i := range run.Events {
		r.Add(&run.Events[i])
	}
	return r.Result(replay.Recorded(run.Events))
}
