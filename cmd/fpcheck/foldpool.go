package main

import (
	"errors"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/fpcheck/fpcheck/internal/relay"
	"github.com/fpcheck/fpcheck/recording"
)

// A stream's runs are read, split and handed their events on the loader's
// goroutine, one at a time. Folding an event into its run's replay is a
// third of the work, so a foldPool takes it off that goroutine: the events
// of each run are copied into batches and folded on a few goroutines, one
// run by one goroutine at a time and in order, while the loader reads on.
// The report is the bytes a serial fold gives, because everything the
// loader learns from a fold is learned as it would be serially:
//
//   - An error comes only from the events a fold may still fail on (see
//     replay.Fold.Fallible: those before it arms, its first run_configured).
//     Those are folded on the loader's goroutine, once the run's earlier
//     events are folded, so an input stops at the event that stops it.
//   - Kept is an upper bound of what the fold keeps, and the exact figure
//     whenever that bound passes the limit (see pooledFold.Kept), so a run
//     stops at the event it stops at serially.
//   - The book of call names: a run that reads it (replay.NamesOrder calls
//     it ordered) is started by the loader only once the earlier runs of
//     its conversation were handed over, and a run's End writes the book
//     when it is folded, later. So such a run folds nothing that may read
//     the book (replay.Fold.ReadsNames) before every End requested before
//     it was created has been folded (waitFor, below).
//
// No wait can be circular. A run waits only for Ends requested before it
// was created, hence before its own End; those runs wait only for Ends
// requested before them, and so on down: the oldest End not folded waits
// for nothing, and every End requested is queued with all its run's
// events, so it is folded. The loader waits on the pool (for room in the
// queue, for a run's batches to be folded, for earlier Ends) and the pool's
// goroutines never wait on the loader, so the loader's waits end too.
//
// The pool's goroutines read nothing of a run the loader still writes: a
// fold arms (reading the run's header, and for a document its events) in
// a fallible call, on the loader's goroutine, and the run's session, which
// the loader may fill in until the run ends, is read at End, after the
// loader's last write to it, with the pool's lock in between.
type foldPool struct {
	// limit is the --max-run-bytes the loader holds Kept to.
	limit int64

	mu sync.Mutex
	// work wakes the pool's goroutines; progress wakes the loader.
	work, progress *sync.Cond
	ready          []*pooledFold // runs with batches to fold, not held
	// parked are the runs that wait for earlier Ends, in the order they
	// were created, which is the order of their waitFor.
	parked []*pooledFold
	// busy counts the runs scheduled, ends the Ends requested and not
	// yet folded.
	busy, ends int
	// queued is the memory of the batches queued, every run's.
	queued int64
	// requested counts the Ends requested (the loader's alone); folded
	// is such that every End below it is folded, and above are the ones
	// folded out of order.
	requested int
	folded    int
	above     map[int]bool
	free      []*foldBatch
	closing   bool
	// err is an error a fold returned on a pool goroutine, where none is
	// expected (see Fallible); broken is set when one panicked.
	err    error
	broken bool
	// stopped is set with err or broken, so that the loader's calls
	// look at neither while all is well.
	stopped atomic.Bool
	pan     relay.Panic
	wg      sync.WaitGroup

	// open is the run whose batch the loader is filling (the loader's).
	open *pooledFold
}

// Batch bounds: a batch is handed over at foldBatchEvents events or
// foldBatchBytes bytes, and the loader waits while more than foldQueueBytes
// are queued, so what the pool holds is bounded whatever the input.
const (
	foldBatchEvents = 128
	foldBatchBytes  = 64 << 10
	foldQueueBytes  = 2 << 20
	// foldQueueEnds bounds the runs ended and not yet folded: each holds
	// its replay's state, which the bytes queued do not count.
	foldQueueEnds = 16
	// foldFreeBatches bounds the batches kept for reuse.
	foldFreeBatches = 8
)

// A fold keeps, per event, at most a few entries per byte of the event's
// strings (each entry counted at replay's 64 bytes) beside a fixed part:
// foldGrowth and foldEventGrowth bound what one event can add to Kept, so
// that the last figure plus the bounds of the events queued is an upper
// bound of what the fold will keep once it has read them.
const (
	foldGrowth      = 128
	foldEventGrowth = 4 << 10
)

