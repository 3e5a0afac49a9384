package replay

import (
	"sync"

	"github.com/fpcheck/fpcheck/checks"
)

// runScratch carries the containers a run's engine grows as the run is
// folded, from one run to the next (its text store hands on its own, see
// storeLent): a stream replays thousands of runs, and each grew its maps
// and lists from empty, a tenth of what an armed replay allocates. They
// are lent only while a run is folded and handed back empty when it is
// released; a container grown past maxLentEntries is let go instead, so
// one long run does not make every later one clear or hold as much.
type runScratch struct {
	injectedByHash map[string][]keptMessage
	toolCalls      map[string]checks.ToolCall
	history        []histEntry
	known          []checks.Message
}

const maxLentEntries = 1 << 10

var scratchPool = sync.Pool{New: func() any { return new(runScratch) }}

// lendScratch takes a carrier from the pool; its containers are empty or
// nil.
func lendScratch() *runScratch { return scratchPool.Get().(*runScratch) }

// giveBack returns s to the pool.
func giveBack(s *runScratch) { scratchPool.Put(s) }

// lendMap is m when the pool had one, else a new map.
func lendMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return map[K]V{}
	}
	return m
}

// keepMap empties m for the next run, or lets it go when it grew past
// maxLentEntries.
func keepMap[K comparable, V any](m map[K]V) map[K]V {
	if len(m) > maxLentEntries {
		return nil
	}
	clear(m)
	return m
}

// keepSlice empties s for the next run (clearing what it held, so the
// pool keeps nothing of this run alive), or lets it go when it grew past
// maxLentEntries.
func keepSlice[T any](s []T) []T {
	if cap(s) > maxLentEntries {
		return nil
	}
	clear(s[:cap(s)])
	return s[:0]
}
