package recording

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLentCoresOnMutatedStreams: a stream read on one core that is lent
// cores part-way (Options.Spare) loads exactly as it does on one core,
// over the stream fixtures damaged at random (bytes changed, lines cut,
// blank lines added, pieces repeated), lent after a few lines or after a
// few unanswered asks. The mutations come from a fixed seed, so a failure
// is the same on every run. (A fuzz target would say the same, but the
// coverage of a goroutine pipeline differs from run to run, which keeps the
// fuzzer minimising instead of searching.)
func TestLentCoresOnMutatedStreams(t *testing.T) {
	var seeds [][]byte
	err := filepath.WalkDir(recordingsDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isNDJSONName(d.Name()) {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && len(b) <= maxSeedBytes {
			seeds = append(seeds, b)
		}
		return err
	})
	if err != nil || len(seeds) == 0 {
		t.Fatalf("no stream fixtures: %v", err)
	}
	rng := rand.New(rand.NewSource(7))
	for n := range 400 {
		data := mutate(rng, seeds[rng.Intn(len(seeds))])
		every, misses := 1+rng.Intn(8), rng.Intn(4)
		load := func(opts Options) fullLoad {
			return loadAll(0, func(fn func(*Run) error) (*Stats, error) {
				return LoadReader("mutated", bytes.NewReader(data), opts, fn)
			})
		}
		want := load(Options{Workers: 1, MaxNesting: 2000})
		asked := 0
		got := load(Options{Workers: 1, MaxNesting: 2000, batchLines: 2, spareLines: every, Spare: func() int {
			asked++
			if asked <= misses {
				return 0
			}
			return 1
		}})
		// DeepEqual first: cmp walks every event by reflection, and is
		// only wanted to say what differs.
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("mutation %d, lent after %d lines with %d asks unanswered, differs from one core (-one +lent):\n%s\ninput:\n%q",
				n, every, misses, cmp.Diff(want, got, rawEqual), data)
		}
	}
}

// mutate returns a damaged copy of b.
func mutate(rng *rand.Rand, b []byte) []byte {
	d := append([]byte(nil), b...)
	for k := rng.Intn(8); k > 0 && len(d) > 0; k-- {
		i := rng.Intn(len(d))
		switch rng.Intn(4) {
		case 0:
			d[i] = byte(rng.Intn(256))
		case 1:
			d = d[:i]
		case 2:
			d = append(d[:i:i], append(bytes.Repeat([]byte{'\n'}, rng.Intn(5)), d[i:]...)...)
		case 3:
			d = append(d[:i:i], d[rng.Intn(len(d)):]...)
		}
	}
	return d
}
