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
	print  printReader
}

// NewRunReader starts reading run, whose events are then handed to Add.
func NewRunReader(run *recording.Run) *RunReader {
	return &RunReader{run: run, print: newPrintReader()}
}

// Add reads one event of the run; nothing of it is kept past the call but
// digests.
func (r *RunReader) Add(ev *recording.Event) {
	r.events++
	r.prompt.add(ev)
	r.print.add(ev)
}

// Result is the run's result with its recorded evidence, once its last
// event is read.
func (r *RunReader) Result(recorded *replay.Evidence) RunResult {
	run := r.run
	return RunResult{
		Input:       run.Input,
		RunID:       run.ID,
		SessionID:   run.SessionID,
		PromptKey:   r.prompt.key,
		Events:      r.events,
		HeadMissing: run.HeadMissing,
		FirstLine:   run.FirstLine,
		Recorded:    recorded,
		Print:       r.print.result(),
	}
}

// NewRunResult reads a loaded run's recorded evidence.
func NewRunResult(run *recording.Run) RunResult {
	r := NewRunReader(run)
	for i := range run.Events {
		r.Add(&run.Events[i])
	}
	return r.Result(replay.Recorded(run.Events))
}
