package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// softMemoryLimit keeps fpcheck's footprint near its live data. CI machines
// are small, and the collector's default headroom lets the heap grow to
// twice what is live before it collects; under a soft limit it collects
// earlier instead. A GOMEMLIMIT set in the environment wins.
const softMemoryLimit = 80 << 20

// memoryLimit raises the soft limit with the live heap. A fixed limit is
// wrong once the live data comes near it: the collector then runs back to
// back, on up to half the CPU (its limiter's cap). Runs whose checks read
// many payloads (every check armed, long tool results) keep that much
// live, and a 1 GiB stream of them took half as long again under a fixed
// 80 MiB; a stream of 30 MB tool results took four times as long, the
// collector spinning to stop goroutines that were copying those lines. So
// after each collection the limit becomes at least half as much again as
// the live heap. It is not lowered when the live heap shrinks: the next
// run of a stream grows back to the same size, and below the limit the
// collector keeps to its usual goal of twice the live heap anyway.
type memoryLimit struct {
	mu      sync.Mutex
	on      bool
	current int64
	live    [1]metrics.Sample
}

var memLimit memoryLimit

// start sets the soft limit, unless GOMEMLIMIT is set.
func (m *memoryLimit) start() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	m.on = true
	m.current = softMemoryLimit
	m.live[0].Name = "/gc/heap/live:bytes"
	debug.SetMemoryLimit(softMemoryLimit)
	m.afterNextGC()
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

// adapt raises the limit, when it has to rise by more than an eighth
// (setting it stops the world). It reports whether the limit is on.
func (m *memoryLimit) adapt() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.on {
		return false
	}
	metrics.Read(m.live[:])
	if m.live[0].Value.Kind() != metrics.KindUint64 {
		return true
	}
	if next, ok := raisedLimit(m.current, int64(m.live[0].Value.Uint64())); ok {
		debug.SetMemoryLimit(next)
		m.current = next
	}
	return true
}

// raisedLimit is the soft limit to set for a live heap of live bytes
// under a limit of current, and whether to set it: half as much again as
// the live heap, when that is more than an eighth above current.
func raisedLimit(current, live int64) (int64, bool) {
	want := max(softMemoryLimit, live+live/2)
	return want, want > current+current/8
}