// foldPoolCores is the fewest cores an input needs for its runs to be
// folded on a pool. On two, the decoders already keep both busy while the
// loader folds (the real-shaped stream of tools/bench: 1.8 cores, wall
// time about half the CPU time), so a pool only adds its cost: the copies,
// the hand-overs and events folded away from the cache that decoded them
// (10 % more CPU with every check armed, the same wall time). From three,
// the loader's goroutine, a third of the CPU, becomes the longest path
// (an estimate from the profile: the bench machine has two cores).
const foldPoolCores = 3

// foldTestHook is called as a pool goroutine starts each batch (tests).
var foldTestHook = func() {}

type foldBatch struct {
	events []recording.Event
	arena  []byte
	// bytes is the batch's memory once queued, growth the bound of what
	// its events add to the fold's Kept.
	bytes, growth int64
	// end asks for the run's End after the events; ticket is the End's
	// number.
	end    bool
	ticket int
}

func newFoldPool(workers int, limit int64) *foldPool {
	if limit <= 0 {
		limit = recording.DefaultMaxRunBytes
	}
	p := &foldPool{limit: limit, above: map[int]bool{}}
	p.work, p.progress = sync.NewCond(&p.mu), sync.NewCond(&p.mu)
	for range workers {
		p.wg.Go(p.serve)
	}
	return p
}

// poolable is a run's fold as the pool drives it (a runFold).
type poolable interface {
	recording.RunFold
	// Fallible and ReadsNames are replay.Fold's.
	Fallible() (anything, config bool)
	ReadsNames(typ string) bool
}

// pooledFold is one run's fold as the loader sees it when the pool folds it.
type pooledFold struct {
	pool  *foldPool
	inner poolable
	// The loader's own: the batch it fills, and what Fallible said after
	// the last event folded on its goroutine.
	batch            *foldBatch
	anyFail, cfgFail bool
	waitFor          int

	// Under pool.mu.
	queue []*foldBatch
	// scheduled: in ready, or being folded by a pool goroutine.
	scheduled bool
	held      bool // waits for the Ends below waitFor
	dropped   bool
	released  bool // inner.Drop was called

	// kept is the fold's Kept after the batches folded, growth the bound
	// of what the batches queued add to it.
	kept, growth atomic.Int64
}

// wrap hands rf's run to the pool. ordered says whether the run may read
// the book of call names (replay.NamesOrder).
func (p *foldPool) wrap(rf poolable, ordered bool) *pooledFold {
	f := &pooledFold{pool: p, inner: rf, anyFail: true, cfgFail: true, waitFor: p.requested}
	p.mu.Lock()
	if ordered && p.folded < f.waitFor {
		f.held = true
		p.parked = append(p.parked, f)
	}
	p.mu.Unlock()
	return f
}

func (f *pooledFold) Add(ev *recording.Event) error {
	p := f.pool
	if err := p.failed(); err != nil {
		return err
	}
	if f.anyFail || f.cfgFail && ev.Type == recording.TypeRunConfigured {
		return f.here(ev.Type, func() error { return f.inner.Add(ev) })
	}
	if p.open != f && p.open != nil {
		p.open.flush()
	}
	p.open = f
	if f.batch == nil {
		f.batch = p.batch()
	}
	b := f.batch
	c := *ev
	if ev.Payload != nil {
		if len(b.arena)+len(ev.Payload) > cap(b.arena) && len(b.events) > 0 {
			f.flush()
			f.batch = p.batch()
			b = f.batch
		}
		at := len(b.arena)
		b.arena = append(b.arena, ev.Payload...)
		c.Payload = b.arena[at:len(b.arena):len(b.arena)]
	}
	b.events = append(b.events, c)
	b.growth += eventGrowth(ev)
	if len(b.events) >= foldBatchEvents || len(b.arena) >= foldBatchBytes {
		f.flush()
	}
	return nil
}

// eventRecord is what a queued event costs beside its payload.
const eventRecord = int64(unsafe.Sizeof(recording.Event{}))

// eventGrowth bounds what folding ev can add to its fold's Kept.
func eventGrowth(ev *recording.Event) int64 {
	n := len(ev.Payload) + len(ev.Type) + len(ev.Meta.RuntimeStageID) + len(ev.Meta.SessionID) + len(ev.Meta.RunID)
	for _, s := range ev.Meta.SubflowPath {
		n += len(s)
	}
	for _, s := range ev.Meta.CompositionPath {
		n += len(s)
	}
	return foldGrowth*int64(n) + foldEventGrowth
}

