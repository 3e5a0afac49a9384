package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/internal/hostile"
	"github.com/klauspost/compress/gzip"
)

// BenchmarkManyRuns analyses a gzip file of one-event runs, every check
// armed, at two sizes: runs/s that stays level from the smaller to the
// larger size is the linearity issue #22 asks for, and B/run is what each
// judged run costs the whole process.
func BenchmarkManyRuns(b *testing.B) {
	dir := b.TempDir()
	decl := armedDeclarations(b, dir)
	for _, n := range []int{10_000, 40_000} {
		path := filepath.Join(dir, fmt.Sprintf("many-%d.jsonl.gz", n))
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		if _, err := hostile.ManyRuns(zw, n); err != nil {
			b.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("runs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var out, errOut bytes.Buffer
				ios := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: testEnv}
				if code := Main([]string{"analyze", "--color=never", "--declarations", decl, path}, ios); code != 3 {
					b.Fatalf("exit %d, want 3 (every run unmeasured)\n%s", code, errOut.String())
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "runs/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}
