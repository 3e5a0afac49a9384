package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/internal/objstore"
	"github.com/fpcheck/fpcheck/internal/relay"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
	"github.com/fpcheck/fpcheck/report"
)

// loadOptions are the loader and replay knobs analyze and diff share.
type loadOptions struct {
	Declarations         string
	Posture              string
	Jobs                 int
	NoRotated            bool
	MaxLineBytes         int64
	MaxDecompressedBytes int64
	MaxEventsPerRun      int
	MaxRunBytes          int64
	MaxRunsInFlight      int
	MaxNesting           int
	MaxPackedExpansion   int64
	// Encounters keeps where each replayed encounter happened, for the
	// HTML report's timelines; set when that format is written.
	Encounters bool
	// Explain keeps each run as loaded, every payload included, for a
	// report that shows each finding whole (the HTML report): memory then
	// grows with the recordings rather than staying bounded.
	Explain bool
	// NoPrints leaves out each run's print (report.NewRunReader): set when
	// the invocation reads one input, so no run can have a copy in
	// another, and writes no JSON report, which would keep them.
	NoPrints bool
	// Exclude are the --exclude patterns (addExcludeFlag): the paths the
	// command's arguments expand to that it does not read.
	Exclude []string
	// read holds each declarations file as the invocation first read it,
	// shared by every copy of these options (addLoadFlags): a pipe is empty
	// when read again and a FIFO blocks, and a file changed between two
	// reads would have the report hold against the recordings names the
	// replay never armed.
	read *declReads
}

// pipeline turns CLI arguments into report inputs: expand, load each input
// (in parallel, results kept in input order), and for each run read the
// recorded evidence and replay the checks.
type pipeline struct {
	opts  loadOptions
	decls *checks.Declarations
	// declNames are the places the declarations file names a tool, on
	// their lines: what the report holds against the recordings.
	declNames []checks.NamedTool
	declText  string
	// tools keeps the tools each run showed that the declarations name or
	// nearly name; nil when they name none.
	tools *report.ToolFilter
	// workers is how many goroutines decode each input's events, and how
	// many of its runs are replayed at once: -j is the whole budget of
	// cores, shared by the inputs read at once, so -j 1 really uses one
	// core and a single input still gets every core.
	workers int
	// spare counts the cores of the budget no input holds: those the
	// inputs read at once leave over, and those of workers with no input
	// left to start. A stream read on one core borrows them
	// (recording.Options.Spare) and gives them back when it ends.
	spare atomic.Int64
	// pan carries panics out of run's goroutines.
	pan *relay.Panic
	// store opens the object storage inputs.
	store *objstore.Store
	// finished, when not nil, is handed each input's result as soon as it
	// is read, from the worker that read it.
	finished func(i int, res report.InputResult)
}

