package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestRaisedLimit(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name          string
		current, live int64
		want          int64
		set           bool
	}{
		{"small live heap keeps the soft limit", softMemoryLimit, 20 * mib, softMemoryLimit, false},
		{"live heap near the limit raises it", softMemoryLimit, 70 * mib, 105 * mib, true},
		{"a rise of an eighth or less waits", 100 * mib, 72 * mib, 108 * mib, false},
		{"a shrinking live heap does not lower it", 150 * mib, 30 * mib, softMemoryLimit, false},
		{"a large live heap", 150 * mib, 200 * mib, 300 * mib, true},
	}
	for _, tt := range tests {
		got, set := raisedLimit(tt.current, tt.live)
		if set != tt.set || (set && got != tt.want) {
			t.Errorf("%s: raisedLimit(%d MiB, %d MiB) = %d MiB, %v; want %d MiB, %v",
				tt.name, tt.current/mib, tt.live/mib, got/mib, set, tt.want/mib, tt.set)
		}
	}
}

// TestLimitFollowsTheLiveHeap: the soft limit rises after a collection
// that finds more live than it allows for, without waiting for a run to
// end.
func TestLimitFollowsTheLiveHeap(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	m := &memoryLimit{}
	m.start()
	defer func() {
		m.mu.Lock()
		m.on = false
		m.mu.Unlock()
	}()
	live := make([][]byte, 0, 96)
	for range 96 {
		live = append(live, make([]byte, 1<<20))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		m.mu.Lock()
		current := m.current
		m.mu.Unlock()
		if current > softMemoryLimit {
			if got := debug.SetMemoryLimit(-1); got != current {
				t.Errorf("the runtime's limit is %d, the recorded one %d", got, current)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the limit stayed at %d MiB with %d MiB live", current>>20, len(live))
		}
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(live)
}
