package main

import (
	"os"
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
// 80 MiB. So after each run the limit becomes at least half as much again
// as the live heap. It is not lowered when a run ends: the next run of a
// stream grows back to the same size, and below the limit the collector
// keeps to its usual goal of twice the live heap anyway.
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
}

// adapt raises the limit after a run, when it has to rise by more than an
// eighth: setting it stops the world, and a stream may hold many runs.
func (m *memoryLimit) adapt() {
	if !m.on {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	metrics.Read(m.live[:])
	if m.live[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	if next, ok := raisedLimit(m.current, int64(m.live[0].Value.Uint64())); ok {
		debug.SetMemoryLimit(next)
		m.current = next
	}
}

// raisedLimit is the soft limit to set for a live heap of live bytes
// under a limit of current, and whether to set it: half as much again as
// the live heap, when that is more than an eighth above current.
func raisedLimit(current, live int64) (int64, bool) {
	want := max(softMemoryLimit, live+live/2)
	return want, want > current+current/8
}