func newPipeline(o loadOptions) (*pipeline, error) {
	p := &pipeline{opts: o}
	if o.Posture != "" && o.Posture != "observe" && o.Posture != "dev" {
		return nil, flagErrorf("--posture must be observe or dev, not %q", o.Posture)
	}
	if err := o.validateLimits(); err != nil {
		return nil, err
	}
	df, err := o.declarations()
	if err != nil {
		return nil, err
	}
	p.decls, p.declNames, p.declText = df.decls, df.names, df.text
	if len(p.declNames) > 0 {
		p.tools = report.NewToolFilter(p.decls)
	}
	if p.posture() == "dev" {
		if err := checks.RunCanaries(checks.Registry); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// declFile is a declarations file as read: what it declares, the places
// it names a tool, its text and the digest of its bytes. All zero without a
// file.
type declFile struct {
	decls  *checks.Declarations
	names  []checks.NamedTool
	text   string
	digest string
}

// declReads are the declarations files an invocation read, by path.
type declReads struct {
	mu    sync.Mutex
	files map[string]*declFile
}

// declarations reads and parses the declarations file the options name,
// once for the whole invocation however many times it is asked for.
func (o loadOptions) declarations() (*declFile, error) {
	if o.Declarations == "" {
		return &declFile{}, nil
	}
	if o.read == nil {
		return readDeclarations(o.Declarations)
	}
	o.read.mu.Lock()
	defer o.read.mu.Unlock()
	if df, ok := o.read.files[o.Declarations]; ok {
		return df, nil
	}
	df, err := readDeclarations(o.Declarations)
	if err != nil {
		return nil, err
	}
	if o.read.files == nil {
		o.read.files = map[string]*declFile{}
	}
	o.read.files[o.Declarations] = df
	return df, nil
}

// declarationsDigest is the digest of the declarations file as
// declarations read it ("" without one).
func (o loadOptions) declarationsDigest() (string, error) {
	df, err := o.declarations()
	if err != nil {
		return "", err
	}
	return df.digest, nil
}

// readDeclarations reads and parses the declarations file at path.
func readDeclarations(path string) (*declFile, error) {
	data, err := readSmallFile(path, "declarations file")
	if err != nil {
		return nil, &FlagError{Err: fmt.Errorf("reading declarations: %w", err)}
	}
	d, err := checks.ParseDeclarations(path, data)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	return &declFile{decls: d, names: checks.PlaceToolNames(d.ToolNames(), data), text: string(data),
		digest: "sha256:" + hex.EncodeToString(sum[:])}, nil
}

// validateLimits refuses a negative limit: 0 means the default, and a
// negative one read as the default too would raise a limit the user meant
// to lower.
func (o loadOptions) validateLimits() error {
	for _, l := range []struct {
		flag string
		v    int64
	}{
		{"--max-line-bytes", o.MaxLineBytes},
		{"--max-decompressed-bytes", o.MaxDecompressedBytes},
		{"--max-events-per-run", int64(o.MaxEventsPerRun)},
		{"--max-run-bytes", o.MaxRunBytes},
		{"--max-runs-in-flight", int64(o.MaxRunsInFlight)},
		{"--max-nesting", int64(o.MaxNesting)},
	} {
		if l.v < 0 {
			return flagErrorf("%s must be 0 (the default) or more, not %d", l.flag, l.v)
		}
	}
	if o.Jobs < 0 {
		return flagErrorf("--jobs must be 0 (every CPU) or more, not %d", o.Jobs)
	}
	return checkExclude(o.Exclude)
}

// posture is the flag's value, else the declarations file's, else observe.
func (p *pipeline) posture() string {
	if p.opts.Posture != "" {
		return p.opts.Posture
	}
	if p.decls != nil && p.decls.Posture != "" {
		return p.decls.Posture
	}
	return "observe"
}

func (p *pipeline) recordingOptions() recording.Options {
	o := recording.Options{
		Workers:              p.workers,
		MaxLineBytes:         p.opts.MaxLineBytes,
		MaxDecompressedBytes: p.opts.MaxDecompressedBytes,
		MaxEventsPerRun:      p.opts.MaxEventsPerRun,
		MaxRunBytes:          p.opts.MaxRunBytes,
		MaxRunsInFlight:      p.opts.MaxRunsInFlight,
		MaxNesting:           p.opts.MaxNesting,
		MaxPackedExpansion:   p.opts.MaxPackedExpansion,
		NoRotated:            p.opts.NoRotated,
		// Keep only the payloads judge reads: the rest of a stream's bytes
		// are validated and counted, then let go.
		PayloadFilter:         p.payloadFilter(replay.PayloadFilter),
		DocumentPayloadFilter: p.payloadFilter(replay.DocumentPayloadFilter),
	}
	if p.opts.Explain {
		// A finding shown whole shows the text the checks judged.
		o.PayloadFilter, o.DocumentPayloadFilter = nil, nil
	}
	return o
}

// payloadFilter is one of the replay's payload filters (of: a stream's or
// a document's), widened to the payloads that show which tools a run
// offered and called when declarations name tools: those are held against
// them (replay.ToolsSeen).
func (p *pipeline) payloadFilter(of func([]*checks.Check, *checks.Declarations, string) func(*recording.Event) func(string) bool) func(*recording.Event) func(string) bool {
	f := of(checks.Registry, p.decls, p.posture())
	if len(p.declNames) == 0 {
		return f
	}
	return func(first *recording.Event) func(string) bool {
		reads := f(first)
		if reads == nil {
			return nil
		}
		return func(typ string) bool {
			return typ == recording.TypeLLMStart || typ == recording.TypeToolStart || reads(typ)
		}
	}
}

// jobsPerCPU bounds -j: at most this many cores' worth of work per CPU.
// Past the CPUs there is nothing to run more on but inputs waiting on
// storage, and each unit of -j is an input read at once or a decoder and a
// fold goroutine for one: a -j in the millions cost seconds and gigabytes
// before the first line was read.
const jobsPerCPU = 4

// jobsBudget is the budget of cores -j asks for (0: every CPU), capped at
// jobsPerCPU per CPU.
func jobsBudget(jobs int) int {
	if jobs <= 0 {
		return runtime.NumCPU()
	}
	return min(jobs, jobsPerCPU*max(runtime.NumCPU(), runtime.GOMAXPROCS(0)))
}

// run loads every input. Inputs are independent, so up to Jobs of them are
// read at once, the largest first (see startOrder); the returned slice is in
// input order whatever the timing.
// done, when not nil, is called as each input finishes (from any worker).
func (p *pipeline) run(inputs []string, ios *IOStreams, done func()) []report.InputResult {
	budget := jobsBudget(p.opts.Jobs)
	// -j below the machine's cores binds the whole process, the garbage
	// collector and the decompressors included, so -j 1 is one core.
	if budget < runtime.GOMAXPROCS(0) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(budget))
	}
	// The soft memory limit follows the budget the limits set; a report
	// that keeps every run whole is bounded by none.
	ceiling := budgetLimit(p.opts.MaxRunBytes, budget)
	if p.opts.Explain {
		ceiling = 0
	}
	// Declarations arm checks, whose replay allocates two to three times
	// as much: its limit keeps to a higher floor, once the input has shown
	// itself long enough (see armedFloorAfter).
	floor := int64(softMemoryLimit)
	if p.decls != nil {
		floor = armedSoftMemoryLimit
	}
	memLimit.setBudget(floor, ceiling)
	jobs := max(1, min(budget, len(inputs)))
	p.workers = max(1, budget/jobs)
	p.spare.Store(int64(max(0, budget-jobs*p.workers)))
	results := make([]report.InputResult, len(inputs))
	// A panic is a bug: the first one is carried out of the goroutines
	// below to Main's guard, and the goroutine that caught it goes on with
	// the next input, so nothing waits forever on it.
	var pan relay.Panic
	p.pan = &pan
	var wg sync.WaitGroup
	next := make(chan int)
	for range jobs {
		wg.Go(func() {
			for i := range next {
				func() {
					defer pan.Catch()
					results[i] = p.one(inputs[i], ios)
				}()
				if p.finished != nil {
					p.finished(i, results[i])
				}
				if done != nil {
					done()
				}
			}
			// Nothing left to start: the inputs still being read may
			// have this worker's cores.
			p.spare.Add(int64(p.workers))
		})
	}
	// The order matters only when inputs wait for a worker that others
	// may leave idle: with one worker, or a worker for each, the inputs
	// are not even statted.
	order := startOrder
	if jobs == 1 || len(inputs) <= jobs {
		order = argumentOrder
	}
	for _, i := range order(inputs, p.opts.NoRotated) {
		next <- i
	}
	close(next)
	wg.Wait()
	pan.Rethrow()
	return results
}