// Kept is what the fold keeps, bounded from above: its last figure and the
// bounds of the events not folded yet. When that passes the limit, the
// loader waits until it no longer does or every event is folded, and the
// figure is then exact: a run is stopped where a serial fold stops it.
func (f *pooledFold) Kept() int64 {
	var open int64
	if f.batch != nil {
		open = f.batch.growth
	}
	// growth before kept: a batch folded in between is then counted
	// twice, never not at all.
	n := f.growth.Load() + f.kept.Load() + open
	if n <= f.pool.limit {
		return n
	}
	f.flush()
	p := f.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		n = f.growth.Load() + f.kept.Load()
		if n <= p.limit || f.idle() || p.broken {
			return n
		}
		p.progress.Wait()
	}
}

func (f *pooledFold) End() error {
	p := f.pool
	if err := p.failed(); err != nil {
		return err
	}
	p.mu.Lock()
	for p.ends >= foldQueueEnds && !p.broken {
		p.progress.Wait()
	}
	ticket := p.requested
	p.requested++
	p.ends++
	// A run that has not armed arms now, and may fail: on this goroutine,
	// as its other fallible events. So does a run with nothing queued
	// that may go on at once (one-event runs, mostly): handing its End
	// over would cost more than it.
	here := f.anyFail || f.batch == nil && f.idle() && !f.held
	p.mu.Unlock()
	if here {
		// The End counts as folded even if it panics, so that nothing
		// waits for it.
		defer func() {
			p.mu.Lock()
			p.fold(ticket)
			p.mu.Unlock()
		}()
		return f.here("", f.inner.End)
	}
	if f.batch == nil {
		f.batch = p.batch()
	}
	f.batch.end, f.batch.ticket = true, ticket
	f.flush()
	return nil
}

// Drop lets the run go: what is queued is thrown away, and the fold is
// released now, or by the goroutine folding it once it is done.
func (f *pooledFold) Drop() {
	p := f.pool
	if p.open == f {
		p.open = nil
	}
	p.mu.Lock()
	if f.batch != nil {
		p.recycle(f.batch)
		f.batch = nil
	}
	f.abandon()
	release := !f.scheduled && !f.released
	f.released = f.released || release
	p.mu.Unlock()
	if release {
		f.inner.Drop()
	}
}

// abandon empties the run's queue and takes it out of the pool's runs
// (p.mu held).
func (f *pooledFold) abandon() {
	p := f.pool
	f.dropped = true
	for _, b := range f.queue {
		p.queued -= b.bytes
		p.recycle(b)
	}
	f.queue = nil
	f.growth.Store(0)
	p.progress.Broadcast()
}

// here folds what fn folds (an event of type typ, or the End when typ is
// empty) on the loader's goroutine, once the run's queued events are
// folded and, if it may read the book of call names, the Ends it waits
// for are; and notes what the fold may still fail on. A run's first
// run_configured reads nothing of the book, so the loader need not wait
// for the earlier runs' Ends there: the run's later events queue up until
// they are folded.
func (f *pooledFold) here(typ string, fn func() error) error {
	p := f.pool
	f.flush()
	p.mu.Lock()
	for !p.broken && !f.idle() {
		p.progress.Wait()
	}
	for !p.broken && f.held && f.inner.ReadsNames(typ) {
		p.progress.Wait()
	}
	broken := p.broken
	p.mu.Unlock()
	if broken {
		return errFoldBroken
	}
	err := fn()
	if typ != "" {
		f.kept.Store(f.inner.Kept())
		f.anyFail, f.cfgFail = f.inner.Fallible()
	}
	return err
}

// idle reports whether nothing of the run is queued or being folded (p.mu
// held).
func (f *pooledFold) idle() bool { return !f.scheduled && len(f.queue) == 0 }

// flush queues the batch the loader filled, waiting for room first.
func (f *pooledFold) flush() {
	p := f.pool
	if p.open == f {
		p.open = nil
	}
	b := f.batch
	if b == nil {
		return
	}
	f.batch = nil
	// What the batch holds, not only what it fills: a batch of small
	// events still holds its whole arena.
	b.bytes = int64(cap(b.arena)) + int64(cap(b.events))*eventRecord
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.queued > foldQueueBytes && !p.broken {
		p.progress.Wait()
	}
	if f.dropped {
		p.recycle(b)
		return
	}
	p.queued += b.bytes
	f.growth.Add(b.growth)
	f.queue = append(f.queue, b)
	f.schedule()
}

// schedule puts the run in ready when it has work and may do it (p.mu
// held).
func (f *pooledFold) schedule() {
	if f.scheduled || f.held || f.dropped || len(f.queue) == 0 {
		return
	}
	f.scheduled = true
	f.pool.busy++
	f.pool.ready = append(f.pool.ready, f)
	f.pool.work.Signal()
}

