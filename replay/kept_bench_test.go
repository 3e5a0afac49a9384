package replay

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fpcheck/fpcheck/recording"
)

// keptRun generates, one event at a time, a run of n model calls that
// each fetch one tool result of about size bytes (the same text in every
// call unless distinct), with every check armed by synthArmAll for its
// tools; every queryEvery-th call also looks up a host of an earlier
// result, which comes back empty. Nothing of it is held but the event
// being handed over, so what a replay of it keeps is what the engine
// keeps.
func keptRun(n, size int, distinct bool, queryEvery int, yield func(*recording.Event)) {
	var line int64
	emit := func(typ, payload string) {
		line++
		yield(&recording.Event{Type: typ, Payload: []byte(payload), Line: line, Index: line - 1,
			Meta: recording.Meta{RunID: "run-kept", RuntimeStageID: "stage#" + strconv.FormatInt(line, 10)}})
	}
	filler := strconv.Quote(strings.Repeat("abcdefghij klmnopqrst uvwxyz0123 ", size/33+1)[:size])
	emit(recording.TypeTurnStart, `{"userPrompt":"Which hosts of zone z1 are at risk?"}`)
	for i := range n {
		host := "host-000000"
		if distinct {
			host = fmt.Sprintf("host-%06d", i)
		}
		emit(recording.TypeLLMStart, fmt.Sprintf(`{"iteration":%d,"provider":"mock","tools":[{"name":"fleet_report"},{"name":"backup_status"}],"toolsCount":2}`, i))
		emit(recording.TypeLLMEnd, fmt.Sprintf(`{"iteration":%d,"content":"","wireManifest":{"tools":["fleet_report","backup_status"]}}`, i))
		emit(recording.TypeToolStart, fmt.Sprintf(`{"toolName":"fleet_report","toolCallId":"c-%d","args":{"zone":"z1"}}`, i))
		emit(recording.TypeToolEnd, `{"toolCallId":"c-`+strconv.Itoa(i)+`","result":{"host":"`+host+`","zone":"z1","notes":`+filler+`}}`)
		if queryEvery > 0 && i%queryEvery == queryEvery-1 {
			// An early host, found near the head, and one no result holds.
			for j, machine := range []string{"host-000000", "host-zz9999"} {
				id := fmt.Sprintf("q-%d-%d", i, j)
				emit(recording.TypeToolStart, fmt.Sprintf(`{"toolName":"backup_status","toolCallId":%q,"args":{"machine":%q}}`, id, machine))
				emit(recording.TypeToolEnd, fmt.Sprintf(`{"toolCallId":%q,"result":[]}`, id))
			}
		}
	}
}

// bareEvents generates n events that carry nothing a check keeps
// (llm_end of no recorded call, as a capped or garbled stream has them).
func bareEvents(n int, yield func(*recording.Event)) {
	for i := range n {
		yield(&recording.Event{Type: recording.TypeLLMEnd, Payload: []byte(`{}`), Line: int64(i + 1), Index: int64(i),
			Meta: recording.Meta{RunID: "run-kept"}})
	}
}

// peakHeap samples the live heap until stopped and returns its peak.
func peakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

// vmHWM is the process's peak resident set in bytes, 0 where /proc does
// not say.
func vmHWM() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkKeptState folds generated runs into an engine one event at a
// time, every check armed, and reports the peak live heap (peak-heap-MB)
// and the process's peak RSS so far (peak-rss-MB): what a run keeps,
// without the run's events held anywhere. Run one case at a time for a
// meaningful RSS, e.g.
//
//	go test ./replay -run '^$' -bench 'KeptState/distinct-65536x32K' -benchtime 1x
func BenchmarkKeptState(b *testing.B) {
	for _, bc := range []struct {
		name       string
		n, size    int
		distinct   bool
		queryEvery int
	}{
		{"distinct-65536x32K", 65536, 32 << 10, true, 8192},
		{"identical-65536x32K", 65536, 32 << 10, false, 8192},
		{"tiny-1250000x4", 1250000, 8, true, 0},
		{"bare-5000000", 5000000, 0, false, 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var events int64
			var bytesIn int64
			var peak uint64
			for b.Loop() {
				runtime.GC()
				stop := peakHeap()
				e := armedEngine(b, &recording.Run{Input: "kept.jsonl", ID: "run-kept"})
				feed := func(ev *recording.Event) {
					events++
					bytesIn += int64(len(ev.Payload))
					e.handle(ev)
				}
				if bc.size == 0 {
					bareEvents(bc.n, feed)
				} else {
					keptRun(bc.n, bc.size, bc.distinct, bc.queryEvery, feed)
				}
				if f := os.Getenv("FPCHECK_KEPT_HEAP"); f != "" {
					runtime.GC()
					out, _ := os.Create(f)
					_ = pprof.WriteHeapProfile(out)
					out.Close()
				}
				e.finish()
				if len(e.ledger.Rows()) == 0 {
					b.Fatal("no ledger")
				}
				runtime.KeepAlive(e)
				peak = max(peak, stop())
			}
			b.SetBytes(bytesIn / int64(b.N))
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(vmHWM())/(1<<20), "peak-rss-MB")
			b.ReportMetric(float64(events/int64(b.N)), "events")
		})
	}
}
