package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fpcheck/fpcheck/recording"
)

func TestNextLimit(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name                                    string
		current, live, overhead, floor, ceiling int64
		want                                    int64
		set                                     bool
	}{
		{"small live heap keeps the soft limit", softMemoryLimit, 20 * mib, 5 * mib, softMemoryLimit, 0, softMemoryLimit, false},
		{"live heap near the limit raises it", softMemoryLimit, 70 * mib, 10 * mib, softMemoryLimit, 0, 94 * mib, true},
		{"the overhead is room the heap cannot use", softMemoryLimit, 50 * mib, 20 * mib, softMemoryLimit, 0, 80 * mib, true},
		{"a rise of a thirty-second or less waits", 100 * mib, 80 * mib, 4 * mib, softMemoryLimit, 0, 100 * mib, false},
		{"a rise of more is set", 100 * mib, 85 * mib, 4 * mib, softMemoryLimit, 0, 106 * mib, true},
		{"a shrinking live heap does not lower it", 150 * mib, 30 * mib, 5 * mib, softMemoryLimit, 0, softMemoryLimit, false},
		{"a large live heap", 150 * mib, 200 * mib, 20 * mib, softMemoryLimit, 0, 260 * mib, true},
		{"the ceiling stops the rise", 200 * mib, 330 * mib, 10 * mib, softMemoryLimit, 384 * mib, 384 * mib, true},
		{"under the ceiling it follows the live heap", softMemoryLimit, 100 * mib, 10 * mib, softMemoryLimit, 384 * mib, 130 * mib, true},
		{"at the ceiling a larger live heap still gets its overhead and an eighth", 384 * mib, 400 * mib, 16 * mib, softMemoryLimit, 384 * mib, 466 * mib, true},
		{"a limit set before the ceiling comes down to it", 900 * mib, 100 * mib, 10 * mib, softMemoryLimit, 384 * mib, 130 * mib, true},
		{"a limit above the ceiling follows a shrinking live heap down", 450 * mib, 360 * mib, 0, softMemoryLimit, 384 * mib, 405 * mib, true},
		{"at the ceiling a shrinking live heap does not lower it", 384 * mib, 100 * mib, 10 * mib, softMemoryLimit, 384 * mib, 130 * mib, false},
		{"the armed floor lifts the limit of a small live heap", softMemoryLimit, 20 * mib, 5 * mib, armedSoftMemoryLimit, 0, armedSoftMemoryLimit, true},
		{"a small live heap keeps the armed floor", armedSoftMemoryLimit, 20 * mib, 5 * mib, armedSoftMemoryLimit, 0, armedSoftMemoryLimit, false},
		{"a live heap past the armed floor raises it", armedSoftMemoryLimit, 90 * mib, 10 * mib, armedSoftMemoryLimit, 0, 118 * mib, true},
		{"the ceiling bounds an armed limit too", armedSoftMemoryLimit, 96 * mib, 10 * mib, armedSoftMemoryLimit, 110 * mib, 118 * mib, true},
	}
	for _, tt := range tests {
		got, set := nextLimit(tt.current, tt.live, tt.overhead, tt.floor, tt.ceiling)
		if set != tt.set || (set && got != tt.want) {
			t.Errorf("%s: nextLimit(%d MiB, %d MiB, %d MiB, %d MiB, %d MiB) = %d MiB, %v; want %d MiB, %v",
				tt.name, tt.current/mib, tt.live/mib, tt.overhead/mib, tt.floor/mib, tt.ceiling/mib, got/mib, set, tt.want/mib, tt.set)
		}
	}
}

// The runtime's classes are read as overheadOf says: what the limit
// counts beside the objects, the free room and what went back to the
// system; a sample the runtime does not know is no reading.
func TestOverheadOf(t *testing.T) {
	runtime.GC() // the live heap is known after a collection
	s := heapSamples()
	metrics.Read(s)
	live, overhead, ok := overheadOf(s)
	if !ok || live <= 0 || overhead <= 0 {
		t.Fatalf("live %d, overhead %d, ok %v", live, overhead, ok)
	}
	total := int64(s[1].Value.Uint64())
	if overhead >= total || live >= total {
		t.Errorf("live %d and overhead %d of %d in all", live, overhead, total)
	}
	s[3] = metrics.Sample{Name: "/no/such:bytes"}
	metrics.Read(s)
	if _, _, ok := overheadOf(s); ok {
		t.Error("an unknown sample was read")
	}
}

