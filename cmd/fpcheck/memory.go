package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/fpcheck/fpcheck/recording"
)

// softMemoryLimit bounds fpcheck's footprint when little is live. CI
// machines are small, and the collector's default headroom lets the heap
// grow to twice what is live before it collects, however much that is;
// under a soft limit it collects before the limit instead (and, while the
// limit is this one, only then: see firstCollection). A GOMEMLIMIT set in
// the environment wins.
//
// 72 MiB keeps a 1 GiB real-shaped stream's process, binary included,
// under 100 MB; it cost that stream 4–6 % more CPU than 80 MiB did (more
// collections near the end, when its runs' summaries are most of the
// heap), and made no measurable difference on shorter streams, whose live
// heap stays well under it.
const softMemoryLimit = 72 << 20

// armedSoftMemoryLimit is softMemoryLimit when a declarations file arms
// checks: the floor the soft limit keeps to whatever is live (see
// setBudget). An armed replay allocates two to three times as much for
// the same input (the payloads it reads, the claims' trees), so under the
// unarmed floor it is collected two to three times as often: the 1 GiB
// real-shaped stream armed spent a fifth of its CPU more than under this
// one. (c) allows an armed run 128 MB against an unarmed one's 100 MB,
// and this keeps the same room below it for the binary and the runtime.
const armedSoftMemoryLimit = 96 << 20

// armedFloorAfter is what the process allocates before the armed floor
// applies; until then an armed replay keeps to softMemoryLimit. The
// higher floor buys fewer collections with a larger heap, and each page
// of that heap costs a fault the first time it is touched (about 10 µs
// on a virtual machine), once, while the collections it saves are saved
// over the whole input: only a long input pays the faults back. The
// 300 MB real-shaped stream armed allocates about 280 MB, and took 2–5 %
// less CPU under the unarmed floor (18,000 faults instead of 23,400, 9
// collections instead of 6); the 1 GiB stream armed took a fifth more
// CPU under the unarmed floor throughout, and 1 % more with this.
const armedFloorAfter = 512 << 20

// memoryAllowance is what the process holds besides its runs, in the soft
// limit the budget sets: the binary and runtime, a line being decoded, a
// zstd window (at most 128 MiB, taken by the rare stream written with
// --long), the report's summaries.
const memoryAllowance = 128 << 20

// budgetLimit is the soft limit the limits allow: each run replayed at
// once (jobs of them) may keep maxRunBytes, beside the fixed allowance.
// maxRunBytes 0 is the flag's default, as the flag reads it.
func budgetLimit(maxRunBytes int64, jobs int) int64 {
	if maxRunBytes <= 0 {
		maxRunBytes = recording.DefaultMaxRunBytes
	}
	jobs = max(1, jobs)
	const most = math.MaxInt64 - memoryAllowance
	if maxRunBytes > most/int64(jobs) {
		return math.MaxInt64
	}
	return memoryAllowance + maxRunBytes*int64(jobs)
}

// memoryLimit sets the soft limit from the budget and the live heap.
//
// The budget (budgetLimit) is the ceiling: a heap the limits allow never
// needs more, and under it the collector collects before the process
// grows past what --max-run-bytes and --jobs promise. But a fixed limit is
// wrong once the live data comes near it: the collector then runs back
// to back, on up to half the CPU (its limiter's cap). Runs whose checks
// read many payloads (every check armed, long tool results) keep that
// much live, and a 1 GiB stream of them took half as long again under a
// fixed 80 MiB; a stream of 30 MB tool results took four times as long,
// the collector spinning to stop goroutines that were copying those
// lines. So after each collection the limit becomes the live heap, the
// runtime's overhead beside it and a fifth of the live heap more (see
// nextLimit), up to the ceiling, and never less than the live heap, its
// overhead and an eighth, the ceiling included: what the replay keeps
// beside its events is not counted by --max-run-bytes, and a live heap
// past the budget gets a collector that keeps up, not one that spins.
// The limit is not lowered when the live heap shrinks, unless it is
// above the ceiling: the next run of a stream grows back to the same size, and
// below the limit the collector keeps to its usual goal of twice the live
// heap anyway.
type memoryLimit struct {
	mu      sync.Mutex
	on      bool
	current int64
	// ceiling is the budget's limit; 0 until the flags are read, and
	// when a report keeps every run whole (--format html), which no
	// limit bounds. floor is the least limit, softMemoryLimit until the
	// flags say whether checks are armed (an armed floor holds only
	// after armedFloorAfter: see floorAfter).
	ceiling int64
	floor   int64
	// heap is what setLocked reads of the runtime after a collection:
	// the live heap, then the classes of memory the soft limit counts
	// besides it (see overheadOf), then the bytes allocated so far.
	heap []metrics.Sample
	// first is true until the first collection, under firstCollection
	// with GOGC off. gcOff is true while GOGC stays off after it, the
	// soft limit alone pacing the collector (see setLocked); gcPercent
	// is GOGC to return to then.
	first     bool
	gcOff     bool
	gcPercent int
}

var memLimit memoryLimit

// firstCollection is the soft limit until the first collection, when
// GOGC is not set: the heap grows from nothing to that size without a
// collection, so a short job (a recording of a few tens of MB) is not
// collected at all, where the collector's own goal (twice the live heap,
// from 4 MiB) collected an 84 MB recording's heap five times in its first
// 50 ms. After the first, the soft limit starts from its floor
// (softMemoryLimit, or armedSoftMemoryLimit) and follows the live heap
// (setLocked).
//
// While the limit is its floor, GOGC stays off: the heap may grow to
// that limit between collections whatever is live, where twice a small live
// heap collected a stream's garbage every few MB (the 300 MB real-shaped
// stream armed: 21 collections, now 12; CPU 3.4 % less armed and 3.3 %
// unarmed, peak RSS at most the limit's). Once the live heap needs more (the
// limit rises), the collector keeps to GOGC again, so a heap that shrinks
// after a large run is collected near its live size, not at the raised
// limit.
const firstCollection = 48 << 20

