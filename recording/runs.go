package recording

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"unsafe"

	"github.com/fpcheck/fpcheck/internal/prefault"
)

// splitter groups events into runs by meta.runId and hands runs over in the
// order of their first event.
//
// A run is complete when its integrity.disposition is read (agentfootprint
// files it last), or at the end of the input. A completed run is handed
// over as soon as every run that started before it is handed over too;
// until then it waits. For the usual file of one run after another this is
// immediate, so memory follows the runs in flight, not the file. Runs that
// never file a disposition (a minimal-tier stream, a killed writer) stay in
// flight until the end of the input, and so do the runs that started after
// them, unless the caller lets runs go early (Options.Release, see
// release): then a completed run waits only for the earlier runs of its
// group.
type splitter struct {
	// scratch is the event being folded (add).
	scratch   Event
	input     string
	maxEvents int
	// maxBytes caps what one run keeps (Options.MaxRunBytes); 0 is no cap.
	maxBytes int64
	// maxInFlight caps the runs held (Options.MaxRunsInFlight); 0 is no
	// cap. held counts the runs started and not yet handed over.
	maxInFlight, held int
	fn                func(*Run) error

	// filter is Options.PayloadFilter for a stream's runs,
	// DocumentPayloadFilter for a document's.
	filter func(first *Event) func(typ string) bool

	live     map[string]*runState // started, disposition not yet read
	queue    []*runState          // started, not yet handed over, first-event order
	head     int
	segments map[string]int // runs started so far per runId

	// holdLast keeps the run of the latest event from being handed over,
	// so a document's snapshot (which may come after its events) can still
	// be attached to the last run. It is set for a document's runs only.
	holdLast bool
	last     *runState

	// fold is Options.Fold, for a stream's runs; a document's runs are
	// collected whole and folded when handed over (holdLast). aliased
	// says the decoder hands payloads over in its reused buffers, so a
	// payload collected is copied first.
	fold    func(*Run) (RunFold, error)
	aliased bool

	// release is Options.Release, for a stream's runs only; groups are
	// the runs of each group not yet handed over, in first-event order.
	release func(first *Event) (group string, ordered bool)
	groups  map[string][]*runState
	// startLate is Options.StartLate, lateBytes Options.LateFoldBytes,
	// lateInFlight Options.LateInFlight.
	startLate    func(first *Event) bool
	lateBytes    int64
	lateInFlight int
	// seq numbers the runs in first-event order (Run.Seq).
	seq int

	// eventsHint is the number of events of the run handed over last:
	// the runs of one file are mostly alike, so a run's event slice
	// starts at that size instead of doubling its way there.
	eventsHint int
}

// maxEventsHint bounds splitter.eventsHint, so that one huge run does not
// make every later one reserve as much.
const maxEventsHint = 1 << 16

// maxReserved bounds what splitter.reserve sets aside, as the room is
// taken on an estimate, before the events it is for are read: a document
// whose first events are tiny and whose rest is not events costs no more.
const maxReserved = (8 << 20) / int64(unsafe.Sizeof(Event{}))

// reserve readies room for n events in all, before any run has been
// handed over: in the one run started so far, or in the first one to
// start. A document's run is collected whole, and doubling its way to
// thousands of events cost a document read more than any other
// allocation; n is an estimate, so a run that outgrows it grows as before.
func (sp *splitter) reserve(n int64) {
	if sp.eventsHint != 0 || n <= 0 || len(sp.live) > 1 {
		return
	}
	n = min(n, maxReserved)
	if sp.maxEvents > 0 {
		n = min(n, int64(sp.maxEvents))
	}
	if len(sp.live) == 0 {
		sp.eventsHint = int(n)
		return
	}
	for _, rs := range sp.live {
		if r := rs.run; int64(cap(r.Events)) < n {
			r.Events = slices.Grow(r.Events, int(n)-len(r.Events))
			prefault.Slice(r.Events)
		}
	}
}

type runState struct {
	run      *Run
	complete bool
	// bytes is what the run keeps so far (see eventBytes).
	bytes int64
	// keep says which payloads of the run are kept (see
	// Options.PayloadFilter); nil keeps them all.
	keep func(typ string) bool
	// group and ordered are what Options.Release said of the run; gone
	// is true once it is handed over.
	group   string
	ordered bool
	gone    bool
	// stopped is true once the run passed a limit of its own (see stop).
	stopped bool
	// events counts the run's events so far, collected or folded.
	events int
	// fold is the run's fold once it has started (see splitter.start):
	// from then on its events go to it and Events stays empty.
	fold RunFold
	// waits is true while the run's fold may not read the book of its
	// group (Options.Release: an earlier ordered run of its group is not
	// handed over). A late run's fold may have started meanwhile (see
	// splitter.feed): it is then fed the events up to the first one that
	// asks the book, and Events collects the rest.
	waits bool
	// late is true when the run's fold may start once the run has
	// collected lateBytes (Options.StartLate), rather than at once.
	late bool
}

