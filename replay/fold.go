package replay

import (
	"encoding/json"
	"errors"
	"reflect"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// Fold is one run replayed as its events are read: each event is folded
// into the run's state and let go. What the run keeps is what its checks,
// its recorded evidence and the locator of its findings read later, never
// its events, so a run costs memory by what it keeps (Kept), not by its
// length.
//
// The declarations a replay judges by must be settled before its first
// event is judged, since they decide which checks are armed and what each
// event is read for. agentfootprint writes a run's agent.run_configured
// first, and the fold arms on it. A run that starts with anything else is
// held (copies of the events a replay reads, counted in Kept) until its
// run_configured or its first seam event (a model call, a tool call, a
// route decision, a turn's end) arrives; then the fold arms and the held
// events are folded. A run_configured read after that cannot arm what was
// already judged without it: unless its declarations change nothing, the
// run's evidence says so (Evidence.Lost), so the run is never green
// because of it.
type Fold struct {
	// recorded is the finding of the context_error being folded, as the
	// recorded-evidence reader decoded it, for the engine.
	recorded checks.Finding
	reg      []*checks.Check
	run      *recording.Run
	file     *checks.Declarations
	opts     Options
	slow     bool

	// session is the run's conversation: its header's, else the first
	// session id its events carry, as the loader reads it.
	session string
	// store keeps the texts of the run, for the engine and the locator.
	store *textStore
	// loc, rec and tools are nil when the caller does their work from
	// events it holds anyway (the whole-run wrappers).
	loc   *locator
	rec   *recordedReader
	tools *toolsSeen
	// names collects what the run states for the book (the engine feeds
	// it), until it is written or known never to be; view is the run's
	// place in the book.
	names *namesStated
	view  callNamesView

	// canaries is true once the checks passed their canaries.
	canaries bool
	// configured is true once the run's first agent.run_configured is
	// read; later ones are not read, as a replay never read them.
	configured bool
	armed      bool
	e          *engine
	posture    string
	held       []recording.Event
	heldBytes  int64
	// late are the problems of a run_configured read after arming.
	late []string

	err   error
	ended bool
}

// FoldResult is what a run's fold gives at its end.
type FoldResult struct {
	// Replayed is the replayed evidence (what Prepared.Run returns).
	Replayed *Evidence
	// Recorded is the recorded evidence (what Recorded returns over the
	// run's events), located the same way.
	Recorded *Evidence
	// Tools are the tools the run offered or called (what ToolsSeen
	// returns).
	Tools []string
}

// NewFold starts a run's fold. run carries the run's header (Input, ID,
// Seq, FirstLine, HeadMissing, Snapshot; SessionID may still be filled in
// as events arrive, and is read at End). run.Events is empty for a
// streamed run, or holds the whole run for a run handed over whole (a
// recording document, whose Snapshot is known only at its end): the fold
// then reads them when it arms (the snapshot's map ownership, see
// withSnapshotMap), and the caller still feeds each through Add.
//
// With Options.Names, the run takes its place in the book now: it reads the
// names of the runs whose folds started before it and writes its own at
// End. The caller must start the folds of an input in the order of its
// runs, and start a run that reads the book (see NamesOrder) only once the
// earlier runs of its conversation have ended.
//
// Its errors are those Prepare returns before reading any event: a posture
// fpcheck does not know and, in dev posture, a check that misses its
// canary, when the posture is settled without the run's own declarations
// (Options.Posture, or the posture decl states); otherwise Add returns
// them when the fold arms.
func NewFold(run *recording.Run, decl *checks.Declarations, opts Options) (*Fold, error) {
	f, err := newFold(checks.Registry, run, decl, opts, false)
	if err != nil {
		return nil, err
	}
	f.loc = newLocator(f.store)
	f.rec = newRecordedReader(f.slow)
	f.tools = &toolsSeen{}
	if opts.Posture != "" || (decl != nil && decl.Posture != "") {
		posture, err := postureOf(opts.Posture, merge(nil, decl))
		if err != nil {
			return nil, err
		}
		if err := f.runCanaries(posture); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func newFold(reg []*checks.Check, run *recording.Run, decl *checks.Declarations, opts Options, slow bool) (*Fold, error) {
	if run == nil {
		return nil, errors.New("replay: no run to replay")
	}
	f := &Fold{reg: reg, run: run, file: decl, opts: opts, slow: slow, session: run.SessionID, store: newTextStore(opts.KeepInMemory)}
	if opts.Names != nil {
		seq := -1
		if opts.BySeq {
			seq = run.Seq
		}
		f.view = opts.Names.start(&f.session, seq)
		f.names = &namesStated{}
	}
	return f, nil
}

// preflight is what the first events of a run handed over whole settle,
// done before any is folded so that Prepare says everything that stops a
// replay, in the order Prepare always said it: the run's declarations,
// its posture, the canaries. The names the run states are written to the
// book now, in the order runs are prepared.
func (f *Fold) preflight() error {
	d, arms, err := configOf(f.run)
	if err != nil {
		return err
	}
	if !arms {
		// Read again by Add, where it is late.
		d = nil
	}
	if err := f.arm(d); err != nil {
		return err
	}
	f.configured = arms
	if f.names != nil {
		f.view.write(statedNames(f.run, f.slow))
		f.names = nil
	}
	return nil
}

// seamEvent reports whether a replay judges something at an event of type
// typ: the declarations must be settled before it is read.
func seamEvent(typ string) bool {
	switch typ {
	case recording.TypeLLMStart, recording.TypeLLMEnd, recording.TypeToolStart, recording.TypeToolEnd,
		recording.TypeRouteDecided, recording.TypeTurnEnd:
		return true
	}
	return false
}

// Add folds one event. ev and every byte of ev.Payload are valid only
// during the call: whatever the fold keeps it copies (its strings are
// taken to be Go strings, which nothing rewrites). Its errors are those
// Prepare returns for the run's events: a *checks.DeclarationError from
// its agent.run_configured (naming the input and line), and, when the fold
// arms on it, an unknown posture or a check that misses its canary. After
// an error the fold is done; End returns the error again.
func (f *Fold) Add(ev *recording.Event) error {
	if f.err != nil {
		return f.err
	}
	if f.session == "" {
		f.session = ev.Meta.SessionID
	}
	// What the readers read of ev for the engine points into its payload,
	// which is let go of with ev.
	defer f.letGo()
	var located *locatePayload
	if f.loc != nil {
		located = f.loc.add(ev)
	}
	hasRecorded := false
	if f.rec != nil {
		hasRecorded = f.rec.add(ev, &f.recorded)
	}
	var start *llmStartPayload
	if f.tools != nil {
		start = f.tools.add(ev)
	}
	switch {
	case ev.Type == recording.TypeRunConfigured:
		return f.configure(ev)
	case f.armed:
		f.handle(ev, hasRecorded, read{located, start})
	case seamEvent(ev.Type):
		if err := f.arm(nil); err != nil {
			return err
		}
		f.handle(ev, hasRecorded, read{located, start})
	default:
		f.hold(ev)
	}
	return nil
}

// letGo drops what the locator and the tools seen read of the event just
// added (see read): it points into the event's payload.
func (f *Fold) letGo() {
	if f.loc != nil {
		f.loc.cur = locatePayload{}
	}
	if f.tools != nil {
		f.tools.start = llmStartPayload{}
	}
}

// read is what the fold's other readers read of the event being added,
// for the engine to take rather than decode it again: the locator's fields
// (see decodeInjected) and the tools seen's llm_start payload; nil where
// they read nothing the engine may take.
type read struct {
	located *locatePayload
	start   *llmStartPayload
}

// handle hands ev to the engine, with the finding it records when the
// recorded-evidence reader has decoded it already (f.recorded, ok), and
// what the fold's other readers read of it.
func (f *Fold) handle(ev *recording.Event, ok bool, r read) {
	if ok {
		f.e.recorded = &f.recorded
	}
	f.e.read = r
	f.e.handle(ev)
	f.e.recorded, f.e.read = nil, read{}
}

// Fallible says what Add and End may still fail on: anything until
// the fold has armed, and its run's first agent.run_configured (config)
// until that is read. Past both, Add never fails and End fails only with
// a dead check in dev posture. The answer changes only in a call to Add or
// End, so a caller that folds the run on another goroutine can ask it
// after each call it makes itself and trust it in between.
func (f *Fold) Fallible() (anything, config bool) {
	return f.err != nil || !f.armed, f.err != nil || !f.configured
}

// ReadsNames reports whether folding an event of type typ may read the
// book of call names (Options.Names), or End may when typ is empty: a
// caller that folds runs on several goroutines makes such a call wait
// until the earlier runs of the conversation have ended. Only the armed
// replay reads the book, so an event the fold holds reads nothing of it,
// nor does the run's first agent.run_configured arming a fold that holds
// nothing. Like Fallible, it is asked between calls to Add.
func (f *Fold) ReadsNames(typ string) bool {
	return typ == "" || f.armed || len(f.held) > 0 || seamEvent(typ)
}

// AsksBook reports whether folding ev may look up the book of call names:
// whether it serves a tool result the run does not name itself (see
// engine.asksBook), or arms the fold with events held. It reads the event
// as the replay will and errs towards true where it cannot tell. A run
// whose earlier runs have not written the book yet may fold every event
// before the first for which it is true, and then must hold that event
// and the rest until they have (recording.Options.StartLate). Like
// Fallible, it is asked between calls to Add.
func (f *Fold) AsksBook(ev *recording.Event) bool {
	switch {
	case f.err != nil || f.ended || f.opts.Names == nil:
		return false
	case f.armed:
		return f.e.asksBook(ev)
	case ev.Type == recording.TypeRunConfigured:
		return !f.configured && len(f.held) > 0
	}
	return seamEvent(ev.Type)
}

// LateStart is the loader's StartLate (recording.Options) for the runs of
// an input replayed under decl in posture: a run whose first event is its
// agent.run_configured, carrying declarations fpcheck honours, arms on that
// event and fails on nothing after it, so its fold may start late. Dev
// posture is left out: there a fold runs the canaries when it arms.
func LateStart(decl *checks.Declarations, posture string) func(first *recording.Event) bool {
	return func(first *recording.Event) bool {
		if first.Type != recording.TypeRunConfigured {
			return false
		}
		_, p, ok := settle(&recording.Run{Events: []recording.Event{*first}}, decl, posture)
		return ok && p != checks.PostureDev
	}
}

// configure reads the run's first agent.run_configured: it arms the fold,
// or, read too late for that, is stated when it would have changed what
// the replay judges.
func (f *Fold) configure(ev *recording.Event) error {
	if f.configured {
		return nil
	}
	f.configured = true
	d, err := declarationsOf(f.run.Input, ev)
	if err != nil {
		f.err = err
		return err
	}
	if !f.armed {
		return f.arm(d)
	}
	if !sameDeclarations(f.opts.Posture, merge(d, f.file), merge(nil, f.file)) {
		f.late = append(f.late, lateConfiguration(positionOf(ev, "").Ref()))
	}
	return nil
}

// lateConfiguration states a run_configured read after the replay armed.
func lateConfiguration(at string) string {
	return "the run's agent.run_configured (" + at + ") comes after its first model or tool event, so the replay settled its declarations without the ones it carries: " +
		"the checks they arm or tune were not replayed as declared, and what they would have found is unknown"
}

// sameDeclarations reports whether two merged declarations judge a run
// alike in the posture asked for: everything but where they came from is
// equal.
func sameDeclarations(posture string, a, b *checks.Declarations) bool {
	pa, errA := postureOf(posture, a)
	pb, errB := postureOf(posture, b)
	if errA != nil || errB != nil || pa != pb {
		return false
	}
	x, y := *a, *b
	x.Source, y.Source = "", ""
	x.Posture, y.Posture = "", ""
	return reflect.DeepEqual(x, y)
}

// runCanaries runs every check's canary once, in dev posture.
func (f *Fold) runCanaries(posture string) error {
	if posture != checks.PostureDev || f.canaries {
		return nil
	}
	if err := checks.RunCanaries(f.reg); err != nil {
		return err
	}
	f.canaries = true
	return nil
}

// arm settles the run's declarations (fromRec, its run_configured's, nil
// when none was read in time), starts the engine and folds the events held
// so far.
func (f *Fold) arm(fromRec *checks.Declarations) error {
	effective := withSnapshotMap(merge(fromRec, f.file), f.run)
	posture, err := postureOf(f.opts.Posture, effective)
	if err == nil {
		err = f.runCanaries(posture)
	}
	if err != nil {
		f.err = err
		return err
	}
	e := newEngineWith(f.reg, effective, posture, f.run, f.slow, f.store)
	if f.opts.Encounters {
		e.ledger.TrackEncounters()
	}
	if f.opts.Names != nil && namesRead(f.reg, effective, posture, f.slow) {
		e.earlier, e.stated = f.view, f.names
	} else {
		// A run that does not read the book does not write it either.
		f.names = nil
	}
	f.armed, f.e, f.posture = true, e, posture
	held := f.held
	f.held, f.heldBytes = nil, 0
	for i := range held {
		e.handle(&held[i])
	}
	return nil
}

// heldCost is what one held event costs beside its payload and stage.
const heldCost = 4 * entryCost

// hold keeps a copy of an event the engine may read, until the fold arms.
// Only what the engine reads of it is copied.
func (f *Fold) hold(ev *recording.Event) {
	if ev.Type == recording.TypeDisposition || !allNeeds.readsPayload(ev.Type) {
		return
	}
	c := recording.Event{Type: ev.Type, Line: ev.Line, Index: ev.Index, Rotated: ev.Rotated, PayloadDropped: ev.PayloadDropped,
		Payload: append(json.RawMessage(nil), ev.Payload...),
		Meta:    recording.Meta{RuntimeStageID: ev.Meta.RuntimeStageID, SessionID: ev.Meta.SessionID}}
	if it := ev.Meta.IterIndex; it != nil {
		v := *it
		c.Meta.IterIndex = &v
	}
	f.held = append(f.held, c)
	f.heldBytes += int64(heldCost + len(c.Payload) + len(c.Meta.RuntimeStageID) + len(c.Meta.SessionID))
}

// Kept is the bytes the run keeps so far: its texts (in memory and in its
// file), the engine's entries, the events held until the fold arms, and
// what the locator, the book's names, the recorded evidence and the tools
// seen keep. It grows with what the run keeps, never with its length
// alone, so a limit on it bounds the run.
func (f *Fold) Kept() int64 {
	n := f.heldBytes
	if f.e != nil {
		n += f.e.keptBytes()
	} else {
		n += f.store.kept()
	}
	if f.loc != nil {
		n += f.loc.kept
	}
	if f.rec != nil {
		n += f.rec.size()
	}
	if f.tools != nil {
		n += f.tools.kept()
	}
	if f.names != nil {
		n += f.names.bytes
	}
	return n
}

// End judges the run once its last event is read; it may be called once.
// Its error is, in dev posture, the *checks.CheckerDeadError Prepared.Run
// returns, with the result filled; or, for a run that armed only at its end
// (no seam event), what Add returns when it arms, with no result.
func (f *Fold) End() (*FoldResult, error) {
	if f.err != nil {
		return nil, f.err
	}
	if f.ended {
		return nil, errors.New("replay: the run's fold has ended already")
	}
	f.ended = true
	if !f.armed {
		if err := f.arm(nil); err != nil {
			return nil, err
		}
	}
	e := f.e
	e.judge()
	res := &FoldResult{Replayed: e.evidence(f.posture)}
	if len(f.late) > 0 {
		res.Replayed.Lost = append(res.Replayed.Lost, f.late...)
	}
	if f.loc != nil {
		f.loc.locateAll(res.Replayed.Findings)
	}
	if f.rec != nil {
		res.Recorded = f.rec.ev
		if f.loc != nil {
			f.loc.locateAll(res.Recorded.Findings)
		}
	}
	f.dropLocator()
	res.Replayed, res.Recorded = f.opts.Ledgers.share(res.Replayed), f.opts.Ledgers.share(res.Recorded)
	if f.tools != nil {
		res.Tools = f.tools.list()
	}
	e.release()
	if f.names != nil {
		if f.run.SessionID != "" {
			f.session = f.run.SessionID
		}
		f.view.write(f.names.result())
		f.names = nil
	}
	if f.posture == checks.PostureDev {
		if err := e.ledger.AssertAlive(e.workExisted); err != nil {
			return res, err
		}
	}
	return res, nil
}

// dropLocator gives the locator back to its pool once its run's findings
// are located, or the run is let go.
func (f *Fold) dropLocator() {
	if f.loc != nil {
		f.loc.release()
		f.loc = nil
	}
}

// Drop lets the fold go without judging its run (the run passed a limit
// and is never handed over): what it kept is let go and its file
// removed. End may not be called after it.
func (f *Fold) Drop() {
	f.ended = true
	f.held, f.heldBytes = nil, 0
	f.dropLocator()
	if f.e != nil {
		f.e.release()
		return
	}
	_ = f.store.close()
}
