package recording

import (
	"runtime"
	"testing"
)

// waitingFor spins until a take waits on g, and returns the bytes it asks.
func waitingFor(g *batchGate) int {
	for {
		g.mu.Lock()
		want := g.want
		g.mu.Unlock()
		if want >= 0 {
			return want
		}
		runtime.Gosched()
	}
}

// TestBatchGateLetsAWaitingReaderGoOnlyAtLowWater: a reader that found the
// gate full goes on only once the batches in flight have fallen to low (or
// nothing is in flight), whatever the bounds that stopped it.
func TestBatchGateLetsAWaitingReaderGoOnlyAtLowWater(t *testing.T) {
	for _, tc := range []struct {
		name             string
		limit, most, low int
		held             []int // batches taken before the reader waits
		next             int   // the waiting reader's batch
		wantInFlight     int   // batches in flight when it is woken
	}{
		{"count", 1000, 4, 1, []int{10, 10, 10, 10}, 10, 1},
		{"count, low 0", 1000, 3, 0, []int{10, 10, 10}, 10, 0},
		{"bytes", 100, 10, 2, []int{40, 40}, 40, 1},
		{"larger than the budget", 100, 10, 3, []int{10, 10}, 500, 0},
		{"low above most", 1000, 2, 5, []int{1, 1}, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newBatchGate(tc.limit, tc.most, tc.low)
			for _, n := range tc.held {
				if !g.take(n) {
					t.Fatalf("take(%d) refused before the gate filled", n)
				}
			}
			took := make(chan bool)
			go func() { took <- g.take(tc.next) }()
			if got := waitingFor(g); got != tc.next {
				t.Fatalf("the waiting take asks %d bytes, want %d", got, tc.next)
			}
			woken := -1
			for i, n := range tc.held {
				if g.give(n) && woken < 0 {
					woken = len(tc.held) - i - 1
				}
			}
			if woken != tc.wantInFlight {
				t.Errorf("the reader was woken with %d batches in flight, want %d", woken, tc.wantInFlight)
			}
			if !<-took {
				t.Fatal("take refused with nothing halted")
			}
		})
	}
}

// TestBatchGateHaltReleasesAWaitingReader: halt lets a waiting take go,
// refused.
func TestBatchGateHaltReleasesAWaitingReader(t *testing.T) {
	g := newBatchGate(100, 1, 0)
	if !g.take(10) {
		t.Fatal("first take refused")
	}
	done := make(chan bool)
	go func() { done <- g.take(10) }()
	waitingFor(g)
	g.halt()
	if <-done {
		t.Fatal("a take released by halt reported true")
	}
	if g.take(1) {
		t.Fatal("a take after halt reported true")
	}
}
