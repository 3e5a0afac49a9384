package recording

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fpcheck/fpcheck/internal/benchcpu"
)

// syntheticWriter writes NDJSON runs in the shape of agentfootprint
// 9.62.0 output, one run after another, each ending in its disposition.
type syntheticWriter struct {
	w      *bufio.Writer
	n      int64
	runs   int
	events int
}

func (s *syntheticWriter) event(runID, typ, stage string, wall int64, payload any) error {
	// A struct keeps agentfootprint's key order: type, payload, meta.
	line, err := json.Marshal(struct {
		Type    string `json:"type"`
		Payload any    `json:"payload"`
		Meta    any    `json:"meta"`
	}{typ, payload, struct {
		WallClockMs     int64    `json:"wallClockMs"`
		RunOffsetMs     int64    `json:"runOffsetMs"`
		RuntimeStageID  string   `json:"runtimeStageId"`
		SubflowPath     []string `json:"subflowPath"`
		CompositionPath []string `json:"compositionPath"`
		RunID           string   `json:"runId"`
	}{wall, wall - 1796025753000, stage, []string{}, []string{"Agent:agent"}, runID}})
	if err != nil {
		return err
	}
	s.events++
	m, err := s.w.Write(append(line, '\n'))
	s.n += int64(m)
	return err
}

// run writes one run of iters iterations.
func (s *syntheticWriter) run(iters int) error {
	s.runs++
	id := fmt.Sprintf("run-%d-%d", 1796025753000+s.runs, s.runs)
	wall := int64(1796025753000)
	result := strings.Repeat("fleet host h-042 status ok; ", 20)
	steps := []struct {
		typ, stage string
		payload    any
	}{
		{TypeRunConfigured, "run-configured#0", map[string]any{"agentId": "agent", "llm": map[string]string{"provider": "mock", "model": "mock"}, "reactMode": "dynamic", "memories": []any{}}},
		{TypeTurnStart, "seed#0", map[string]any{"turnIndex": 0, "userPrompt": "Check the zone console and report the nav count of screen2."}},
	}
	for _, st := range steps {
		if err := s.event(id, st.typ, st.stage, wall, st.payload); err != nil {
			return err
		}
	}
	for i := 1; i <= iters; i++ {
		for k := 0; k < 4; k++ {
			if err := s.event(id, TypeContextInjected, fmt.Sprintf("sf-messages/compose#%d", 10*i+k), wall, map[string]any{
				"contentSummary": "tool result …", "contentHash": "e832acab", "slot": "messages", "source": "tool-result",
				"reason": "conversation history", "rawContent": result, "asRole": "tool", "position": k,
			}); err != nil {
				return err
			}
		}
		if err := s.event(id, TypeLLMStart, fmt.Sprintf("call-llm#%d", 10*i+5), wall, map[string]any{
			"iteration": i, "provider": "mock", "model": "mock", "systemPromptChars": 120, "messagesCount": 4, "toolsCount": 2,
			"tools": []map[string]string{{"name": "whats_here", "description": "what is on the screen"}, {"name": "screen_fire", "description": "fire a screen"}},
		}); err != nil {
			return err
		}
		if err := s.event(id, TypeLLMEnd, fmt.Sprintf("call-llm#%d", 10*i+5), wall, map[string]any{
			"iteration": i, "content": "", "toolCallCount": 1, "usage": map[string]int{"input": 97, "output": 3}, "stopReason": "tool_use", "durationMs": 0,
		}); err != nil {
			return err
		}
		if err := s.event(id, TypeToolStart, fmt.Sprintf("tool-calls#%d", 10*i+6), wall, map[string]any{"toolName": "whats_here", "toolCallId": fmt.Sprintf("t%d", i), "args": map[string]string{"screen": "screen2"}}); err != nil {
			return err
		}
		if err := s.event(id, TypeToolEnd, fmt.Sprintf("tool-calls#%d", 10*i+6), wall, map[string]any{"toolCallId": fmt.Sprintf("t%d", i), "result": result, "durationMs": 0}); err != nil {
			return err
		}
		wall++
	}
	if err := s.event(id, TypeTurnEnd, "final/prepare-final#99", wall, map[string]any{"turnIndex": 0, "finalContent": "nav 2", "iterationCount": iters}); err != nil {
		return err
	}
	return s.event(id, TypeDisposition, "integrity-disposition#0", wall, map[string]any{"posture": "observe", "workExisted": true, "rows": []map[string]any{
		{"check": "invariant-violation", "seam": "wire", "checked": iters, "findings": 0, "notApplicable": 0, "unreachable": 0, "synthetic": 0},
	}})
}

// writeSynthetic writes runs until at least size bytes are written.
func writeSynthetic(w io.Writer, size int64) (*syntheticWriter, error) {
	s := &syntheticWriter{w: bufio.NewWriterSize(w, 1<<20)}
	for s.n < size {
		if err := s.run(8 + s.runs%5); err != nil {
			return nil, err
		}
	}
	return s, s.w.Flush()
}

