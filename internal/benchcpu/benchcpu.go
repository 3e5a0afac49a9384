// Package benchcpu runs benchmarks that report their throughput per second
// of process CPU time (cpu-MB/s) next to the wall-clock MB/s: on a machine
// shared with other work, CPU time measures a benchmark's cost where wall
// time measures its luck. It also reads peak resident sets, for the
// benchmarks and the bench tool that report memory.
package benchcpu

import "testing"

// Loop runs body until b is done, with size bytes per run, reporting
// allocations, MB/s and cpu-MB/s.
func Loop(b *testing.B, size int64, body func()) {
	b.Helper()
	b.SetBytes(size)
	b.ReportAllocs()
	c0 := processTime()
	n := 0
	for b.Loop() {
		body()
		n++
	}
	if cpu := processTime() - c0; cpu > 0 && n > 0 {
		b.ReportMetric(float64(size)*float64(n)/1e6/cpu.Seconds(), "cpu-MB/s")
	}
}
