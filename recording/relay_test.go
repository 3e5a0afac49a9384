package recording

import (
	"bytes"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/fpcheck/fpcheck/internal/synth"
)

// TestHelperPanicsReachTheLoader: a panic on one of the loader's helper
// goroutines (a bug) comes out of Load on the caller's goroutine, where the
// command's guard can turn it into one line, instead of ending the process
// or leaving the loader waiting.
func TestHelperPanicsReachTheLoader(t *testing.T) {
	dir := t.TempDir()
	var stream, doc bytes.Buffer
	c := synth.Config{Runs: 3, Iterations: 6, ToolResultBytes: 2048, Seed: 9}
	if _, err := synth.WriteNDJSON(&stream, c); err != nil {
		t.Fatal(err)
	}
	if _, err := synth.WriteRecordingJSON(&doc, synth.Config{Iterations: 12, ToolResultBytes: 2048, Seed: 9}); err != nil {
		t.Fatal(err)
	}
	streamPath := filepath.Join(dir, "runs.jsonl")
	docPath := filepath.Join(dir, "recording.json")
	for p, b := range map[string][]byte{streamPath: stream.Bytes(), docPath: doc.Bytes()} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := Options{Workers: 2, batchLines: 4, batchBytes: 4 << 10, specMinSize: 1, specChunk: 4 << 10}
	// After a panic, helpers that were not stopped may still be finishing
	// their work when Load has returned, so the hook is set once, before
	// any of them starts, and told through atomics which stage to break.
	var panicAt atomic.Value
	panicAt.Store("")
	var ran atomic.Bool
	testHook = func(stage string) {
		if stage == panicAt.Load() {
			ran.Store(true)
			panic("bug in the " + stage)
		}
	}
	defer panicAt.Store("")
	for _, tt := range []struct{ stage, path string }{
		{"stream reader", streamPath},
		{"stream decoder", streamPath},
		{"document decoder", docPath},
		{"speculator", docPath},
	} {
		t.Run(tt.stage, func(t *testing.T) {
			// Every stage runs on this input: without the panic, it loads.
			if _, err := Load(tt.path, opts, nil); err != nil {
				t.Fatalf("loading without a panic: %v", err)
			}
			ran.Store(false)
			panicAt.Store(tt.stage)
			defer panicAt.Store("")
			defer func() {
				if v := recover(); v != "bug in the "+tt.stage {
					t.Errorf("Load panicked with %v, want the %s's panic", v, tt.stage)
				}
				if !ran.Load() {
					t.Errorf("the %s never ran", tt.stage)
				}
			}()
			Load(tt.path, opts, nil)
			t.Errorf("Load returned after the %s panicked", tt.stage)
		})
	}
}