func BenchmarkLoadNDJSON(b *testing.B) {
	var buf bytes.Buffer
	if _, err := writeSynthetic(&buf, 16<<20); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LoadReader("bench", bytes.NewReader(data), Options{}, func(*Run) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadNDJSONLongLines loads a stream whose tool results are 8 MiB
// each: every line is longer than the read buffer and is assembled.
func BenchmarkLoadNDJSONLongLines(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`{"type":"agentfootprint.agent.run_configured","payload":{},"meta":{"runId":"run-1"}}` + "\n")
	result := strings.Repeat("host h-042 status ok; ", 8<<20/22)
	for i := range 8 {
		fmt.Fprintf(&buf, `{"type":"agentfootprint.stream.tool_end","payload":{"toolCallId":"t%d","result":%q},"meta":{"runId":"run-1"}}`+"\n", i, result)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := LoadReader("bench", bytes.NewReader(data), Options{}, func(*Run) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadNDJSONZstd(b *testing.B) {
	var buf bytes.Buffer
	if _, err := writeSynthetic(&buf, 16<<20); err != nil {
		b.Fatal(err)
	}
	z := zstdBytes(b, buf.Bytes())
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		if _, err := LoadReader("bench", bytes.NewReader(z), Options{}, func(*Run) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadRecordingJSON(b *testing.B) {
	path := filepath.Join(corpusDir, "clean-armed", "envelope.json")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skip("reference corpus not found")
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := LoadReader("bench", bytes.NewReader(data), Options{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// heapWatcher samples the heap in use while a load runs; its peak is the
// loader's working set (plus the test's own small overhead).
type heapWatcher struct {
	peak atomic.Uint64
	stop chan struct{}
	wg   sync.WaitGroup
}

func watchHeap() *heapWatcher {
	h := &heapWatcher{stop: make(chan struct{})}
	h.wg.Go(func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > h.peak.Load() {
				h.peak.Store(ms.HeapInuse)
			}
			select {
			case <-h.stop:
				return
			case <-tick.C:
			}
		}
	})
	return h
}

func (h *heapWatcher) done() uint64 {
	close(h.stop)
	h.wg.Wait()
	return h.peak.Load()
}

// TestLargeStreamMemory streams a generated NDJSON file of many sequential
// runs and checks the heap in use stays bounded: memory follows the run in
// flight, not the file. 200 MB by default (skipped with -short); set
// FPCHECK_BIG=1 for 1 GiB, the size the project's memory claim is about.
func TestLargeStreamMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 200 MB; skipped with -short")
	}
	size, limit := int64(200<<20), uint64(150<<20)
	if os.Getenv("FPCHECK_BIG") == "1" {
		size, limit = 1<<30, 200<<20
	}
	path := filepath.Join(t.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := writeSynthetic(f, size)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	watch := watchHeap()
	start := time.Now()
	runs := 0
	st, err := Load(path, Options{}, func(r *Run) error {
		runs++
		return nil
	})
	elapsed := time.Since(start)
	peak := watch.done()
	if err != nil {
		t.Fatal(err)
	}
	if runs != gen.runs || st.Events != int64(gen.events) || st.Malformed != 0 {
		t.Errorf("runs %d/%d, events %d/%d, malformed %d", runs, gen.runs, st.Events, gen.events, st.Malformed)
	}
	t.Logf("%d MiB, %d runs, %d events in %v (%.0f MB/s); peak heap in use %d MiB; process max RSS %d MiB",
		gen.n>>20, runs, st.Events, elapsed.Round(time.Millisecond), float64(gen.n)/1e6/elapsed.Seconds(), peak>>20, benchcpu.MaxRSS()>>20)
	if peak > limit {
		t.Errorf("peak heap in use %d MiB, want under %d MiB", peak>>20, limit>>20)
	}
}

// TestLargeRecordingMemory loads a generated compact recording of about
// 80 MB, nearly all of it engine snapshot, and checks that the snapshot is
// streamed past rather than held (skipped with -short).
func TestLargeRecordingMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 80 MB; skipped with -short")
	}
	path := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	content, _ := json.Marshal(strings.Repeat("a tool result the window kept; ", 64))
	w.WriteString(`{"snapshot":{"sharedState":{"parkedToolNames":["get_zone_info"]},"commitLog":[`)
	var written int64
	for i := 0; written < 80<<20; i++ {
		if i > 0 {
			w.WriteByte(',')
		}
		n, _ := fmt.Fprintf(w, `{"idx":%d,"stage":"call-llm","trace":[{"path":"history","verb":"append"}],"overwrite":{"history":[{"role":"tool","content":%s}]},"updates":{}}`, i, content)
		written += int64(n)
	}
	w.WriteString(`,{"idx":-1,"overwrite":{"parkedToolNames":["billing_lookup"]}}]},"events":[`)
	var events bytes.Buffer
	gen, err := writeSynthetic(&events, 4<<20)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(bytes.ReplaceAll(bytes.TrimSuffix(events.Bytes(), []byte("\n")), []byte("\n"), []byte(",")))
	w.WriteString(`],"structure":{}}`)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	watch := watchHeap()
	start := time.Now()
	var last *Run
	runs := 0
	st, err := Load(path, Options{}, func(r *Run) error { runs++; last = r; return nil })
	elapsed := time.Since(start)
	peak := watch.done()
	if err != nil {
		t.Fatal(err)
	}
	if runs != gen.runs || st.Events != int64(gen.events) {
		t.Errorf("runs %d/%d, events %d/%d", runs, gen.runs, st.Events, gen.events)
	}
	if last == nil || last.Snapshot == nil || strings.Join(last.Snapshot.ParkedToolNames, ",") != "get_zone_info,billing_lookup" {
		t.Errorf("snapshot facts of the last run: %+v", last)
	}
	fi, _ := os.Stat(path)
	t.Logf("%d MiB recording, %d runs in %v; peak heap in use %d MiB", fi.Size()>>20, runs, elapsed.Round(time.Millisecond), peak>>20)
	if peak > 64<<20 {
		t.Errorf("peak heap in use %d MiB, want under 64 MiB", peak>>20)
	}
}