// batch is an empty batch, reused when one is free (the loader's).
func (p *foldPool) batch() *foldBatch {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		return b
	}
	return &foldBatch{arena: make([]byte, 0, foldBatchBytes)}
}

// recycle keeps a batch for reuse, unless it grew for a large payload
// (p.mu held).
func (p *foldPool) recycle(b *foldBatch) {
	if cap(b.arena) > 2*foldBatchBytes || len(p.free) >= foldFreeBatches {
		return
	}
	clear(b.events)
	*b = foldBatch{events: b.events[:0], arena: b.arena[:0]}
	p.free = append(p.free, b)
}

// fold notes that End number ticket is folded, and lets the runs that
// waited for it go on (p.mu held).
func (p *foldPool) fold(ticket int) {
	p.ends--
	p.above[ticket] = true
	for p.above[p.folded] {
		delete(p.above, p.folded)
		p.folded++
	}
	for len(p.parked) > 0 && p.parked[0].waitFor <= p.folded {
		f := p.parked[0]
		p.parked[0] = nil
		p.parked = p.parked[1:]
		f.held = false
		f.schedule()
	}
	p.progress.Broadcast()
}

// errFoldBroken stops an input whose folds can no longer be trusted: a
// fold panicked on a pool goroutine, and close carries the panic out.
var errFoldBroken = errors.New("a run's replay stopped")

// failed is the error that stops the input, once a fold failed on a pool
// goroutine.
func (p *foldPool) failed() error {
	if !p.stopped.Load() {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.broken {
		return errFoldBroken
	}
	return p.err
}

// serve folds the ready runs' batches until the pool closes.
func (p *foldPool) serve() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		for len(p.ready) == 0 && !p.closing {
			p.work.Wait()
		}
		if len(p.ready) == 0 {
			return
		}
		f := p.ready[0]
		p.ready[0] = nil
		p.ready = p.ready[1:]
		for {
			if p.broken {
				f.abandon()
			}
			if f.dropped || len(f.queue) == 0 {
				break
			}
			b := f.queue[0]
			f.queue[0] = nil
			f.queue = f.queue[1:]
			p.mu.Unlock()
			err := p.foldBatch(f, b)
			p.mu.Lock()
			if err != nil && p.err == nil {
				p.err = err
				p.stopped.Store(true)
			}
			p.queued -= b.bytes
			f.growth.Add(-b.growth)
			if b.end {
				p.fold(b.ticket)
			}
			p.recycle(b)
			p.progress.Broadcast()
		}
		f.scheduled = false
		p.busy--
		if f.dropped && !f.released {
			f.released = true
			p.mu.Unlock()
			f.inner.Drop()
			p.mu.Lock()
		}
		p.progress.Broadcast()
	}
}

// foldBatch folds one batch of a run, and its End when the batch ends the
// run. A panic breaks the pool: it is kept for close, and every wait on
// the pool ends.
func (p *foldPool) foldBatch(f *pooledFold, b *foldBatch) (err error) {
	defer func() {
		if v := recover(); v != nil {
			p.pan.Keep(v)
			p.mu.Lock()
			p.broken = true
			p.stopped.Store(true)
			p.progress.Broadcast()
			p.mu.Unlock()
			err = errFoldBroken
		}
	}()
	foldTestHook()
	for i := range b.events {
		if err := f.inner.Add(&b.events[i]); err != nil {
			return err
		}
	}
	if b.end {
		// Nothing asks what an ended fold keeps.
		return f.inner.End()
	}
	f.kept.Store(f.inner.Kept())
	return nil
}

// close folds what was queued and stops the pool's goroutines. The runs
// never ended (the input stopped before their end) are let go with what
// they hold, as the loader lets them go. A panic on one of the pool's
// goroutines is carried out here; an error one returned is the input's.
func (p *foldPool) close() error {
	if p.open != nil {
		p.open.flush()
	}
	p.mu.Lock()
	for !p.broken && (p.ends > 0 || p.busy > 0) {
		p.progress.Wait()
	}
	p.closing = true
	p.work.Broadcast()
	p.mu.Unlock()
	p.wg.Wait()
	p.pan.Rethrow()
	return p.err
}

// abort stops the pool's goroutines without folding what is queued: for a
// loader that is unwinding from a panic of its own.
func (p *foldPool) abort() {
	p.mu.Lock()
	p.broken, p.closing = true, true
	p.stopped.Store(true)
	p.work.Broadcast()
	p.progress.Broadcast()
	p.mu.Unlock()
	p.wg.Wait()
}
