package synth

import (
	"io"
	"testing"
)

// benchConfig is one realistic run (the default, 200 model calls).
func benchConfig() Config { return DefaultConfig() }

func BenchmarkWriteNDJSON(b *testing.B) {
	c := benchConfig()
	c.LongResultEvery = 40
	for b.Loop() {
		n, err := WriteNDJSON(io.Discard, c)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(n)
	}
}

func BenchmarkWriteRecordingJSON(b *testing.B) {
	c := benchConfig()
	for b.Loop() {
		n, err := WriteRecordingJSON(io.Discard, c)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(n)
	}
}

func BenchmarkWriteEnvelope(b *testing.B) {
	c := benchConfig()
	c.Iterations = 40
	for b.Loop() {
		n, err := WriteEnvelope(io.Discard, c)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(n)
	}
}

func BenchmarkMessageHash(b *testing.B) {
	content := toolResult(&rng{s: 1}, toolMetrics, "db-01", 4096)
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		MessageHash("tool", 7, content)
	}
}