// one loads a single input and replays each of its runs as its events are
// read (recording.Options.Fold): each event is folded into its run's replay
// and let go, so a run costs what its checks keep, and a run that never
// ends holds only that. A run is judged when its own last event is read
// (see replay.NamesOrder for the runs that wait for earlier ones) and takes
// the place of its first event in the report.
func (p *pipeline) one(path string, ios *IOStreams) report.InputResult {
	var slots []*report.RunResult
	// borrowed counts the cores lent to the input while it is read (see
	// pipeline.spare); the loader's goroutine alone touches it.
	borrowed := 0
	// The input's runs share one book of call ids: a follow-up turn learns
	// the tools of the earlier turns' calls it carries.
	names := replay.NewCallNames()
	// Its runs' replayed ledgers are held once each: a million runs of one
	// configuration end with a few.
	ledgers := replay.NewLedgers()
	opts := p.recordingOptions()
	// With cores to spare, the runs are folded on a pool of goroutines
	// while the loader reads on (see foldPool); else on the loader's.
	var pool *foldPool
	if p.workers >= foldPoolCores {
		pool = newFoldPool(p.workers, p.opts.MaxRunBytes)
		defer func() {
			if pool != nil {
				pool.abort()
			}
		}()
	}
	var slotsMu sync.Mutex
	// A run is judged when its own last event is read, so one that never
	// ends holds only itself; only runs that share the book of call names
	// wait for the earlier ones of their conversation.
	release := replay.NamesOrder(checks.Registry, p.decls, p.posture())
	// The loader asks Release of each new run, in the order of Run.Seq,
	// just before it asks for the run's fold when the run may start at
	// once: then the last answer is the run's. A run whose fold is asked
	// for later waited, so it is ordered; a document's runs are not asked
	// about, and count as ordered too.
	var asked int
	var lastOrdered bool
	opts.Release = func(first *recording.Event) (string, bool) {
		group, ordered := release(first)
		asked, lastOrdered = asked+1, ordered
		return group, ordered
	}
	opts.Fold = func(run *recording.Run) (recording.RunFold, error) {
		f, err := replay.NewFold(run, p.decls, replay.Options{Posture: p.posture(), Names: names, BySeq: true, Ledgers: ledgers, Encounters: p.opts.Encounters,
			KeepInMemory: replay.KeepInMemoryFor(p.opts.MaxRunBytes)})
		if err != nil {
			return nil, err
		}
		rf := &runFold{run: run, fold: f, reader: report.NewRunReader(run, !p.opts.NoPrints), explain: p.opts.Explain, tools: p.tools, decls: p.decls}
		rf.done = func(rr *report.RunResult) {
			slotsMu.Lock()
			defer slotsMu.Unlock()
			for len(slots) <= run.Seq {
				slots = append(slots, nil)
			}
			slots[run.Seq] = rr
		}
		if pool == nil {
			return rf, nil
		}
		ordered := asked != run.Seq+1 || lastOrdered
		return pool.wrap(rf, ordered), nil
	}
	// Among many runs in flight a run collects its first events before
	// its replay starts, so that a run of a few events (a million of them,
	// all in flight until the input ends) costs those events rather than a
	// replay's state; a run that waits for the earlier runs of its
	// conversation folds what reads nothing of their names, instead of
	// holding its events. The pool keeps its own order (foldPool.wrap),
	// which folds started late would not follow.
	if pool == nil && !foldAtFirstEvent {
		opts.StartLate = replay.LateStart(p.decls, p.posture())
		opts.LateFoldBytes, opts.LateInFlight = lateFoldBytes, lateInFlight
	}
	opts.Spare = func() int {
		n := int(p.spare.Swap(0))
		borrowed += n
		return n
	}
	var st *recording.Stats
	var err error
	switch {
	case path == "-":
		st, err = recording.LoadReader("-", ios.In, opts, nil)
	case objstore.IsURL(path):
		// An object is streamed to the loader as it arrives; one that
		// cannot be opened is an unreadable input, as a file is.
		var rc io.ReadCloser
		rc, err = p.store.Open(context.Background(), path, 0)
		if err != nil {
			return report.InputResult{Path: path, Err: err}
		}
		st, err = recording.LoadReader(path, rc, opts, nil)
		rc.Close()
	default:
		st, err = recording.Load(path, opts, nil)
	}
	p.spare.Add(int64(borrowed))
	if pool != nil {
		// Every run handed over is folded before its result is read.
		perr := pool.close()
		pool = nil
		if err == nil {
			err = perr
		}
	}
	if _, ok := errors.AsType[*recording.RunStop](err); ok {
		// Only that run stopped: the input was read to its end and its
		// other runs are judged; Stats.StoppedRuns says which runs did
		// not, and makes the exit 2.
		err = nil
	}
	runs := make([]report.RunResult, 0, len(slots))
	for _, rr := range slots {
		// A run still in flight when the input stopped was never
		// handed over.
		if rr != nil {
			runs = append(runs, *rr)
		}
	}
	return report.InputResult{Stats: st, Runs: runs, Err: err}
}

