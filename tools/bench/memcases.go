package main

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/fpcheck/fpcheck/internal/hostile"
	"github.com/klauspost/compress/gzip"
)

// memCase is one memory case of docs/security.md, written by
// internal/hostile at full size times -mem-scale.
type memCase struct {
	name  string
	what  string // with %s for how many there are at the scale measured
	full  int    // how many at full size: events, runs, results or bytes
	ext   string // the input's file name ending
	write func(w io.Writer, scale float64) (int64, error)
}

// describe says what the case is at scale.
func (c memCase) describe(scale float64) string {
	n := scaled(c.full, scale)
	if strings.HasSuffix(c.name, "-bomb") {
		return fmt.Sprintf(c.what, mb(int64(n)))
	}
	return fmt.Sprintf(c.what, thousands(n))
}

// thousands writes n with thousands separators, as the issue states the
// cases.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func scaled(n int, scale float64) int { return max(1, int(float64(n)*scale)) }

// memCases are the cases in the order the table lists them.
var memCases = []memCase{
	{"results-distinct", "one run, %s distinct 32 KiB results", 65_536, ".jsonl", func(w io.Writer, s float64) (int64, error) {
		return hostile.Results(w, scaled(65_536, s), 32<<10, false)
	}},
	{"results-identical", "one run, %s identical 32 KiB results", 65_536, ".jsonl", func(w io.Writer, s float64) (int64, error) {
		return hostile.Results(w, scaled(65_536, s), 32<<10, true)
	}},
	{"tiny-events", "one run, %s tiny events", 5_000_000, ".jsonl", func(w io.Writer, s float64) (int64, error) {
		return hostile.TinyEvents(w, scaled(5_000_000, s))
	}},
	{"unfinished", "an unfinished run ahead of %s complete ones", 20_000, ".jsonl", func(w io.Writer, s float64) (int64, error) {
		return hostile.UnfinishedAhead(w, scaled(20_000, s))
	}},
	{"findings", "%s copies of one recorded finding", 200_000, ".jsonl", func(w io.Writer, s float64) (int64, error) {
		return hostile.RepeatedFinding(w, scaled(200_000, s))
	}},
	{"many-runs", "%s one-event runs, gzip", 1_000_000, ".jsonl.gz", func(w io.Writer, s float64) (int64, error) {
		zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
		if err != nil {
			return 0, err
		}
		n, err := hostile.ManyRuns(zw, scaled(1_000_000, s))
		if cerr := zw.Close(); err == nil {
			err = cerr
		}
		return n, err
	}},
	{"zstd-bomb", "zstd bomb expanding to %s", 8 << 30, ".jsonl.zst", func(w io.Writer, s float64) (int64, error) {
		pad := int64(scaled(8<<30, s))
		_, err := hostile.Bomb(w, "zstd", pad)
		return pad, err
	}},
	{"gzip-bomb", "gzip bomb expanding to %s", 2 << 30, ".jsonl.gz", func(w io.Writer, s float64) (int64, error) {
		pad := int64(scaled(2<<30, s))
		_, err := hostile.Bomb(w, "gzip", pad)
		return pad, err
	}},
}

// memCodes are the exit codes a memory case may end with: a report (0, 1,
// 3), a stop (2, judged by whether it names a limit) or out of memory (4).
var memCodes = []int{0, 1, 2, 3, 4}

// limitRE finds the limit a stopped input names, across the line breaks
// of a wrapped text report.
var limitRE = regexp.MustCompile(`limit\s+set\s+by\s+(--[a-z-]+)`)

// outcome says how a memory case ended: completed with its exit code, or
// stopped at a named limit. ok is false for anything else (an exit 2
// naming no limit, out of memory, a timeout).
func outcome(m measurement) (what string, ok bool) {
	switch {
	case m.timedOut:
		return fmt.Sprintf("did not finish in %s", secs(m.wall)), false
	case m.code == 2:
		if l := limitRE.FindStringSubmatch(m.tail); l != nil {
			return "stopped at " + l[1] + " (exit 2)", true
		}
		return "exit 2 naming no limit: " + lastLine(m.tail), false
	case m.code == 4:
		return "out of memory (exit 4)", false
	default:
		return fmt.Sprintf("completed (exit %d)", m.code), true
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// linear judges time linear in size from a full and a quarter-size run:
// the full run's throughput may fall to at most half the small one's.
func linear(fullMBs, quarterMBs float64) bool { return quarterMBs <= 0 || fullMBs >= quarterMBs/2 }

// memRow is one memory case's row: the full-size run's peak RSS against
// the target, how it ended, and its throughput beside the quarter-size
// run's.
func memRow(c memCase, scale float64, full, quarter measurement, fullBytes, quarterBytes int64, floor int64) row {
	r := row{name: "(m) " + c.describe(scale) + ", " + mb(fullBytes) + ", armed", target: "< 256 MB; completes or named limit; linear"}
	if full.err != nil {
		r.fpcheck, r.result = full.err.Error(), failed
		return r
	}
	what, ok := outcome(full)
	rss := "not measured"
	if full.maxRSS > 0 {
		rss = mb(full.maxRSS)
	}
	r.fpcheck = fmt.Sprintf("%s, peak RSS %s (floor %s)", what, rss, mb(floor))
	fullMBs := float64(fullBytes) / 1e6 / full.wall.Seconds()
	r.ratio = fmt.Sprintf("%s, %.1f MB/s", secs(full.wall), fullMBs)
	lin := false
	if quarter.err == nil && quarter.wall > 0 && !quarter.timedOut {
		qMBs := float64(quarterBytes) / 1e6 / quarter.wall.Seconds()
		lin = linear(fullMBs, qMBs)
		r.baseline = fmt.Sprintf("¼ size: %s, %.1f MB/s", secs(quarter.wall), qMBs)
	} else {
		r.baseline = "¼ size: not measured, so linearity is not"
	}
	r.result, r.figure = verdict(ok && lin && full.maxRSS > 0 && full.maxRSS < 256e6), rss
	return r
}