func TestBudgetLimit(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name        string
		maxRunBytes int64
		jobs        int
		want        int64
	}{
		{"the default run budget, one job", 0, 1, memoryAllowance + recording.DefaultMaxRunBytes},
		{"the default run budget, two jobs", 0, 2, memoryAllowance + 2*recording.DefaultMaxRunBytes},
		{"a lowered run budget", 64 * mib, 4, memoryAllowance + 256*mib},
		{"no jobs counts as one", 64 * mib, 0, memoryAllowance + 64*mib},
		{"a budget past int64 is no ceiling short of it", math.MaxInt64 / 2, 3, math.MaxInt64},
		{"the largest budget that fits", math.MaxInt64 - memoryAllowance, 1, math.MaxInt64},
	}
	for _, tt := range tests {
		if got := budgetLimit(tt.maxRunBytes, tt.jobs); got != tt.want {
			t.Errorf("%s: budgetLimit(%d, %d) = %d, want %d", tt.name, tt.maxRunBytes, tt.jobs, got, tt.want)
		}
	}
}

// TestCeilingFromTheFlags: analyze bounds the soft limit by the budget of
// its --max-run-bytes and --jobs, and brings a limit far above it down.
func TestCeilingFromTheFlags(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(4 << 30))
	memLimit.mu.Lock()
	memLimit.on, memLimit.current, memLimit.ceiling = true, 4<<30, 0
	memLimit.heap = heapSamples()
	memLimit.mu.Unlock()
	defer func() {
		memLimit.mu.Lock()
		memLimit.on, memLimit.ceiling = false, 0
		memLimit.mu.Unlock()
	}()
	run(t, nil, "analyze", "--color=never", "--max-run-bytes", "1048576", "-j", "2", "../../testdata/recordings/demo/triage.jsonl")
	memLimit.mu.Lock()
	ceiling, current, floor := memLimit.ceiling, memLimit.current, memLimit.floor
	memLimit.mu.Unlock()
	if want := budgetLimit(1<<20, 2); ceiling != want {
		t.Errorf("ceiling %d MiB, want %d MiB", ceiling>>20, want>>20)
	}
	if floor != softMemoryLimit {
		t.Errorf("floor %d MiB with nothing declared, want %d MiB", floor>>20, softMemoryLimit>>20)
	}
	// Where it comes down to depends on this test process's live heap
	// (TestNextLimit has the formula); that it comes down does not.
	if current >= 4<<30 {
		t.Errorf("the limit stayed at %d MiB, above the %d MiB ceiling", current>>20, ceiling>>20)
	}
	if got := debug.SetMemoryLimit(-1); got != current {
		t.Errorf("the runtime's limit is %d, the recorded one %d", got, current)
	}
	// Declarations arm checks, and the limit keeps to the armed floor
	// once the process has allocated enough.
	run(t, nil, "analyze", "--color=never", "--declarations", "../../testdata/recordings/demo/declarations.yaml", "../../testdata/recordings/demo/triage.jsonl")
	memLimit.mu.Lock()
	floor, current = memLimit.floor, memLimit.current
	memLimit.mu.Unlock()
	s := heapSamples()
	metrics.Read(s)
	if want := floorAfter(armedSoftMemoryLimit, allocatedOf(s)); floor != armedSoftMemoryLimit || current < want {
		t.Errorf("declared: floor %d MiB, limit %d MiB; want %d MiB and at least %d MiB", floor>>20, current>>20, armedSoftMemoryLimit>>20, want>>20)
	}
}

