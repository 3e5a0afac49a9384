package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/internal/hostile"
	"github.com/klauspost/compress/gzip"
)

// armedDeclarations writes declarations arming every check for the hostile
// runs' tools into dir and returns their path.
func armedDeclarations(tb testing.TB, dir string) string {
	tb.Helper()
	decl := filepath.Join(dir, "armed.yaml")
	if err := os.WriteFile(decl, []byte(hostile.ArmAll(hostile.Tools)), 0o644); err != nil {
		tb.Fatal(err)
	}
	return decl
}

// TestMemoryCases runs each memory case of docs/security.md, scaled down to
// seconds, with every check armed: each completes with its report and exit
// code, or stops at the limit it names. The same generators write the
// full-size cases for `make bench`, which measures their peak memory; here
// only what must hold at any size is asserted.
func TestMemoryCases(t *testing.T) {
	dir := t.TempDir()
	decl := armedDeclarations(t, dir)
	gz := func(write func(io.Writer) (int64, error)) func(io.Writer) (int64, error) {
		return func(w io.Writer) (int64, error) {
			zw := gzip.NewWriter(w)
			n, err := write(zw)
			if cerr := zw.Close(); err == nil {
				err = cerr
			}
			return n, err
		}
	}
	tests := []struct {
		name  string
		file  string
		write func(io.Writer) (int64, error)
		args  []string
		code  int
		want  []string // in the text report, in this order
	}{
		{name: "one run of distinct results", file: "distinct.jsonl",
			write: func(w io.Writer) (int64, error) { return hostile.Results(w, 256, 32<<10, false) },
			code:  0, want: []string{"1 run: 1 green", "RUN run-results · ", "521 events from line 1 · ✓ GREEN"}},
		{name: "one run of identical results", file: "identical.jsonl",
			write: func(w io.Writer) (int64, error) { return hostile.Results(w, 256, 32<<10, true) },
			code:  0, want: []string{"1 run: 1 green", "521 events from line 1 · ✓ GREEN"}},
		{name: "one run of results past --max-run-bytes", file: "distinct-limit.jsonl",
			write: func(w io.Writer) (int64, error) { return hostile.Results(w, 256, 32<<10, false) },
			args:  []string{"--max-run-bytes", "1048576"}, code: 2,
			want: []string{`run "run-results" keeps more than 1 MiB (limit set by --max-run-bytes)`}},
		// The count is the limit's own: as many events as it allows are
		// read, one more stops the run.
		{name: "tiny events up to --max-events-per-run", file: "tiny.jsonl",
			write: func(w io.Writer) (int64, error) { return hostile.TinyEvents(w, 50_000) },
			args:  []string{"--max-events-per-run", "50000"}, code: 0,
			want: []string{"1 run: 1 green", "50000 events from line 1"}},
		{name: "tiny events past --max-events-per-run", file: "tiny-over.jsonl",
			write: func(w io.Writer) (int64, error) { return hostile.TinyEvents(w, 50_001) },
			args:  []string{"--max-events-per-run", "50000"}, code: 2,
			want: []string{`tiny-over.jsonl: line 50001: run "run-tiny" has more than 50000 events (limit set by --max-events-per-run)`}},
		// The unfinished run is judged (unmeasured), the later ones green,
		// and the report keeps the input order.
		{name: "an unfinished run ahead of complete ones", file: "unfinished.jsonl",
			write: func(w io.Writer) (int64, error) { return hostile.UnfinishedAhead(w, 2_000) },
			code:  3, want: []string{"2001 runs: 2000 green, 1 unmeasured", "RUN run-unfinished · ", "1 event from line 1", "NO INTEGRITY EVENTS"}},
		{name: "one finding recorded many times", file: "findings.jsonl",
			write: func(w io.Writer) (int64, error) { return hostile.RepeatedFinding(w, 2_000) },
			code:  1, want: []string{"1 run: 1 with defects", "[1] dangling-reference @compose", "RUN run-findings · ", "2006 events from line 1 · ✗ DEFECTS 1 defect"}},
		{name: "many one-event runs, gzip", file: "many.jsonl.gz",
			write: gz(func(w io.Writer) (int64, error) { return hostile.ManyRuns(w, 2_000) }),
			code:  3, want: []string{"2000 runs: 2000 unmeasured"}},
		// None of them ever ends, so all are held until the input ends:
		// as many as the limit allows are, one more stops the input.
		{name: "one-event runs up to --max-runs-in-flight", file: "many-up-to.jsonl.gz",
			write: gz(func(w io.Writer) (int64, error) { return hostile.ManyRuns(w, 2_000) }),
			args:  []string{"--max-runs-in-flight", "2000"}, code: 3, want: []string{"2000 runs: 2000 unmeasured"}},
		{name: "one-event runs past --max-runs-in-flight", file: "many-past.jsonl.gz",
			write: gz(func(w io.Writer) (int64, error) { return hostile.ManyRuns(w, 2_001) }),
			args:  []string{"--max-runs-in-flight", "2000"}, code: 2,
			want: []string{`many-past.jsonl.gz: line 2001: run "run-2000" starts while 2000 runs are in flight, the most one input may hold at once (limit set by --max-runs-in-flight)`}},
		// Armed, session-less runs are one conversation: the complete
		// runs wait for the unfinished one ahead of them, held, and count.
		{name: "complete runs held behind an unfinished one, past --max-runs-in-flight", file: "unfinished-many.jsonl",
			write: func(w io.Writer) (int64, error) { return hostile.UnfinishedAhead(w, 3_000) },
			args:  []string{"--max-runs-in-flight", "10"}, code: 2,
			want: []string{`unfinished-many.jsonl: line 56: run "run-complete-9" starts while 10 runs are in flight, the most one input may hold at once (limit set by --max-runs-in-flight)`}},
		{name: "zstd bomb", file: "bomb.jsonl.zst",
			write: func(w io.Writer) (int64, error) { return hostile.Bomb(w, "zstd", 32<<20) },
			args:  []string{"--max-decompressed-bytes", "33554432"}, code: 2,
			want: []string{"bomb.jsonl.zst: decompresses to more than 32 MiB (limit set by --max-decompressed-bytes)"}},
		{name: "gzip bomb within the limit", file: "bomb.jsonl.gz",
			write: func(w io.Writer) (int64, error) { return hostile.Bomb(w, "gzip", 16<<20) },
			args:  []string{"--max-decompressed-bytes", "33554432"}, code: 3,
			want: []string{"1 run: 1 unmeasured", "RUN run-bomb · ", "1 event from line 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = tt.write(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
			args := append([]string{"analyze", "--color=never", "--declarations", decl}, tt.args...)
			code, stdout, stderr := run(t, nil, append(args, path)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, head(stdout), stderr)
			}
			rest := stdout
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("the report lacks %q (after what came before):\n%s", w, head(stdout))
				}
				rest = rest[i+len(w):]
			}
			if code == 2 && !regexp.MustCompile(`\(limit set by --[a-z-]+\)`).MatchString(stdout) {
				t.Errorf("a stop names no limit:\n%s", head(stdout))
			}
			checkTerminalSafe(t, "stdout", stdout)
			// The JSON report says the same: the exit code is the verdict
			// in every format.
			jcode, jout, _ := run(t, nil, append(append(args, "--format", "json"), path)...)
			if jcode != code || !bytes.HasPrefix([]byte(jout), []byte("{")) {
				t.Errorf("--format json: exit %d, want %d; output starts %q", jcode, code, head(jout)[:min(len(jout), 40)])
			}
		})
	}
}
