package recording

import (
	"bytes"
	"sync"
	"testing"

	"github.com/fpcheck/fpcheck/internal/benchcpu"
	"github.com/fpcheck/fpcheck/internal/synth"
)

// The benchmarks here read what tools/bench measures fpcheck on, generated
// by internal/synth: the 84 MB recording JSON of one 200-call run (nearly
// all engine snapshot) and an NDJSON stream of interleaved runs with an
// occasional long tool result. Each reports MB/s of wall time and, since
// the machines this runs on are often busy, cpu-MB/s: bytes per second of
// the process's user and system CPU time (with several workers this is
// below the wall figure, which is the point of the workers).

var (
	synthOnce      sync.Once
	synthRecording []byte
	synthStream    []byte
	synthErr       error
)

func synthInputs(b *testing.B) (rec, stream []byte) {
	b.Helper()
	synthOnce.Do(func() {
		var rb bytes.Buffer
		if _, synthErr = synth.WriteRecordingJSON(&rb, synth.DefaultConfig()); synthErr != nil {
			return
		}
		sc := synth.DefaultConfig()
		sc.LongResultEvery = 40
		sc.Interleave = true
		sc.Seed = 42
		sc.Runs = 6
		var sb bytes.Buffer
		if _, synthErr = synth.WriteNDJSON(&sb, sc); synthErr != nil {
			return
		}
		synthRecording, synthStream = rb.Bytes(), sb.Bytes()
	})
	if synthErr != nil {
		b.Fatal(synthErr)
	}
	return synthRecording, synthStream
}

// benchLoad loads data b.N times and reports cpu-MB/s next to MB/s.
func benchLoad(b *testing.B, data []byte, opts Options) {
	b.Helper()
	benchcpu.Loop(b, int64(len(data)), func() {
		st, err := LoadReader("bench", bytes.NewReader(data), opts, func(*Run) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		if st.Malformed != 0 || st.Events == 0 {
			b.Fatalf("malformed %d, events %d", st.Malformed, st.Events)
		}
	})
}

// BenchmarkLoadSynthRecording reads the 84 MB recording JSON of
// synth.DefaultConfig: target (a) of docs/performance.md.
func BenchmarkLoadSynthRecording(b *testing.B) {
	rec, _ := synthInputs(b)
	benchLoad(b, rec, Options{})
}

// BenchmarkLoadSynthNDJSON reads an NDJSON stream of six interleaved
// 200-call runs: the stream of target (b), uncompressed.
func BenchmarkLoadSynthNDJSON(b *testing.B) {
	_, stream := synthInputs(b)
	benchLoad(b, stream, Options{})
}

// The same inputs decoded on the loader's goroutine alone (Workers 1):
// the single-core cost.
func BenchmarkLoadSynthRecordingSerial(b *testing.B) {
	rec, _ := synthInputs(b)
	benchLoad(b, rec, Options{Workers: 1})
}

func BenchmarkLoadSynthNDJSONSerial(b *testing.B) {
	_, stream := synthInputs(b)
	benchLoad(b, stream, Options{Workers: 1})
}

// BenchmarkLoadNDJSONSerial is BenchmarkLoadNDJSON with Workers 1.
func BenchmarkLoadNDJSONSerial(b *testing.B) {
	var buf bytes.Buffer
	if _, err := writeSynthetic(&buf, 16<<20); err != nil {
		b.Fatal(err)
	}
	benchLoad(b, buf.Bytes(), Options{Workers: 1})
}
