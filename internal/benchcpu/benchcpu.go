// Package benchcpu runs benchmarks that report their throughput per second
// of process CPU time (cpu-MB/s) next to the wall-clock MB/s: on a machine
// shared with other work, CPU time measures a benchmark's cost where wall
// time measures its luck. It also reads peak resident sets, for the
// benchmarks and the bench tool that report memory.
package benchcpu

import (
	"testing"
	"time"
)

// Loop runs body until b is done, with size bytes per run, reporting
// allocations, MB/s and cpu-MB/s.
func Loop(b *testing.B, size int64, body func()) {
	b.Helper()
	b.SetBytes(size)
	if cpu, n := loop(b, body); cpu > 0 && n > 0 {
		b.ReportMetric(float64(size)*float64(n)/1e6/cpu.Seconds(), "cpu-MB/s")
	}
}

// Each runs body until b is done, reporting allocations and the process
// CPU time of one run as cpu-ns/op: where ns/op is what a run took on the
// clock, which other work on the machine stretches.
func Each(b *testing.B, body func()) {
	b.Helper()
	if cpu, n := loop(b, body); cpu > 0 && n > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/op")
	}
}

// loop runs body until b is done, reporting allocations, and returns the
// process CPU time it took and how many runs.
func loop(b *testing.B, body func()) (time.Duration, int) {
	b.Helper()
	b.ReportAllocs()
	c0 := processTime()
	n := 0
	for b.Loop() {
		body()
		n++
	}
	return processTime() - c0, n
}