func newSplitter(input string, maxEvents int, fn func(*Run) error) *splitter {
	return &splitter{
		input:     input,
		maxEvents: maxEvents,
		fn:        fn,
		live:      map[string]*runState{},
		segments:  map[string]int{},
		groups:    map[string][]*runState{},
	}
}

// withMaxInFlight sets the cap on the runs held at once.
func (sp *splitter) withMaxInFlight(n int) *splitter {
	sp.maxInFlight = n
	return sp
}

// withMaxBytes sets the cap on what one run keeps.
func (sp *splitter) withMaxBytes(n int64) *splitter {
	sp.maxBytes = n
	return sp
}

// eventRecord is what an event costs a run beside its payload: its own
// record in the run's event slice.
const eventRecord = int64(unsafe.Sizeof(Event{}))

// add puts one event in its run. continued is true when the event opened a
// further segment of a runId whose disposition was already read.
func (sp *splitter) add(ev Event) (continued bool, err error) {
	id := ev.Meta.RunID
	rs := sp.live[id]
	if rs == nil {
		if sp.maxInFlight > 0 && sp.held >= sp.maxInFlight {
			inFlight := fmt.Sprintf("%d runs are", sp.held)
			if sp.held == 1 {
				inFlight = "1 run is"
			}
			return false, fmt.Errorf("run %s starts while %s in flight, the most one input may hold at once (limit set by --max-runs-in-flight)", quoteName(id), inFlight)
		}
		sp.held++
		seg := sp.segments[id]
		sp.segments[id] = seg + 1
		// A document's events may have lines too (a pretty-printed
		// one), but its runs are placed by position in the events array
		// (the JSON report's firstLine), which a line would pass for.
		first := ev.Line
		if sp.holdLast || first == 0 {
			first = ev.Index + 1
		}
		rs = &runState{run: &Run{
			Events:      make([]Event, 0, min(sp.eventsHint, sp.maxEvents, maxEventsHint)),
			Input:       sp.input,
			ID:          id,
			Segment:     seg,
			Seq:         sp.seq,
			FirstLine:   first,
			HeadMissing: ev.Type != TypeRunConfigured && ev.Type != TypeTurnStart,
		}}
		sp.seq++
		// A copy, so that ev itself does not escape on every call.
		head := ev
		if sp.filter != nil {
			rs.keep = sp.filter(&head)
		}
		if sp.release != nil {
			rs.group, rs.ordered = sp.release(&head)
		}
		sp.live[id] = rs
		waits := false
		if sp.release != nil {
			if rs.ordered {
				waits = len(sp.groups[rs.group]) > 0
				sp.groups[rs.group] = append(sp.groups[rs.group], rs)
			}
		} else {
			sp.queue = append(sp.queue, rs)
		}
		// Collecting costs a copy of every payload kept: worth it for a
		// run that waits anyway, or among more runs in flight than their
		// folds' fixed state should cost.
		rs.late = sp.folding() && sp.startLate != nil && (waits || len(sp.live) > sp.lateInFlight) && sp.startLate(&head)
		continued = seg > 0
		if sp.folding() {
			rs.waits = waits
			if !waits && !rs.late {
				if err := sp.start(rs); err != nil {
					return continued, err
				}
			}
		}
	}
	r := rs.run
	if rs.stopped {
		// A run stopped at a limit keeps nothing more; its ledger still
		// ends it, so the runs that wait for it go on.
		return continued, sp.ended(rs, ev.Type)
	}
	if rs.events >= sp.maxEvents {
		return continued, sp.stop(rs, ev.Type, fmt.Errorf("run %s has more than %d events (limit set by --max-events-per-run)", quoteName(id), sp.maxEvents))
	}
	rs.events++
	// Share the run's ID string instead of keeping one copy per event.
	ev.Meta.RunID = r.ID
	if r.SessionID == "" {
		r.SessionID = ev.Meta.SessionID
	}
	sp.last = rs
	dropped := sp.filter != nil && rs.keep != nil && ev.Payload != nil && !rs.keep(ev.Type)
	if dropped {
		ev.Payload, ev.PayloadDropped, ev.PayloadIndex = nil, true, PayloadIndex{}
	}
	if rs.fold != nil {
		// A fold gets the splitter's own copy: it has the event only
		// during the call (RunFold), and ev itself, handed to an
		// interface, would be moved to the heap on every call.
		sp.scratch = ev
		if !rs.waits || len(r.Events) == 0 && !asksBook(rs.fold, &sp.scratch) {
			err := rs.fold.Add(&sp.scratch)
			sp.scratch = Event{}
			if err != nil {
				return continued, &callbackError{err}
			}
			if sp.overLimit(rs) {
				return continued, sp.stop(rs, ev.Type, sp.tooBig(id))
			}
			return continued, sp.ended(rs, ev.Type)
		}
		sp.scratch = Event{}
	}
	// Under a filter or a fold the decoders hand payloads over in their
	// reused read buffers (eventDecoder.alias): a run that collects its
	// events gives a payload memory of its own here.
	if !dropped && sp.aliased {
		ev.Payload = append(json.RawMessage(nil), ev.Payload...)
	}
	// Bytes, not only events, bound a run: five million events of a few
	// bytes, or a few thousand tool results of megabytes, are both within
	// the events limit and both far beyond what a run should hold.
	rs.bytes += eventCost(&ev)
	if sp.overLimit(rs) {
		return continued, sp.stop(rs, ev.Type, sp.tooBig(id))
	}
	// An array the run's events start or move into is written before
	// anything reads it (see prefault).
	fresh := len(r.Events) == 0 || len(r.Events) == cap(r.Events)
	r.Events = append(r.Events, ev)
	if fresh {
		prefault.Slice(r.Events)
	}
	if rs.late && rs.fold == nil && rs.bytes >= sp.lateBytes {
		// A run that still waits is fed up to its first event that asks
		// the book; one that may go on, everything collected.
		if err := sp.feed(rs, rs.waits); err != nil {
			return continued, err
		}
		if sp.overLimit(rs) {
			return continued, sp.stop(rs, ev.Type, sp.tooBig(id))
		}
	}
	return continued, sp.ended(rs, ev.Type)
}