// foldAtFirstEvent, lateFoldBytes and lateInFlight are the loader's way
// of starting runs' folds (recording.Options.StartLate), which tests hold
// against each other: every fold at its run's first event, or every run
// late from the first byte.
var (
	foldAtFirstEvent bool
	lateFoldBytes    int64
	lateInFlight     int
)

// runFold is one run of an input folded as the loader reads it: the replay,
// the report's own reading of the run and, for a report that shows findings
// whole, a copy of every event.
type runFold struct {
	run     *recording.Run
	fold    *replay.Fold
	reader  *report.RunReader
	decls   *checks.Declarations
	tools   *report.ToolFilter // nil unless the declarations name tools
	explain bool
	// events are the run's events, payloads included, when explain.
	events []recording.Event
	kept   int64
	done   func(*report.RunResult)
}

func (f *runFold) Add(ev *recording.Event) error {
	f.reader.Add(ev)
	if f.explain {
		c := *ev
		c.Payload = append([]byte(nil), ev.Payload...)
		f.events = append(f.events, c)
		f.kept += int64(len(c.Payload)) + int64(unsafe.Sizeof(c))
	}
	return f.fold.Add(ev)
}

func (f *runFold) Kept() int64 { return f.fold.Kept() + f.kept }

// End judges the run.
func (f *runFold) End() error {
	res, err := f.fold.End()
	if err != nil && !isDead(err) {
		return err
	}
	rr := f.reader.Result(res.Recorded)
	withReplay(&rr, res.Replayed, err)
	if f.tools != nil {
		rr.Tools = f.tools.Relevant(res.Tools)
		rr.ToolsRead = true
	}
	if f.explain {
		run := *f.run
		run.Events = f.events
		rr.Explain = &report.ExplainSource{Run: &run, Decl: f.decls}
	}
	f.done(&rr)
	return nil
}

// Fallible is what Add and End may still fail on (replay.Fold.Fallible).
func (f *runFold) Fallible() (anything, config bool) { return f.fold.Fallible() }

// AsksBook is replay.Fold.AsksBook.
func (f *runFold) AsksBook(ev *recording.Event) bool { return f.fold.AsksBook(ev) }

// ReadsNames is replay.Fold.ReadsNames.
func (f *runFold) ReadsNames(typ string) bool { return f.fold.ReadsNames(typ) }

// Drop lets a run stopped at a limit go: nothing of it is reported, and
// what its replay kept (its temporary file included) is released now.
func (f *runFold) Drop() {
	f.events = nil
	f.fold.Drop()
}

// withReplay puts a run's replayed evidence in its result. The replay's only
// error once it has begun is a dead check in dev posture: a verdict about
// the run (unmeasured), not a failure to read it, so it travels with the
// run's result.
func withReplay(rr *report.RunResult, replayed *replay.Evidence, err error) {
	rr.Replayed = replayed
	if dead, ok := errors.AsType[*checks.CheckerDeadError](err); ok {
		rr.CheckerDead = dead.Error()
	}
}

func isDead(err error) bool {
	_, ok := errors.AsType[*checks.CheckerDeadError](err)
	return ok
}
