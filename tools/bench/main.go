// Command bench measures fpcheck against the performance targets of
// docs/performance.md and the memory targets of docs/security.md, and
// prints them side by side with reference tools:
//
//	(a) a ~84 MB recording JSON: node's JSON.parse vs fpcheck analyze --format json
//	(b) a real-shaped stream (the reference corpus's runs repeated with
//	    renamed run ids, 300 MB, zstd -3): zstd -dc and the Go floor
//	    (decompress, split, validate) vs fpcheck analyze -j 2, unarmed and
//	    with every check armed; the same for the generator's stream
//	(c) fpcheck's peak resident memory on a 1 GiB real-shaped stream and on
//	    the generator's, unarmed and armed
//	(d) eight recordings analysed with -j 1 vs -j 2 in alternated pairs,
//	    outputs compared byte for byte, and the CPU -j 2 spends beyond -j 1
//	(r) the streams' compression ratios beside the corpus's own
//	(m) the memory cases of internal/hostile, armed: peak RSS, how each
//	    ended (completed, or the limit it named) and its throughput at full
//	    and a quarter size
//
// Beside (d) it runs a machine check: what a second thread gives work that
// is not fpcheck's, measured the same way, so that a (d) below target can
// be told from a machine that gives less.
//
// The inputs are generated into a temporary directory with internal/synth, so
// nothing large is committed; each memory case is generated just before it
// is measured and removed after. Every timing is the best of -runs runs,
// and the two sides of a comparison are run in turn. -rounds repeats every
// measurement on the same inputs and ends with how many rounds met each
// target, and each target's figure in every round.
// The program reports and never gates: it exits 0 whether targets are met
// or not (2 only for unusable flags). `make bench` runs it.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/fpcheck/fpcheck/internal/benchcpu"
	"github.com/fpcheck/fpcheck/internal/hostile"
	"github.com/fpcheck/fpcheck/internal/synth"
	"github.com/klauspost/compress/zstd"
)

type options struct {
	fpcheck  string
	size     int64 // the generator's stream and the large real-shaped one
	bSize    int64 // the real-shaped stream of (b)
	runs     int
	rounds   int
	keep     bool
	dir      string
	node     string
	zstd     string
	corpus   string
	jCalls   int
	memScale float64
	timeout  time.Duration
	cases    map[string]bool
}

// caseNames are what -cases picks from: the targets, and each memory case
// by name ("m" is all of them).
func caseNames() []string {
	names := []string{"a", "b", "c", "d", "gen", "r", "m"}
	for _, c := range memCases {
		names = append(names, c.name)
	}
	return names
}

// parseCases reads -cases: a comma-separated list of caseNames, or "all".
func parseCases(s string) (map[string]bool, error) {
	picked := map[string]bool{}
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
		case f == "all":
			for _, n := range caseNames() {
				picked[n] = true
			}
		case slices.Contains(caseNames(), f):
			picked[f] = true
		default:
			return nil, fmt.Errorf("no case %q (cases: all, %s)", f, strings.Join(caseNames(), ", "))
		}
	}
	if picked["m"] {
		for _, c := range memCases {
			picked[c.name] = true
		}
	}
	if len(picked) == 0 {
		return nil, errors.New("no case picked")
	}
	return picked, nil
}

// wantMem says whether any memory case is picked.
func (o options) wantMem() bool {
	return slices.ContainsFunc(memCases, func(c memCase) bool { return o.cases[c.name] })
}