// eventCost is what a collected event costs its run: its own record and
// its payload.
func eventCost(ev *Event) int64 { return eventRecord + int64(len(ev.Payload)) }

// overLimit reports whether a run keeps more than --max-run-bytes: the
// events it collected and what its fold keeps.
func (sp *splitter) overLimit(rs *runState) bool {
	if sp.maxBytes <= 0 {
		return false
	}
	kept := rs.bytes
	if rs.fold != nil {
		kept += rs.fold.Kept()
	}
	return kept > sp.maxBytes
}

// asksBook is BookFold.AsksBook, true for a fold that does not tell.
func asksBook(f RunFold, ev *Event) bool {
	bf, ok := f.(BookFold)
	return !ok || bf.AsksBook(ev)
}

func (sp *splitter) tooBig(id string) error {
	return fmt.Errorf("run %s keeps more than %s (limit set by --max-run-bytes)", quoteName(id), humanBytes(sp.maxBytes))
}

// folding says whether a stream's runs are folded as they are read.
func (sp *splitter) folding() bool { return sp.fold != nil && !sp.holdLast }

// start begins a run's fold, unless it began while the run waited, and
// feeds it the events collected; from then on the run keeps nothing of
// its own.
func (sp *splitter) start(rs *runState) error {
	rs.waits = false
	return sp.feed(rs, false)
}

// feed begins a run's fold if it has none and feeds it the events
// collected, or, untilAsks, those up to the first one that asks the book
// of the run's group (see BookFold): the run keeps that one and the rest
// until it may start.
func (sp *splitter) feed(rs *runState, untilAsks bool) error {
	f := rs.fold
	if f == nil {
		var err error
		if f, err = sp.fold(rs.run); err != nil {
			return &callbackError{err}
		}
		rs.fold = f
	}
	evs := rs.run.Events
	k := 0
	for ; k < len(evs) && !(untilAsks && asksBook(f, &evs[k])); k++ {
		if err := f.Add(&evs[k]); err != nil {
			return &callbackError{err}
		}
	}
	rs.run.Events, rs.bytes = nil, 0
	if k < len(evs) {
		rs.run.Events = append(make([]Event, 0, len(evs)-k), evs[k:]...)
		for i := range rs.run.Events {
			rs.bytes += eventCost(&rs.run.Events[i])
		}
	}
	return nil
}

// ended completes a run whose ledger (typ) was just read and hands over
// what may go.
func (sp *splitter) ended(rs *runState, typ string) error {
	if typ == TypeDisposition {
		rs.complete = true
		if sp.live[rs.run.ID] == rs {
			delete(sp.live, rs.run.ID)
		}
		if sp.release != nil {
			return sp.releaseRun(rs)
		}
	}
	if sp.release != nil {
		return nil
	}
	return sp.flush(false)
}

// RunStop is a run stopped at a limit of its own (--max-events-per-run,
// --max-run-bytes): the run is let go and never handed over, and the
// input's other runs are read and judged.
type RunStop struct{ Err error }

func (e *RunStop) Error() string { return e.Err.Error() }
func (e *RunStop) Unwrap() error { return e.Err }