// TestFloorAfter: the armed floor applies once the process has allocated
// armedFloorAfter; the unarmed floor, and any floor at or below it, from
// the start.
func TestFloorAfter(t *testing.T) {
	for _, tc := range []struct {
		name             string
		floor, allocated int64
		want             int64
	}{
		{"unarmed, at the start", softMemoryLimit, 0, softMemoryLimit},
		{"unarmed, late", softMemoryLimit, 8 << 30, softMemoryLimit},
		{"armed, at the start", armedSoftMemoryLimit, 0, softMemoryLimit},
		{"armed, just short", armedSoftMemoryLimit, armedFloorAfter - 1, softMemoryLimit},
		{"armed, once allocated", armedSoftMemoryLimit, armedFloorAfter, armedSoftMemoryLimit},
		{"armed, late", armedSoftMemoryLimit, 8 << 30, armedSoftMemoryLimit},
		{"a floor below the unarmed one", 32 << 20, 0, 32 << 20},
	} {
		if got := floorAfter(tc.floor, tc.allocated); got != tc.want {
			t.Errorf("%s: floorAfter(%d MiB, %d) = %d MiB, want %d MiB", tc.name, tc.floor>>20, tc.allocated, got>>20, tc.want>>20)
		}
	}
}

// TestGOMEMLIMITWins: with GOMEMLIMIT in the environment, neither the
// start nor the flags' budget touch the runtime's limit. It runs in a
// child, since the runtime reads GOMEMLIMIT only as it starts.
func TestGOMEMLIMITWins(t *testing.T) {
	if os.Getenv("FPCHECK_TEST_GOMEMLIMIT") != "" {
		memLimit.start()
		memLimit.setBudget(softMemoryLimit, budgetLimit(1<<20, 1))
		runtime.GC()
		runtime.GC()
		fmt.Println(debug.SetMemoryLimit(-1))
		return
	}
	for _, env := range []string{"150MiB", "off"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestGOMEMLIMITWins$")
		cmd.Env = append(os.Environ(), "FPCHECK_TEST_GOMEMLIMIT=1", "GOMEMLIMIT="+env)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOMEMLIMIT=%s: %v", env, err)
		}
		want := int64(150 << 20)
		if env == "off" {
			want = math.MaxInt64
		}
		if got := strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0]); got != strconv.FormatInt(want, 10) {
			t.Errorf("GOMEMLIMIT=%s: the runtime's limit is %s, want %d", env, got, want)
		}
	}
}

// TestLimitFollowsTheLiveHeap: the soft limit rises after a collection
// that finds more live than it allows for, without waiting for a run to
// end; GOGC is off until the first collection, stays off while the limit
// is softMemoryLimit, and is back once the limit rises.
func TestLimitFollowsTheLiveHeap(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	m := &memoryLimit{}
	m.start()
	// Until the first collection, the heap grows to firstCollection
	// without one.
	if os.Getenv("GOGC") == "" {
		if got := debug.SetGCPercent(-1); got != -1 {
			t.Errorf("GOGC is %d before the first collection, want off", got)
		}
		if got := debug.SetMemoryLimit(-1); got != firstCollection {
			t.Errorf("the limit is %d before the first collection, want %d", got, firstCollection)
		}
	}
	defer func() {
		m.mu.Lock()
		m.on = false
		m.mu.Unlock()
	}()
	// After the first collection GOGC stays off while the limit is
	// softMemoryLimit (the limit alone paces the collector), and is back
	// once the limit has risen: with the little this test holds live,
	// the first; with what tests before it left live, maybe the second.
	runtime.GC()
	time.Sleep(10 * time.Millisecond) // the finalizer that adapts runs on its own goroutine
	m.mu.Lock()
	first, gcOff, current := m.first, m.gcOff, m.current
	m.mu.Unlock()
	if os.Getenv("GOGC") == "" && !first {
		got := debug.SetGCPercent(-1)
		debug.SetGCPercent(got)
		if wantOff := current <= softMemoryLimit; gcOff != wantOff || (got == -1) != wantOff {
			t.Errorf("limit %d MiB: GOGC %d (off recorded %v), want off %v", current>>20, got, gcOff, wantOff)
		}
	}
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
			if got := debug.SetGCPercent(100); got != 100 {
				t.Errorf("GOGC is %d once the limit rose, want 100 again", got)
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