func main() {
	var o options
	size, bSize, cases := "1GiB", "300MB", "all"
	flag.StringVar(&o.fpcheck, "fpcheck", "bin/fpcheck", "the fpcheck binary to measure")
	flag.StringVar(&size, "size", size, "uncompressed size of the generator's stream and of the real-shaped stream of (c), e.g. 1GiB, 256MiB, 64MB")
	flag.StringVar(&bSize, "b-size", bSize, "uncompressed size of the real-shaped stream of (b)")
	flag.StringVar(&cases, "cases", cases, "comma-separated cases to run: all, or of "+strings.Join(caseNames(), ", ")+" (m is every memory case)")
	flag.Float64Var(&o.memScale, "mem-scale", 1, "size of the memory cases (m) as a fraction of their full size, e.g. 0.05 for a quick pass")
	flag.DurationVar(&o.timeout, "case-timeout", 10*time.Minute, "longest a memory case may run before it is stopped and reported unfinished")
	flag.StringVar(&o.corpus, "corpus", "../shared/reference-corpus", "the reference corpus the real-shaped streams repeat")
	flag.IntVar(&o.runs, "runs", 3, "runs per measurement; the best is reported")
	flag.IntVar(&o.rounds, "rounds", 1, "rounds of every measurement on the same inputs; past one, a summary gives each target's figure in every round and how many rounds met it")
	flag.BoolVar(&o.keep, "keep", false, "keep the generated inputs and outputs (their directory is printed)")
	flag.StringVar(&o.dir, "dir", "", "directory for the temporary inputs (default: the system temp directory)")
	flag.StringVar(&o.node, "node", "node", "the node binary for the JSON.parse baseline")
	flag.StringVar(&o.zstd, "zstd", "zstd", "the zstd binary for the decompression baseline")
	flag.IntVar(&o.jCalls, "j-calls", 100, "model calls per recording in the -j test")
	genDir := flag.String("generate-into", "", "internal: generate the inputs into this directory, print their manifest and exit")
	genCase := flag.String("generate-case", "", "internal: write this memory case to -out at -mem-scale, print its size and exit")
	genOut := flag.String("out", "", "internal: the file -generate-case writes")
	floorFile := flag.String("floor", "", "internal: do the floor's work on this .zst file on -threads goroutines and exit")
	noop := flag.Bool("noop", false, "internal: exit at once (measures the peak-RSS floor)")
	machine := flag.String("machine", "", "internal: do the machine check's work of this kind (spin, read, fresh) on -threads goroutines and exit")
	threads := flag.Int("threads", 1, "internal: goroutines for -machine")
	flag.Parse()
	if *noop {
		return
	}
	if *floorFile != "" {
		if err := floorWork(*floorFile, max(1, *threads)); err != nil {
			fmt.Fprintf(os.Stderr, "bench: floor: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if *genCase != "" {
		n, err := writeMemCase(*genCase, *genOut, o.memScale)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: generating %s: %v\n", *genCase, err)
			os.Exit(1)
		}
		fmt.Println(n)
		return
	}
	if *machine != "" {
		if err := machineWork(*machine, max(1, *threads), flag.Args()); err != nil {
			fmt.Fprintf(os.Stderr, "bench: machine check: %v\n", err)
			os.Exit(1)
		}
		return
	}
	var err error
	if o.size, err = parseSize(size); err != nil {
		fmt.Fprintf(os.Stderr, "bench: -size: %v\n", err)
		os.Exit(2)
	}
	if o.bSize, err = parseSize(bSize); err != nil {
		fmt.Fprintf(os.Stderr, "bench: -b-size: %v\n", err)
		os.Exit(2)
	}
	if o.cases, err = parseCases(cases); err != nil {
		fmt.Fprintf(os.Stderr, "bench: -cases: %v\n", err)
		os.Exit(2)
	}
	if o.runs < 1 || o.rounds < 1 || o.jCalls < 1 || o.memScale <= 0 || o.memScale > 1 || o.timeout <= 0 {
		fmt.Fprintln(os.Stderr, "bench: -runs, -rounds and -j-calls must be at least 1, -mem-scale in (0, 1], -case-timeout positive")
		os.Exit(2)
	}
	if *genDir != "" {
		in, err := generate(o, *genDir)
		if err == nil {
			err = json.NewEncoder(os.Stdout).Encode(in)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: generating inputs: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if err := run(o, os.Stdout); err != nil {
		// a broken environment (no temp space) is reported, not gated on
		fmt.Fprintf(os.Stdout, "bench: %v\n", err)
	}
}

// parseSize reads 1GiB, 256MiB, 64MB, 512k or a plain byte count.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	units := []struct {
		suffix string
		mult   int64
	}{{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10}, {"gb", 1e9}, {"mb", 1e6}, {"kb", 1e3},
		{"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}, {"b", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("%q is not a size (try 1GiB or 256MiB)", s)
	}
	return int64(f * float64(mult)), nil
}

// inputs are the generated files; the generating child process hands
// them over as JSON.
type inputs struct {
	Recording    string
	RecBytes     int64
	Stream       string
	StreamBytes  int64 // uncompressed
	StreamZst    int64
	StreamRuns   int
	JFiles       []string
	JBytes       int64
	GenNDJSONMBs float64
	GenRecMBs    float64
	RealB, RealC realStream // the real-shaped streams of (b) and (c)
	CorpusRatio  float64
	ArmedGen     string // declarations arming every check for the generator's tools
	ArmedReal    string // the same for the corpus's tools
	ArmedHostile string // the same for the memory cases' tools
}

// realStream is a real-shaped stream: the corpus's runs repeated.
type realStream struct {
	Path          string
	Bytes, Packed int64
	Copies        int
}

func (r realStream) ratio() float64 { return ratioOf(r.Bytes, r.Packed) }

func ratioOf(plain, packed int64) float64 {
	if packed <= 0 {
		return 0
	}
	return float64(plain) / float64(packed)
}

func run(o options, out io.Writer) error {
	dir, err := os.MkdirTemp(o.dir, "fpcheck-bench-")
	if err != nil {
		return err
	}
	if !o.keep {
		defer os.RemoveAll(dir)
	}
	fmt.Fprintf(out, "fpcheck bench · %s/%s · %d CPUs · load %s · best of %d run(s) · %d round(s)\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), loadAvg(), o.runs, o.rounds)
	fmt.Fprintf(out, "fpcheck: %s\n", o.fpcheck)
	fmt.Fprintf(out, "generating inputs in %s …\n", dir)
	in, err := generateInChild(o, dir)
	if err != nil {
		return err
	}
	printInputs(out, o, in)

	floor := rssFloor()
	var rounds [][]row
	for round := 1; round <= o.rounds; round++ {
		if o.rounds > 1 {
			fmt.Fprintf(out, "\nround %d of %d · load %s\n", round, o.rounds, loadAvg())
		}
		rows, machine := measure(o, in, dir, floor, out)
		printTable(out, rows)
		if machine != "" {
			fmt.Fprintln(out, "\n"+machine)
		}
		rounds = append(rounds, rows)
	}
	if len(rounds) > 1 {
		fmt.Fprintf(out, "\nSummary of %d rounds: each target's figure in every round, and how many rounds met it.\n", len(rounds))
		printSummary(out, rounds)
	}
	fmt.Fprintln(out, "\nTimes are wall clock, best of the runs; cpu is that run's user+system time.")
	fmt.Fprintln(out, "A median of pairs compares the runs the two sides made one after the other; it is the verdict of (d) only.")
	fmt.Fprintln(out, "Peak RSS is ru_maxrss of the fpcheck process, the most of any run; armed means every check armed by declarations for the run's tools.")
	fmt.Fprintln(out, "Wall times on a loaded machine overstate; compare cpu figures when the load is high.")
	if o.keep {
		fmt.Fprintf(out, "inputs kept in %s\n", dir)
	}
	return nil
}

// measure takes every measurement of the cases o picks once, on the
// inputs in, and returns the rows and the machine check's note (with (d)).
// The memory cases' lines are written to out as each ends.
func measure(o options, in inputs, dir string, floor int64, out io.Writer) ([]row, string) {
	var rows []row
	if o.cases["a"] {
		a, fresh := parseRow(o, in)
		rows = append(rows, a, fresh)
	}
	if o.cases["b"] {
		rows = append(rows, realRows(o, in)...)
	}
	if o.cases["c"] {
		rows = append(rows, rssRows(o, "(c) real-shaped", in.RealC.Path, in.ArmedReal, in.RealC.Bytes, floor, 100e6, 128e6)...)
	}
	if o.cases["gen"] {
		b, c := streamRows(o, in, floor)
		rows = append(rows, b, c)
		rows = append(rows, rssRows(o, "(c) generator's", in.Stream, in.ArmedGen, in.StreamBytes, floor, 0, 128e6)...)
	}
	if o.cases["r"] {
		rows = append(rows, ratioRow(in))
	}
	var machine string
	if o.cases["d"] {
		var d row
		d, machine = jobsRow(o, in, dir)
		rows = append(rows, d)
	}
	if o.wantMem() {
		fmt.Fprintf(out, "memory cases at %g of full size, each generated, measured at full and ¼ size, removed:\n", o.memScale)
		for _, c := range memCases {
			if o.cases[c.name] {
				r := measureMemCase(o, c, in.ArmedHostile, dir, floor)
				fmt.Fprintf(out, "  %s: %s · %s\n", c.name, r.fpcheck, r.result)
				rows = append(rows, r)
			}
		}
		fmt.Fprintln(out)
	}
	return rows, machine
}

// generateInChild generates the inputs in a child process. A child's peak
// RSS (ru_maxrss) includes its parent's peak at the fork, so the process
// that measures fpcheck's memory must itself never grow: the generator and
// its zstd encoder run elsewhere.
func generateInChild(o options, dir string) (inputs, error) {
	var in inputs
	self, err := os.Executable()
	if err != nil {
		return in, err
	}
	cmd := exec.Command(self, "-generate-into", dir, "-size", strconv.FormatInt(o.size, 10),
		"-b-size", strconv.FormatInt(o.bSize, 10), "-j-calls", strconv.Itoa(o.jCalls),
		"-corpus", o.corpus, "-cases", strings.Join(slices.Sorted(maps.Keys(o.cases)), ","))
	var stdout bytes.Buffer
	var stderr tailBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return in, commandError("generator", err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), &in); err != nil {
		return in, fmt.Errorf("reading the generator's manifest: %w", err)
	}
	return in, nil
}

// rssFloor is the peak RSS a child that does nothing reports: what this
// process lends every child it starts.
func rssFloor() int64 {
	self, err := os.Executable()
	if err != nil {
		return 0
	}
	cmd := exec.Command(self, "-noop")
	if cmd.Run() != nil {
		return 0
	}
	return benchcpu.ChildMaxRSS(cmd.ProcessState)
}

// countWriter counts bytes on their way to w.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func writeFile(path string, write func(io.Writer) (int64, error)) (int64, time.Duration, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	t0 := time.Now()
	n, err := write(bw)
	d := time.Since(t0)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, d, err
}

func generate(o options, dir string) (inputs, error) {
	var in inputs
	var err error
	var d time.Duration

	decl := func(name string, tools []string) (string, error) {
		p := filepath.Join(dir, name)
		return p, os.WriteFile(p, []byte(hostile.ArmAll(tools)), 0o644)
	}
	if in.ArmedGen, err = decl("armed-generator.yaml", synth.ToolNames()); err != nil {
		return in, err
	}
	if in.ArmedHostile, err = decl("armed-hostile.yaml", hostile.Tools); err != nil {
		return in, err
	}
	if o.cases["b"] || o.cases["c"] || o.cases["r"] {
		seeds, err := corpusSeeds(o.corpus)
		if err != nil {
			return in, err
		}
		in.CorpusRatio = corpusRatio(seeds)
		if in.ArmedReal, err = decl("armed-real.yaml", seedTools(seeds)); err != nil {
			return in, err
		}
		write := func(name string, size int64) (realStream, error) {
			r := realStream{Path: filepath.Join(dir, name)}
			f, err := os.Create(r.Path)
			if err != nil {
				return r, err
			}
			r.Bytes, r.Packed, r.Copies, err = writeRealShaped(f, seeds, size)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return r, err
		}
		if in.RealB, err = write("real-b.jsonl.zst", o.bSize); err != nil {
			return in, err
		}
		if o.cases["c"] {
			if in.RealC, err = write("real-c.jsonl.zst", o.size); err != nil {
				return in, err
			}
		}
	}

	if o.cases["a"] {
		in.Recording = filepath.Join(dir, "recording.json")
		if in.RecBytes, d, err = writeFile(in.Recording, func(w io.Writer) (int64, error) {
			return synth.WriteRecordingJSON(w, synth.DefaultConfig())
		}); err != nil {
			return in, err
		}
		in.GenRecMBs = float64(in.RecBytes) / 1e6 / d.Seconds()
	}

	if o.cases["gen"] || o.cases["r"] {
		if err := generateStream(o, dir, &in); err != nil {
			return in, err
		}
	}

	if !o.cases["d"] {
		return in, nil
	}
	jdir := filepath.Join(dir, "jobs")
	if err := os.Mkdir(jdir, 0o755); err != nil {
		return in, err
	}
	for i := range 8 {
		jc := synth.DefaultConfig()
		jc.Iterations = o.jCalls
		jc.Seed = int64(100 + i)
		p := filepath.Join(jdir, fmt.Sprintf("rec-%d.json", i+1))
		n, _, err := writeFile(p, func(w io.Writer) (int64, error) { return synth.WriteRecordingJSON(w, jc) })
		if err != nil {
			return in, err
		}
		in.JFiles = append(in.JFiles, p)
		in.JBytes += n
	}
	return in, nil
}

// generateStream writes the generator's stream: many interleaved runs
// with an occasional megabyte result, as a long-lived process's log holds
// them.
func generateStream(o options, dir string, in *inputs) error {
	sc := synth.DefaultConfig()
	sc.LongResultEvery = 40
	sc.Interleave = true
	sc.Seed = 42
	// runs differ in size (long results fall at random), so size a run by
	// the average of a few
	const sample = 8
	sc.Runs = sample
	some, err := synth.WriteNDJSON(io.Discard, sc)
	if err != nil {
		return err
	}
	one := max(1, some/sample)
	sc.Runs = int(max(1, (o.size+one/2)/one))
	in.StreamRuns = sc.Runs
	in.Stream = filepath.Join(dir, "stream.jsonl.zst")
	var gen time.Duration
	if in.StreamZst, _, err = writeFile(in.Stream, func(w io.Writer) (int64, error) {
		cw := &countWriter{w: w}
		zw, err := zstd.NewWriter(cw, zstd.WithEncoderLevel(zstd.SpeedDefault))
		if err != nil {
			return 0, err
		}
		t0 := time.Now()
		n, err := synth.WriteNDJSON(zw, sc)
		gen = time.Since(t0)
		in.StreamBytes = n
		if cerr := zw.Close(); err == nil {
			err = cerr
		}
		return cw.n, err
	}); err != nil {
		return err
	}
	in.GenNDJSONMBs = float64(in.StreamBytes) / 1e6 / gen.Seconds() // includes compression
	return nil
}

// printInputs lists what was generated.
func printInputs(out io.Writer, o options, in inputs) {
	if in.Recording != "" {
		fmt.Fprintf(out, "  recording.json      %s (one run, 200 model calls), generated at %.0f MB/s\n", mb(in.RecBytes), in.GenRecMBs)
	}
	for _, r := range []struct {
		name string
		s    realStream
	}{{"real-b.jsonl.zst", in.RealB}, {"real-c.jsonl.zst", in.RealC}} {
		if r.s.Path != "" {
			fmt.Fprintf(out, "  %-19s %s uncompressed, %s at zstd -3 (%.0f×; %d copies of the corpus's runs, run ids renamed)\n",
				r.name, mb(r.s.Bytes), mb(r.s.Packed), r.s.ratio(), r.s.Copies)
		}
	}
	if in.Stream != "" {
		fmt.Fprintf(out, "  stream.jsonl.zst    %s uncompressed, %s compressed (%.0f×; %d generated runs, interleaved in pairs), %.0f MB/s\n",
			mb(in.StreamBytes), mb(in.StreamZst), ratioOf(in.StreamBytes, in.StreamZst), in.StreamRuns, in.GenNDJSONMBs)
	}
	if len(in.JFiles) > 0 {
		fmt.Fprintf(out, "  jobs/rec-{1..%d}.json %s in all (%d model calls each)\n", len(in.JFiles), mb(in.JBytes), o.jCalls)
	}
	fmt.Fprintln(out)
}

// writeMemCase writes memory case name to path at scale and returns the
// input's size (uncompressed for a bomb: what it expands to).
func writeMemCase(name, path string, scale float64) (int64, error) {
	i := slices.IndexFunc(memCases, func(c memCase) bool { return c.name == name })
	if i < 0 {
		return 0, fmt.Errorf("no memory case %q", name)
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	n, err := memCases[i].write(f, scale)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// measureMemCase generates case c (in a child, at full and a quarter of
// -mem-scale), measures fpcheck on each once with every check armed, and
// removes the inputs.
func measureMemCase(o options, c memCase, decl, dir string, floor int64) row {
	var ms [2]measurement
	var sizes [2]int64
	for i, scale := range []float64{o.memScale, o.memScale / 4} {
		path := filepath.Join(dir, c.name+c.ext)
		n, err := generateCase(c.name, path, scale)
		if err != nil {
			ms[i].err = err
			continue
		}
		sizes[i] = n
		cmd := command{codes: memCodes, report: true, timeout: o.timeout, name: o.fpcheck,
			args: []string{"analyze", "--color=never", "--declarations", decl, path}}
		ms[i] = alternate(1, cmd)[0]
		os.Remove(path)
	}
	return memRow(c, o.memScale, ms[0], ms[1], sizes[0], sizes[1], floor)
}

// generateCase writes a memory case in a child process, for the reason
// generateInChild gives.
func generateCase(name, path string, scale float64) (int64, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(self, "-generate-case", name, "-out", path, "-mem-scale", strconv.FormatFloat(scale, 'g', -1, 64))
	var stdout bytes.Buffer
	var stderr tailBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return 0, commandError("generator", err, stderr.String())
	}
	return strconv.ParseInt(strings.TrimSpace(stdout.String()), 10, 64)
}

// ---- running commands ----

// measurement is the best of several runs of one command.
type measurement struct {
	wall     time.Duration   // best wall time
	walls    []time.Duration // every run's wall time, in order
	cpu      time.Duration   // user+system of the best run
	cpus     []time.Duration // every run's user+system time, in order
	maxRSS   int64           // bytes, the most any run reached
	sums     []string        // sha256 of each run's stdout, when kept
	code     int             // the last run's exit code
	tail     string          // the start and end of the last run's report, when counted
	timedOut bool            // the last run was stopped at its timeout
	err      error
}

func (m measurement) ok() bool { return m.err == nil }

// okCodes are the exit codes that mean "ran and reported". fpcheck exits 1
// for defects and 3 for unmeasured runs: both are reports.
var (
	fpcheckCodes = []int{0, 1, 3}
	toolCodes    = []int{0}
)

// command is one command to measure. stdout goes to /dev/null, or to
// keepOut-<run> files whose hashes are kept, when keepOut is set. With
// report set (fpcheck runs), stdout is counted instead, and a run that
// printed nothing failed whatever its exit code: fpcheck always reports.
type command struct {
	codes   []int
	report  bool
	keepOut string
	timeout time.Duration // 0: none; past it the run is killed and its measurement says so
	name    string
	args    []string
}

// alternate measures each command runs times, one after the other in
// turn, so that a machine that speeds up or slows down while measuring
// weighs on all alike. A zero command (a reference tool that is missing)
// is not run. It stops at the first failure.
func alternate(runs int, cmds ...command) []measurement {
	ms := make([]measurement, len(cmds))
	for i := range ms {
		ms[i].wall = -1
	}
	for r := range runs {
		for i, c := range cmds {
			if c.name == "" {
				continue
			}
			if ms[i].once(r, c); !ms[i].ok() {
				return ms
			}
		}
	}
	return ms
}

// once runs c (its run r) and folds the run into m.
func (m *measurement) once(r int, c command) {
	outPath := os.DevNull
	if c.keepOut != "" {
		outPath = fmt.Sprintf("%s-%d", c.keepOut, r+1)
	}
	stdout, err := os.Create(outPath)
	if err != nil {
		m.err = err
		return
	}
	var stderr tailBuffer
	var tail headTail
	ctx := context.Background()
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, c.name, c.args...)
	// fpcheck does its work in a child process and passes an interrupt on
	// to it; a kill would leave that child running, holding stdout.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	cmd.Stdout = stdout
	counted := &countWriter{w: &tail}
	if c.report && c.keepOut == "" {
		cmd.Stdout = counted
	}
	cmd.Stderr = &stderr
	t0 := time.Now()
	err = cmd.Run()
	wall := time.Since(t0)
	stdout.Close()
	if cmd.ProcessState == nil { // it never started
		m.err = commandError(c.name, err, stderr.String())
		return
	}
	m.code, m.tail = cmd.ProcessState.ExitCode(), tail.String()
	m.timedOut = ctx.Err() != nil
	if m.timedOut {
		// A stopped fpcheck may not have reaped the child that did the
		// work, so its peak RSS is not measured.
		m.walls = append(m.walls, wall)
		m.wall, m.cpu, m.maxRSS = wall, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime(), 0
		return
	}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || !contains(c.codes, ee.ExitCode()) {
			m.err = commandError(c.name, err, stderr.String())
			return
		}
	}
	if c.report && c.keepOut == "" && counted.n == 0 {
		m.err = commandError(c.name, fmt.Errorf("%v, and no report on stdout", cmd.ProcessState), stderr.String())
		return
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	m.walls = append(m.walls, wall)
	m.cpus = append(m.cpus, cpu)
	if m.wall < 0 || wall < m.wall {
		m.wall, m.cpu = wall, cpu
	}
	m.maxRSS = max(m.maxRSS, benchcpu.ChildMaxRSS(cmd.ProcessState))
	if c.keepOut != "" {
		sum, err := fileSum(outPath)
		if err != nil {
			m.err = err
			return
		}
		m.sums = append(m.sums, sum)
	}
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// commandError names the command, how it ended and its last stderr line.
func commandError(name string, err error, stderr string) error {
	msg := strings.TrimSpace(stderr)
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = strings.TrimSpace(msg[i+1:])
	}
	if len(msg) > 160 {
		msg = msg[:160] + "…"
	}
	if msg == "" {
		return fmt.Errorf("%s: %v", filepath.Base(name), err)
	}
	return fmt.Errorf("%s: %v: %s", filepath.Base(name), err, msg)
}

// tailBuffer keeps the last 8 KiB written to it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 8<<10 {
		t.b = append(t.b[:0], t.b[len(t.b)-8<<10:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

// headTail keeps the first and the last 8 KiB written to it: where a
// report names a stopped input, and how it ends.
type headTail struct {
	head []byte
	tail tailBuffer
	cut  bool // bytes between head and tail were dropped
}

func (h *headTail) Write(p []byte) (int, error) {
	n := len(p)
	if k := min(len(p), 8<<10-len(h.head)); k > 0 {
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	if len(p) > 0 {
		h.cut = h.cut || len(h.tail.b)+len(p) > 8<<10
		h.tail.Write(p)
	}
	return n, nil
}

func (h *headTail) String() string {
	if h.cut {
		return string(h.head) + "\n…\n" + h.tail.String()
	}
	return string(h.head) + h.tail.String()
}

func fileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}

// ---- the four measurements ----

type row struct {
	name, baseline, fpcheck, ratio, target, result string
	// figure is what the result was judged on, in short, for the summary
	// of several rounds.
	figure string
}

const (
	met     = "MET"
	notMet  = "NOT MET"
	skipped = "SKIPPED"
	failed  = "FAILED"
)

func verdict(ok bool) string {
	if ok {
		return met
	}
	return notMet
}

// lookTool finds an external tool or says why it cannot run.
func lookTool(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s not found on PATH", name)
	}
	return p, nil
}

func timing(m measurement, bytes int64) string {
	return fmt.Sprintf("%s %s/s (cpu %s)", secs(m.wall), mb(int64(float64(bytes)/m.wall.Seconds())), secs(m.cpu))
}

// parseRow measures (a), and beside it what a fresh page of memory costs
// the machine in the same round (see freshKind).
func parseRow(o options, in inputs) (r, fresh row) {
	r = row{name: "(a) recording JSON " + mb(in.RecBytes) + ", analyze --format json", target: "≥ 15× faster"}
	fc := command{codes: fpcheckCodes, report: true, name: o.fpcheck, args: []string{"analyze", "--format", "json", in.Recording}}
	node, err := lookTool(o.node)
	if err != nil {
		r.baseline = err.Error() + ": skipped"
		ms := alternate(o.runs, fc, machineCommand(freshKind, 1, nil))
		r.fpcheck, r.result = fpcheckCell(ms[0], in.RecBytes, skipped)
		return r, freshRow(ms[1])
	}
	nc := command{codes: toolCodes, name: node, args: []string{"-e", `JSON.parse(require("fs").readFileSync(process.argv[1]))`, in.Recording}}
	ms := alternate(o.runs, fc, nc, machineCommand(freshKind, 1, nil))
	f, n := ms[0], ms[1]
	fresh = freshRow(ms[2])
	r.fpcheck, r.result = fpcheckCell(f, in.RecBytes, "")
	if !f.ok() {
		return r, fresh
	}
	if !n.ok() {
		r.baseline, r.result = n.err.Error(), failed
		return r, fresh
	}
	r.baseline = "JSON.parse " + timing(n, in.RecBytes)
	x := n.wall.Seconds() / f.wall.Seconds()
	r.ratio = fmt.Sprintf("%.1f× faster (cpu %.1f×)", x, n.cpu.Seconds()/f.cpu.Seconds()) + pairedNote(n.walls, f.walls)
	r.result, r.figure = verdict(x >= 15), fmt.Sprintf("%.1f×", x)
	return r, fresh
}

// freshRow reports the fresh-memory check measured beside (a).
func freshRow(m measurement) row {
	r := row{name: fmt.Sprintf("(a) machine check: %d MiB of fresh memory, each %d KiB page touched once", freshBytes>>20, freshPage>>10),
		baseline: "—", target: "— (information)", result: "—"}
	if !m.ok() {
		r.fpcheck, r.result = m.err.Error(), failed
		return r
	}
	us := float64(m.wall.Microseconds()) / (freshBytes / freshPage)
	r.fpcheck = fmt.Sprintf("%s (cpu %s)", secs(m.wall), secs(m.cpu))
	r.ratio = fmt.Sprintf("%.2f µs a page, process start included; node's parse and the floor of (b) pay for many such pages, fpcheck for few", us)
	r.figure = fmt.Sprintf("%.2f µs a page", us)
	return r
}

// fpcheckCell is the fpcheck cell of a row and its result so far: the
// timing and result, or the failure.
func fpcheckCell(f measurement, bytes int64, result string) (string, string) {
	if !f.ok() {
		return f.err.Error(), failed
	}
	return timing(f, bytes), result
}

func streamRows(o options, in inputs, floor int64) (b, c row) {
	b = row{name: fmt.Sprintf("(b) generator's NDJSON.zst %s (%s packed), analyze", mb(in.StreamBytes), mb(in.StreamZst)), target: "≤ 2× zstd's time"}
	c = row{name: "(c) peak RSS of the generator's (b), unarmed", baseline: "—", target: "< 100 MB"}
	fc := command{codes: fpcheckCodes, report: true, name: o.fpcheck, args: []string{"analyze", in.Stream}}
	var f, zm measurement
	z, zerr := lookTool(o.zstd)
	if zerr != nil {
		b.baseline = zerr.Error() + ": skipped"
		f = alternate(o.runs, fc)[0]
	} else {
		ms := alternate(o.runs, fc, command{codes: toolCodes, name: z, args: []string{"-dc", in.Stream}})
		f, zm = ms[0], ms[1]
	}
	b.fpcheck, b.result = fpcheckCell(f, in.StreamBytes, "")
	if !f.ok() {
		c.fpcheck, c.result = "analyze failed (see b)", failed
		return b, c
	}
	c.fpcheck = fmt.Sprintf("%s (floor %s)", mb(f.maxRSS), mb(floor))
	c.result, c.figure = verdict(f.maxRSS < 100e6), mb(f.maxRSS)
	switch {
	case zerr != nil:
		b.result = skipped
	case !zm.ok():
		b.baseline, b.result = zm.err.Error(), failed
	default:
		b.baseline = "zstd -dc " + timing(zm, in.StreamBytes)
		x := f.wall.Seconds() / zm.wall.Seconds()
		b.ratio = fmt.Sprintf("%.2f× zstd's time", x) + pairedNote(f.walls, zm.walls)
		b.result, b.figure = verdict(x <= 2), fmt.Sprintf("%.2f×", x)
	}
	return b, c
}

func jobsRow(o options, in inputs, dir string) (row, string) {
	r := row{name: fmt.Sprintf("(d) %d recordings, analyze -j 1 vs -j 2, alternated pairs", len(in.JFiles)), target: "median of pairs ≥ 1.8×, cpu ≤ +5%, same bytes"}
	args := func(j string) []string {
		return append([]string{"analyze", "--format", "json", "-j", j}, in.JFiles...)
	}
	cmds := []command{
		{codes: fpcheckCodes, report: true, keepOut: filepath.Join(dir, "out-j1"), name: o.fpcheck, args: args("1")},
		{codes: fpcheckCodes, report: true, keepOut: filepath.Join(dir, "out-j2"), name: o.fpcheck, args: args("2")},
	}
	// The machine check runs in turn with the two sides, so that it sees
	// the machine as they do.
	for _, k := range machineKinds {
		cmds = append(cmds, machineCommand(k.name, 1, in.JFiles), machineCommand(k.name, 2, in.JFiles))
	}
	ms := alternate(max(5, o.runs), cmds...)
	one, two := ms[0], ms[1]
	note := machineNote(ms[2:])
	if !one.ok() {
		r.baseline, r.result = one.err.Error(), failed
		return r, note
	}
	r.baseline = "-j 1 " + timing(one, in.JBytes)
	if !two.ok() {
		r.fpcheck, r.result = two.err.Error(), failed
		return r, note
	}
	r.fpcheck = "-j 2 " + timing(two, in.JBytes)
	same := true
	for _, s := range append(one.sums[1:], two.sums...) {
		same = same && s == one.sums[0]
	}
	x := pairedMedian(one.walls, two.walls)
	over := pairedMedian(two.cpus, one.cpus) - 1
	r.ratio = fmt.Sprintf("median of %d pairs %.2f× faster (best-of %.2f×), cpu %+.1f%% (median of pairs)",
		min(len(one.walls), len(two.walls)), x, one.wall.Seconds()/two.wall.Seconds(), 100*over)
	if same {
		r.ratio += ", outputs identical"
	} else {
		r.ratio += ", OUTPUTS DIFFER"
	}
	r.result, r.figure = verdict(x >= 1.8 && over <= 0.05 && same), fmt.Sprintf("%.2f× %+.1f%%", x, 100*over)
	if runtime.NumCPU() < 2 {
		r.result = skipped + " (1 CPU)"
	}
	return r, note
}

// ---- the machine check ----

// The machine check measures what the machine itself makes of a second
// thread, the way (d) is measured: the same work on one thread and split
// over two, in turn with (d)'s runs, best of the runs. Two kinds of work
// bracket fpcheck's: a loop that touches no memory, which has nothing to
// share but the cores, and a plain read of the eight recordings, which
// shares the memory bus and the page cache. On a machine whose cores are
// shared with other work, or that runs one busy core faster than two,
// both show less than 2×, and (d) can be expected between them.

// machineKind is a kind of work of the machine check: its name on the
// command line and what the note calls it.
type machineKind struct{ name, what string }

// machineKinds are the machine check's kinds of work, in the order the
// note lists them.
var machineKinds = []machineKind{
	{"spin", "a loop that touches no memory"},
	{"read", "reading the recordings (128 KiB reads, quotes counted)"},
}

// freshKind is the check beside (a) and (b): fresh memory, each page
// touched once. (a)'s baseline (node's parse of 84 MB) and (b)'s floor
// spend much of their time on pages the process touches for the first
// time, fpcheck much less, so those ratios move with what a fresh page
// costs the machine that day (1 to 15 µs a page on this kind of virtual
// machine), and this says what it cost in the same round.
const freshKind = "fresh"

// freshBytes is how much fresh memory the check touches.
const freshBytes = 256 << 20

// freshPage is the page size the check touches memory by.
const freshPage = 4 << 10

// touchFresh writes one byte in each page of n bytes of memory the
// process has not used before: each write is a page fault.
func touchFresh(n int) uint64 {
	buf := make([]byte, n)
	for i := 0; i < len(buf); i += freshPage {
		buf[i] = 1
	}
	var sum uint64
	for i := 0; i < len(buf); i += 64 * freshPage {
		sum += uint64(buf[i])
	}
	return sum
}

// spinIterations sizes the loop: about 0.4 s of one core here, as long as
// (d)'s -j 1 side.
const spinIterations = 200_000_000

// machineSink keeps the work's results alive, so the compiler keeps it.
var machineSink atomic.Uint64

// spin is a loop of integer arithmetic that touches no memory.
func spin(n int) uint64 {
	x := uint64(1)
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
		x ^= x >> 17
	}
	return x
}

// countQuotes reads a file as fpcheck does, 128 KiB at a time, and counts
// its quotes, so that every byte is looked at once.
func countQuotes(path string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 128<<10)
	var n uint64
	for {
		k, err := f.Read(buf)
		n += uint64(bytes.Count(buf[:k], []byte{'"'}))
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// machineWork does one kind of work split over threads goroutines: the
// loop in equal parts, the files handed out one by one as -j does.
func machineWork(kind string, threads int, files []string) error {
	if kind == freshKind {
		machineSink.Add(touchFresh(freshBytes))
		return nil
	}
	if !slices.ContainsFunc(machineKinds, func(k machineKind) bool { return k.name == kind }) {
		return fmt.Errorf("unknown kind of work %q", kind)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	next := make(chan string)
	for range threads {
		wg.Go(func() {
			if kind == "spin" {
				machineSink.Add(spin(spinIterations / threads))
				return
			}
			for p := range next {
				n, err := countQuotes(p)
				if err != nil {
					mu.Lock()
					firstErr = cmp.Or(firstErr, err)
					mu.Unlock()
				}
				machineSink.Add(n)
			}
		})
	}
	if kind == "read" {
		for _, p := range files {
			next <- p
		}
	}
	close(next)
	wg.Wait()
	return firstErr
}

// machineCommand runs one kind of work on threads goroutines in a child
// process, so that it is timed as the commands it is compared with are.
func machineCommand(kind string, threads int, files []string) command {
	self, err := os.Executable()
	if err != nil {
		return command{}
	}
	args := append([]string{"-machine", kind, "-threads", strconv.Itoa(threads)}, files...)
	return command{codes: toolCodes, name: self, args: args}
}

// machineNote reports the machine check: ms holds, for each of
// machineKinds, the one-thread and the two-thread measurement.
func machineNote(ms []measurement) string {
	var b strings.Builder
	for i, k := range machineKinds {
		one, two := ms[2*i], ms[2*i+1]
		if !one.ok() || !two.ok() || two.wall <= 0 {
			continue
		}
		fmt.Fprintf(&b, "  %s: %.2f× faster on 2 threads%s; 1 thread %s to %s\n", k.what,
			one.wall.Seconds()/two.wall.Seconds(), pairedNote(one.walls, two.walls),
			secs(slices.Min(one.walls)), secs(slices.Max(one.walls)))
	}
	if b.Len() == 0 {
		return ""
	}
	return "Machine check, run in turn with (d): the same work on 1 thread and split over 2, best of the runs.\n" +
		b.String() + "(d)'s work is mostly of the first kind, with the second's reads: expect it between the two, give or take the drift."
}

// pairedNote is pairedMedian for a ratio cell, when there are pairs to
// take the median of.
func pairedNote(a, b []time.Duration) string {
	if min(len(a), len(b)) < 2 {
		return ""
	}
	return fmt.Sprintf(" (median of %d pairs %.2f×)", min(len(a), len(b)), pairedMedian(a, b))
}

// pairedMedian is the median of a[i]/b[i] over the runs both made. Runs
// alternate, so each pair saw the machine in about the same state: on a
// shared machine whose speed drifts, this says more about the typical
// ratio than the ratio of the two best runs, which a single lucky run of
// either side decides. It is printed beside the verdict, not used for it.
func pairedMedian(a, b []time.Duration) float64 {
	n := min(len(a), len(b))
	if n == 0 {
		return 0
	}
	xs := make([]float64, n)
	for i := range n {
		xs[i] = a[i].Seconds() / b[i].Seconds()
	}
	slices.Sort(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// ---- output ----

func printTable(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MEASUREMENT\tBASELINE\tFPCHECK\tRATIO\tTARGET\tRESULT")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cell(r.name), cell(r.baseline), cell(r.fpcheck), cell(r.ratio), cell(r.target), cell(r.result))
	}
	tw.Flush()
}

// printSummary gives, for each row of the rounds (the same rows in the
// same order each round), its target, its figure in every round (the
// spread "3 of 5 runs" is judged by) and how many rounds met it.
func printSummary(w io.Writer, rounds [][]row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MEASUREMENT\tTARGET\tFIGURE IN EACH ROUND\tMET")
	for i, r := range rounds[0] {
		var figures []string
		nMet, judged := 0, 0
		for _, rows := range rounds {
			if i >= len(rows) || rows[i].name != r.name {
				figures = append(figures, "?")
				continue
			}
			f := rows[i].figure
			if f == "" {
				f = rows[i].result
			}
			figures = append(figures, f)
			switch rows[i].result {
			case met:
				nMet++
				judged++
			case notMet, failed:
				judged++
			}
		}
		verdict := "—"
		if judged > 0 {
			verdict = fmt.Sprintf("%d of %d", nMet, len(rounds))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", cell(r.name), cell(r.target), cell(strings.Join(figures, " · ")), verdict)
	}
	tw.Flush()
}

// cell keeps a table cell on one line.
func cell(s string) string {
	if s == "" {
		return "—"
	}
	return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
}

func mb(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	default:
		return fmt.Sprintf("%.0f kB", float64(n)/1e3)
	}
}

func secs(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := bytes.Fields(b)
	if len(f) < 3 {
		return "unknown"
	}
	return string(bytes.Join(f[:3], []byte(" ")))
}

// realRows measure (b) on the real-shaped stream: fpcheck -j 2 unarmed
// against zstd -dc and against the floor, and armed against unarmed CPU,
// all four in turn.
func realRows(o options, in inputs) []row {
	name := fmt.Sprintf("(b) real-shaped NDJSON.zst %s (%s packed), analyze -j 2", mb(in.RealB.Bytes), mb(in.RealB.Packed))
	b := row{name: name + ", unarmed", target: "≤ 2.5× zstd's time"}
	armed := row{name: name + ", every check armed", target: "cpu ≤ 1.5× unarmed"}
	fl := row{name: "(b) floor: Go zstd → lines → jsonfast Valid + UTF-8, 2 threads", target: "— (information)"}
	fpc := func(decl string) command {
		args := []string{"analyze", "-j", "2"}
		if decl != "" {
			args = append(args, "--declarations", decl)
		}
		return command{codes: fpcheckCodes, report: true, name: o.fpcheck, args: append(args, in.RealB.Path)}
	}
	var zc command
	z, zerr := lookTool(o.zstd)
	if zerr == nil {
		zc = command{codes: toolCodes, name: z, args: []string{"-dc", in.RealB.Path}}
	}
	ms := alternate(o.runs, fpc(""), zc, floorCommand(in.RealB.Path, 2), fpc(in.ArmedReal))
	un, zm, floor, arm := ms[0], ms[1], ms[2], ms[3]
	if !un.ok() {
		b.fpcheck, b.result = un.err.Error(), failed
		return []row{b}
	}
	b.fpcheck = timing(un, in.RealB.Bytes)
	switch {
	case zerr != nil:
		b.baseline, b.result = zerr.Error()+": skipped", skipped
	case !zm.ok():
		b.baseline, b.result = zm.err.Error(), failed
	default:
		b.baseline = "zstd -dc " + timing(zm, in.RealB.Bytes)
		x := un.wall.Seconds() / zm.wall.Seconds()
		b.ratio = fmt.Sprintf("%.2f× zstd's time", x) + pairedNote(un.walls, zm.walls)
		b.result, b.figure = verdict(x <= 2.5), fmt.Sprintf("%.2f×", x)
	}
	if floor.ok() {
		fl.baseline = "floor " + timing(floor, in.RealB.Bytes)
		fl.fpcheck = "fpcheck unarmed, as above"
		fl.ratio = fmt.Sprintf("fpcheck %.2f× the floor's time, cpu %.2f×", un.wall.Seconds()/floor.wall.Seconds(), un.cpu.Seconds()/floor.cpu.Seconds()) +
			pairedNote(un.walls, floor.walls)
		if zm.ok() {
			fl.ratio += fmt.Sprintf("; the floor %.2f× zstd's time", floor.wall.Seconds()/zm.wall.Seconds())
		}
		fl.result, fl.figure = "—", fmt.Sprintf("%.2f× the floor", un.wall.Seconds()/floor.wall.Seconds())
	} else {
		fl.baseline, fl.result = floor.err.Error(), failed
	}
	armed.baseline = "unarmed " + timing(un, in.RealB.Bytes)
	if !arm.ok() {
		armed.fpcheck, armed.result = arm.err.Error(), failed
	} else {
		armed.fpcheck = timing(arm, in.RealB.Bytes)
		x := pairedMedian(arm.cpus, un.cpus)
		armed.ratio = fmt.Sprintf("cpu %.2f× unarmed (median of pairs; best runs %.2f×)", x, arm.cpu.Seconds()/un.cpu.Seconds())
		armed.result, armed.figure = verdict(x <= 1.5), fmt.Sprintf("%.2f×", x)
	}
	return []row{b, armed, fl}
}

// floorCommand runs the floor's work in a child process.
func floorCommand(path string, threads int) command {
	self, err := os.Executable()
	if err != nil {
		return command{}
	}
	return command{codes: toolCodes, name: self, args: []string{"-floor", path, "-threads", strconv.Itoa(threads)}}
}

// rssRows measure fpcheck's peak RSS on one stream, unarmed (when
// unarmedMax is set) and with every check armed, once each: a resident
// set does not drift as times do.
func rssRows(o options, what, path, decl string, size, floor int64, unarmedMax, armedMax float64) []row {
	var rows []row
	one := func(label string, limit float64, args ...string) {
		r := row{name: fmt.Sprintf("%s %s, peak RSS, %s", what, mb(size), label), baseline: "—", target: fmt.Sprintf("< %.0f MB", limit/1e6)}
		cmd := command{codes: fpcheckCodes, report: true, name: o.fpcheck, args: append(append([]string{"analyze"}, args...), path)}
		m := alternate(1, cmd)[0]
		if !m.ok() {
			r.fpcheck, r.result = m.err.Error(), failed
		} else {
			r.fpcheck = fmt.Sprintf("%s (floor %s)", mb(m.maxRSS), mb(floor))
			r.ratio = timing(m, size)
			r.result, r.figure = verdict(m.maxRSS > 0 && float64(m.maxRSS) < limit), mb(m.maxRSS)
		}
		rows = append(rows, r)
	}
	if unarmedMax > 0 {
		one("unarmed", unarmedMax)
	}
	one("armed", armedMax, "--declarations", decl)
	return rows
}

// ratioRow compares the compression ratios: the generator's stream is to
// compress like real recordings, within 2× of the corpus's own ratio.
func ratioRow(in inputs) row {
	gen := ratioOf(in.StreamBytes, in.StreamZst)
	r := row{name: "(r) zstd -3 ratio: generator's stream vs the corpus's recordings", target: "within 2× of the corpus's"}
	r.baseline = fmt.Sprintf("corpus %.1f× (each stream alone), real-shaped %.0f×", in.CorpusRatio, in.RealB.ratio())
	r.fpcheck = fmt.Sprintf("generator %.1f×", gen)
	if in.CorpusRatio <= 0 || gen <= 0 {
		r.result = failed
		return r
	}
	r.ratio = fmt.Sprintf("%.2f× the corpus's", gen/in.CorpusRatio)
	r.result, r.figure = verdict(gen >= in.CorpusRatio/2 && gen <= in.CorpusRatio*2), fmt.Sprintf("%.2f×", gen/in.CorpusRatio)
	return r
}