// start sets the soft limit, unless GOMEMLIMIT is set.
func (m *memoryLimit) start() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	m.on = true
	m.current, m.floor = softMemoryLimit, softMemoryLimit
	m.heap = heapSamples()
	if os.Getenv("GOGC") == "" {
		m.first, m.gcOff = true, true
		m.gcPercent = debug.SetGCPercent(-1)
		debug.SetMemoryLimit(firstCollection)
	} else {
		debug.SetMemoryLimit(softMemoryLimit)
	}
	m.afterNextGC()
}

// setBudget keeps the soft limit at floor or above and bounds it by
// ceiling (0 for none), once the flags say what the limits are and
// whether checks are armed. It does nothing unless start set the limit:
// under GOMEMLIMIT, or in a test calling Main, the runtime's limit is
// left alone.
func (m *memoryLimit) setBudget(floor, ceiling int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.on {
		return
	}
	m.floor, m.ceiling = floor, ceiling
	m.setLocked()
}

// gcSentinel is garbage as soon as it is made; its finalizer runs once
// the collector has found that out, which is after each collection. (A
// pointer-sized object would be a tiny allocation, which may share its
// block, and its finalizer, with others.)
type gcSentinel struct{ _ [32]byte }

// afterNextGC calls adapt after the next collection, and again after each
// one after it while the limit is on: the runtime offers no other hook on
// a collection.
func (m *memoryLimit) afterNextGC() {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		if m.adapt() {
			m.afterNextGC()
		}
	})
}

// adapt moves the limit after a collection. It reports whether the limit
// is on.
func (m *memoryLimit) adapt() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.on {
		return false
	}
	if m.first {
		m.first = false
		debug.SetMemoryLimit(m.current)
	}
	m.setLocked()
	return true
}

// setLocked sets the limit nextLimit gives for the live heap now.
func (m *memoryLimit) setLocked() {
	metrics.Read(m.heap)
	live, overhead, ok := overheadOf(m.heap)
	if !ok {
		return
	}
	floor := floorAfter(m.floor, allocatedOf(m.heap))
	if next, ok := nextLimit(m.current, live, overhead, floor, m.ceiling); ok {
		m.current = next
		if !m.first {
			debug.SetMemoryLimit(next)
		}
	}
	if m.gcOff && !m.first && m.current > floor {
		m.gcOff = false
		debug.SetGCPercent(m.gcPercent)
	}
}

// heapSamples names what overheadOf reads, in its order, then what
// allocatedOf reads.
func heapSamples() []metrics.Sample {
	return []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/heap/allocs:bytes"},
	}
}

// allocatedOf is the bytes allocated since the process started, of
// heapSamples as read.
func allocatedOf(s []metrics.Sample) int64 {
	v := s[len(s)-1].Value
	if v.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(min(v.Uint64(), math.MaxInt64))
}

// floorAfter is the floor the limit keeps to once allocated bytes are
// allocated: floor, unless it is above softMemoryLimit and the process
// has not yet allocated armedFloorAfter (see there).
func floorAfter(floor, allocated int64) int64 {
	if floor > softMemoryLimit && allocated < armedFloorAfter {
		return softMemoryLimit
	}
	return floor
}

// overheadOf reads heapSamples: the live heap, and the memory the soft
// limit counts that holds no object and cannot take a new one — the
// unused room of spans in use, the runtime's metadata, stacks and
// buffers. Past a few tens of MB of live heap that is 15–25 % of it, and
// a limit that does not leave room for it leaves the heap little to
// grow into between collections.
func overheadOf(s []metrics.Sample) (live, overhead int64, ok bool) {
	var v [5]int64
	for i := range v {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0, 0, false
		}
		v[i] = int64(s[i].Value.Uint64())
	}
	return v[0], max(0, v[1]-v[2]-v[3]-v[4]), true
}

// nextLimit is the soft limit to set for a live heap of live bytes and
// overhead bytes beside it (see overheadOf), under a limit of current,
// a floor and a ceiling (0 for none), and whether to set it: room for the
// live heap, its overhead and a fifth of the live heap more to allocate
// into between collections (at least the floor in all), at most the ceiling,
// where the heap still gets its overhead and an eighth. It is set when it
// rises by more than a thirty-second, or when it comes down from above the
// ceiling.
//
// The limit used to be half as much again as the live heap, set when that
// rose by an eighth. For a live heap of many small objects, as a long
// stream's run summaries are, the overhead is a quarter of it, and that
// limit, lagging up to an eighth behind a growing heap, left the heap
// 2–11 MB to grow into: the collector ran every few MB. The 1 GiB
// real-shaped stream armed spent 4.6 s of its 12.6 s CPU in 139
// collections; with a fifth beside the overhead it takes 15 % less CPU,
// and peaks about 4 MB higher (122–126 MB, under (c)'s 128). A heap of few
// large objects (one run's long results) has less room than half its size
// gave it, and is collected more often for it, in less memory (65,536
// identical 32 KiB results: 14 % more CPU, about 5 MB less).
func nextLimit(current, live, overhead, floor, ceiling int64) (int64, bool) {
	want := max(floor, live+overhead+live/5)
	if ceiling > 0 && want > ceiling {
		want = max(ceiling, live+overhead+live/8)
	}
	switch {
	case want > current+current/32:
		return want, true
	case ceiling > 0 && current > ceiling && want < current:
		return want, true
	}
	return want, false
}
