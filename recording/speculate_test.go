package recording

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/internal/synth"
)

// loadOutcome is everything a load returns, for comparing two loads.
type loadOutcome struct {
	Stats *Stats
	Runs  []*Run
	Err   string
}

func loadOutcomeOf(t *testing.T, path string, opts Options) loadOutcome {
	t.Helper()
	var o loadOutcome
	st, err := Load(path, opts, func(r *Run) error {
		o.Runs = append(o.Runs, r)
		return nil
	})
	o.Stats = st
	if err != nil {
		o.Err = err.Error()
	}
	return o
}

// TestSpeculationLoadsAsPlain loads recording documents, whole and
// damaged in the part the speculator reads, with speculation on (small
// chunks, many of them) and off, and requires the same outcome: runs,
// accounting, problems and errors.
func TestSpeculationLoadsAsPlain(t *testing.T) {
	var rec bytes.Buffer
	if _, err := synth.WriteRecordingJSON(&rec, synth.Config{Iterations: 12, ToolResultBytes: 2048, Evictions: true, Findings: true, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	base := rec.Bytes()
	dir := t.TempDir()
	spec := Options{Workers: 2, specMinSize: 1, specChunk: 4 << 10}
	plain := Options{Workers: 1}
	rng := rand.New(rand.NewPCG(3, 4))
	taken := 0
	for k := 0; k < 40; k++ {
		b := bytes.Clone(base)
		name := "whole"
		if k > 0 {
			// Damage the second half, where the speculator starts.
			i := len(b)/3 + rng.IntN(len(b)*2/3-1)
			switch k % 4 {
			case 0:
				b[i] = "{}[],:\"\\x\x01"[rng.IntN(10)]
			case 1:
				b = append(b[:i], b[i+1:]...)
			case 2:
				b = append(b[:i], append([]byte("]}"), b[i:]...)...)
			case 3:
				b = append(bytes.Clone(b[:i]), append([]byte(`{"a":[{"b":1}]}`), b[i:]...)...)
			}
			name = fmt.Sprintf("damaged %d at %d", k, i)
		}
		path := filepath.Join(dir, fmt.Sprintf("rec-%d.json", k))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		speculated := loadOutcomeOf(t, path, spec)
		want := loadOutcomeOf(t, path, plain)
		// cmp.Diff says how they differ; DeepEqual is much faster at
		// telling whether they do.
		if !reflect.DeepEqual(want, speculated) {
			t.Fatalf("%s: speculating changes the load (-plain +speculating):\n%s", name, cmp.Diff(want, speculated))
		}
		taken++
	}
	if taken == 0 {
		t.Fatal("nothing compared")
	}
}

// TestSpeculationNoticesChangedBytes: when the bytes the walker passes are
// not the ones the speculator validated (the file changed under the
// reader), the load stops with an error instead of trusting them.
func TestSpeculationNoticesChangedBytes(t *testing.T) {
	var rec bytes.Buffer
	if _, err := synth.WriteRecordingJSON(&rec, synth.Config{Iterations: 12, ToolResultBytes: 2048, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	read := rec.Bytes()
	seen := bytes.Clone(read)
	// Change one letter inside a string in the last third: both versions
	// are valid JSON, only their bytes differ.
	i := bytes.LastIndex(seen[:len(seen)*9/10], []byte("host"))
	if i < len(seen)/2 {
		t.Fatal("no string to change in the last half")
	}
	seen[i] = 'H'
	sp := newSpeculator(bytes.NewReader(seen), 0, int64(len(seen)), 4<<10)
	defer sp.close()
	<-sp.done // every chunk is summarized before the walker starts
	s := newScanner(bytes.NewReader(read), defaultMaxNesting)
	s.spec = sp
	if err := s.skipValue(); !errors.Is(err, errFileChanged) {
		t.Fatalf("skipping the changed document: %v, want %v", err, errFileChanged)
	}
	// The same bytes on both sides pass.
	sp2 := newSpeculator(bytes.NewReader(read), 0, int64(len(read)), 4<<10)
	defer sp2.close()
	<-sp2.done
	s2 := newScanner(bytes.NewReader(read), defaultMaxNesting)
	s2.spec = sp2
	if err := s2.skipValue(); err != nil {
		t.Fatalf("skipping the unchanged document: %v", err)
	}
	if sp2.next == 0 {
		t.Fatal("no chunk was taken over")
	}
}