// stop lets a run go at a limit: what it kept is dropped at once, the
// rest of its events are counted and let go too, and the run is never
// handed over. The event that crossed the limit may still end the run.
func (sp *splitter) stop(rs *runState, typ string, err error) error {
	rs.stopped = true
	rs.run.Events = nil
	if rs.fold != nil {
		rs.fold.Drop()
		rs.fold = nil
	}
	if e := sp.ended(rs, typ); e != nil {
		return e
	}
	return &RunStop{Err: err}
}

// releaseRun hands over a run that has just completed, when it may go
// before the runs that started earlier: a run outside any order goes at
// once, an ordered one when every earlier run of its group has gone, and
// the completed runs of the group that waited for it go after it.
func (sp *splitter) releaseRun(rs *runState) error {
	if !rs.ordered {
		return sp.handOver(rs)
	}
	q := sp.groups[rs.group]
	n := 0
	for n < len(q) && q[n].complete {
		if err := sp.handOver(q[n]); err != nil {
			sp.groups[rs.group] = q[n+1:]
			return err
		}
		q[n] = nil
		n++
	}
	switch {
	case n == len(q):
		delete(sp.groups, rs.group)
		return nil
	case n > 0:
		sp.groups[rs.group] = q[n:]
	}
	// The first run of the group still being read may start now: every
	// earlier one has gone.
	if next := q[n]; n > 0 && next.waits && !next.stopped {
		next.waits = false
		if next.fold != nil || !next.late || next.bytes >= sp.lateBytes {
			return sp.start(next)
		}
	}
	return nil
}

// handOver gives a run to the caller, once.
func (sp *splitter) handOver(rs *runState) error {
	if rs.gone {
		return nil
	}
	rs.gone = true
	sp.held--
	if sp.live[rs.run.ID] == rs {
		delete(sp.live, rs.run.ID)
	}
	if rs.stopped {
		return nil
	}
	if sp.fold != nil {
		if rs.fold == nil || rs.waits {
			if err := sp.start(rs); err != nil {
				return err
			}
		}
		f := rs.fold
		rs.fold = nil
		if err := f.End(); err != nil {
			return &callbackError{err}
		}
	} else {
		sp.eventsHint = len(rs.run.Events)
	}
	if sp.fn != nil {
		if err := sp.fn(rs.run); err != nil {
			return &callbackError{err}
		}
	}
	return nil
}

// finishReleased hands over, in first-event order, the runs still in
// flight at the end of the input, and with them the completed runs that
// waited for them.
func (sp *splitter) finishReleased() error {
	var left []*runState
	for _, rs := range sp.live {
		left = append(left, rs)
	}
	for _, q := range sp.groups {
		left = append(left, q...)
	}
	slices.SortFunc(left, func(a, b *runState) int { return cmp.Compare(a.run.Seq, b.run.Seq) })
	sp.live, sp.groups = map[string]*runState{}, map[string][]*runState{}
	for _, rs := range left {
		if err := sp.handOver(rs); err != nil {
			return err
		}
	}
	return nil
}

// flush hands over the completed runs at the head of the queue; at the end
// of the input (final) every remaining run is complete.
func (sp *splitter) flush(final bool) error {
	if sp.release != nil {
		if final {
			return sp.finishReleased()
		}
		return nil
	}
	for sp.head < len(sp.queue) {
		rs := sp.queue[sp.head]
		if !final && (!rs.complete || sp.holdLast && rs == sp.last) {
			break
		}
		sp.queue[sp.head] = nil
		sp.head++
		if sp.head > 1024 && sp.head*2 > len(sp.queue) {
			sp.queue = append([]*runState(nil), sp.queue[sp.head:]...)
			sp.head = 0
		}
		if err := sp.handOver(rs); err != nil {
			return err
		}
	}
	return nil
}

// cutShort is the ids of the runs not yet handed over that an input
// stopping here would leave short, in first-event order: the runs in
// progress (a run stopped at a limit is let go, not handed over), and the
// run a document holds for a snapshot that is then never read.
func (sp *splitter) cutShort() []string {
	var short []*runState
	for _, rs := range sp.live {
		if !rs.stopped && !rs.gone {
			short = append(short, rs)
		}
	}
	if rs := sp.last; sp.holdLast && rs != nil && rs.complete && !rs.stopped && !rs.gone {
		short = append(short, rs)
	}
	slices.SortFunc(short, func(a, b *runState) int { return cmp.Compare(a.run.Seq, b.run.Seq) })
	ids := make([]string, len(short))
	for i, rs := range short {
		ids[i] = rs.run.ID
	}
	return ids
}

// lastRun is the run of the latest event, before it is handed over.
func (sp *splitter) lastRun() *Run {
	if sp.last == nil {
		return nil
	}
	return sp.last.run
}

// callbackError carries the caller's own error out of the loader unchanged.
type callbackError struct{ err error }

func (e *callbackError) Error() string { return e.err.Error() }
