package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// hostileFixtures are the committed damaged and hostile recordings.
const hostileFixtures = "../../testdata/recordings/hostile"

// run calls Main in-process with buffers, as a terminal-less CI job would.
func run(t *testing.T, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	ios := &IOStreams{In: stdin, Out: &out, ErrOut: &errOut, Getenv: testEnv}
	code = Main(args, ios)
	return code, out.String(), errOut.String()
}

// sgr matches the colour sequences the text renderer itself writes.
var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// checkTerminalSafe fails when output would act on a terminal: after the
// renderer's own colour sequences are taken out, no control character but
// the newline, no C1 control, no bidirectional override or isolate, no
// line or paragraph separator, and valid UTF-8.
func checkTerminalSafe(t *testing.T, what, s string) {
	t.Helper()
	s = sgr.ReplaceAllString(s, "")
	if !utf8.ValidString(s) {
		t.Errorf("%s is not valid UTF-8", what)
	}
	for i, r := range s {
		switch {
		case r == '\n':
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
			r == 0x200e, r == 0x200f, r == 0x061c, r == 0x2028, r == 0x2029:
			lo, hi := max(0, i-40), min(len(s), i+20)
			t.Errorf("%s holds the raw %U at byte %d: %q", what, r, i, s[lo:hi])
			return
		}
	}
}

// panicWriter stands for any bug below Main: rendering into it panics.
type panicWriter struct{ value any }

func (p panicWriter) Write([]byte) (int, error) { panic(p.value) }

// TestMainRecoversPanic proves the top-level guard: a panic anywhere under
// Main becomes one line on stderr asking for a bug report, naming the
// input, and exit code 4, never a stack dump.
func TestMainRecoversPanic(t *testing.T) {
	input := filepath.Join(hostileFixtures, "interleaved.jsonl")
	var errOut bytes.Buffer
	ios := &IOStreams{In: strings.NewReader(""), Out: panicWriter{"renderer exploded"}, ErrOut: &errOut, Getenv: testEnv}
	code := Main([]string{"analyze", "--color=never", input}, ios)
	if code != int(ExitInternal) {
		t.Errorf("exit code %d, want %d", code, ExitInternal)
	}
	msg := errOut.String()
	if strings.Count(msg, "\n") != 1 || !strings.HasSuffix(msg, "\n") {
		t.Errorf("want exactly one line on stderr, got %q", msg)
	}
	for _, want := range []string{"bug", "report", "interleaved.jsonl", "renderer exploded"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr %q does not mention %q", msg, want)
		}
	}
	if strings.Contains(msg, "goroutine") {
		t.Errorf("stderr carries a stack dump: %q", msg)
	}
}

// TestMainPanicLineIsTerminalSafe: the panic value may carry text from a
// recording; the one line must stay one line and escaped.
func TestMainPanicLineIsTerminalSafe(t *testing.T) {
	var errOut bytes.Buffer
	ios := &IOStreams{In: strings.NewReader(""), Out: panicWriter{"bad \x1b]0;owned\a value\nsecond line"}, ErrOut: &errOut, Getenv: testEnv}
	Main([]string{"analyze", filepath.Join(hostileFixtures, "interleaved.jsonl")}, ios)
	if strings.Count(errOut.String(), "\n") != 1 {
		t.Errorf("not one line: %q", errOut.String())
	}
	checkTerminalSafe(t, "stderr", errOut.String())
}

// TestHostileTerminalSafety runs the CLI over every hostile fixture (and a
// file whose own name is hostile) with colour forced on and off and checks
// that nothing from the recordings reaches the terminal unescaped.
func TestHostileTerminalSafety(t *testing.T) {
	dir := t.TempDir()
	evil := filepath.Join(dir, "evil\x1b]0;owned\a\u202e.jsonl")
	escapes, err := os.ReadFile(filepath.Join(hostileFixtures, "escapes.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(evil, escapes, 0o644); err != nil {
		t.Skipf("the file system refuses the name: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin\x1b[2J.gz"), []byte("\x1f\x8b\x08\x00garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	fixtures, err := filepath.Glob(filepath.Join(hostileFixtures, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, color := range []string{"always", "never"} {
		for _, args := range [][]string{
			append([]string{"analyze", "--color=" + color}, fixtures...),
			{"analyze", "--color=" + color, dir},
			{"analyze", "--color=" + color, "--declarations", filepath.Join(dir, "no\x1b[31msuch.yaml"), dir},
			{"analyze", "--color=" + color, filepath.Join(dir, "missing\x1b]0;x\a.jsonl")},
		} {
			code, stdout, stderr := run(t, nil, args...)
			if code != 2 {
				t.Errorf("%q: exit %d, want 2 (unreadable inputs among them)", args, code)
			}
			checkTerminalSafe(t, "stdout", stdout)
			checkTerminalSafe(t, "stderr", stderr)
		}
	}
	// diff shows values from both recordings side by side.
	for _, color := range []string{"always", "never"} {
		_, stdout, stderr := run(t, nil, "diff", "--color="+color, filepath.Join(hostileFixtures, "escapes.jsonl"), filepath.Join(hostileFixtures, "wrong-types.jsonl"))
		checkTerminalSafe(t, "diff stdout", stdout)
		checkTerminalSafe(t, "diff stderr", stderr)
	}
	// Standard input carries hostile bytes too.
	code, stdout, stderr := run(t, bytes.NewReader(escapes), "analyze", "--color=always", "-")
	if code != 1 {
		t.Errorf("stdin: exit %d, want 1", code)
	}
	checkTerminalSafe(t, "stdout", stdout)
	checkTerminalSafe(t, "stderr", stderr)
}

// TestOneBadInputIsNotFatal checks that a hostile input costs only itself:
// the good recording beside it is read and judged, and the exit code is the
// unreadable one.
func TestOneBadInputIsNotFatal(t *testing.T) {
	dir := t.TempDir()
	bomb := filepath.Join(dir, "bomb.jsonl.zst")
	writeBomb(t, bomb, "zstd", 16)
	good := filepath.Join(hostileFixtures, "interleaved.jsonl")
	code, stdout, _ := run(t, nil, "analyze", "--color=never", "--max-decompressed-bytes", "16777216",
		filepath.Join(hostileFixtures, "garbage.bin"), bomb, good, filepath.Join(hostileFixtures, "corrupt.jsonl.zst"))
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	for _, want := range []string{
		"RUN run-1796025700000-1 · " + good,
		"RUN run-1796025700000-2 · " + good,
		"garbage.bin: not an agentfootprint recording: binary data",
		"bomb.jsonl.zst: decompresses to more than 16 MiB (limit set by --max-decompressed-bytes)",
		"corrupt.jsonl.zst: corrupt zstd data near compressed byte offset",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout does not contain %q", want)
		}
	}
}

// writeBomb writes a recording whose first line is a real event followed by
// gib GiB of blank padding, compressed with codec: a few hundred kilobytes
// on disk. Concatenated zstd frames and gzip members decompress as one
// stream, so one compressed 64 MiB chunk is written 16 times per GiB.
func writeBomb(t *testing.T, path, codec string, chunks int) {
	t.Helper()
	compress := func(p []byte) []byte {
		var buf bytes.Buffer
		var w io.WriteCloser
		if codec == "zstd" {
			zw, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
			if err != nil {
				t.Fatal(err)
			}
			w = zw
		} else {
			w, _ = gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		}
		w.Write(p)
		w.Close()
		return buf.Bytes()
	}
	head := compress([]byte(`{"type":"agentfootprint.agent.run_configured","payload":{},"meta":{"runId":"run-1"}}` + "\n"))
	body := compress(bytes.Repeat([]byte(" "), 64<<20))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(head)
	for range chunks {
		f.Write(body)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestGeneratedHostileInputs drives the inputs too big to commit through
// the CLI: gigabyte bombs, a 64 MiB line, 200,000 levels of nesting. Each
// gets its documented exit code and a message naming the file, the place,
// the limit and the flag.
func TestGeneratedHostileInputs(t *testing.T) {
	dir := t.TempDir()
	type tc struct {
		name  string
		setup func(t *testing.T) string // writes the input, returns its path
		args  []string
		code  int
		want  []string
		slow  bool // skipped with -short
		big   bool // run only with FPCHECK_BIG=1
	}
	deepDoc := func(depth int) []byte {
		return []byte(`{"snapshot":{"executionTree":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `},"events":[]}`)
	}
	write := func(name string, data []byte) func(t *testing.T) string {
		return func(t *testing.T) string {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	hugeLine := func(t *testing.T) string {
		var b bytes.Buffer
		b.WriteString(`{"type":"agentfootprint.agent.run_configured","payload":{},"meta":{"runId":"run-1"}}` + "\n")
		b.WriteString(`{"type":"agentfootprint.stream.tool_end","payload":{"toolCallId":"c1","result":"`)
		b.Write(bytes.Repeat([]byte("0123456789abcdef"), 4<<20))
		b.WriteString(`"},"meta":{"runId":"run-1"}}` + "\n")
		return write("huge-line.jsonl", b.Bytes())(t)
	}
	cases := []tc{
		{name: "zstd bomb", setup: func(t *testing.T) string {
			p := filepath.Join(dir, "bomb.jsonl.zst")
			writeBomb(t, p, "zstd", 16)
			return p
		}, args: []string{"--max-decompressed-bytes", "16777216"}, code: 2,
			want: []string{"bomb.jsonl.zst: decompresses to more than 16 MiB (limit set by --max-decompressed-bytes)", "decompression bomb"}},
		{name: "gzip bomb", setup: func(t *testing.T) string {
			p := filepath.Join(dir, "bomb.jsonl.gz")
			writeBomb(t, p, "gzip", 16)
			return p
		}, args: []string{"--max-decompressed-bytes", "16777216"}, code: 2,
			want: []string{"bomb.jsonl.gz: decompresses to more than 16 MiB (limit set by --max-decompressed-bytes)"}},
		{name: "nesting 200000", setup: write("deep.json", deepDoc(200_000)), code: 2,
			want: []string{"deep.json: line 1: nesting deeper than 100000 levels at byte offset", "(limit set by --max-nesting)"}},
		{name: "nesting 200000 under a raised --max-nesting", setup: write("deep-ok.json", deepDoc(200_000)), args: []string{"--max-nesting", "300000"}, code: 3,
			want: []string{"Read a recording document of 1 line holding 0 events"}},
		// The line count of a document that stops is where it stopped,
		// not how far the reader had read ahead of it.
		{name: "malformed document", setup: write("broken.json", []byte("{\n  \"events\": [\n    {\"type\": \"agentfootprint.agent.turn_start\",\n     \"payload\": {}, \"meta\": {\"runId\": \"run-1\"}},\n    @\n  ]\n}\n")), code: 2,
			want: []string{"broken.json: line 5: malformed JSON", "Read 5 lines of a recording document, holding 1 event, before it stopped"}},
		{name: "deep line in a stream", setup: write("deep.jsonl", []byte(`{"type":"agentfootprint.agent.run_configured","payload":{},"meta":{"runId":"run-1"}}`+"\n"+
			`{"type":"agentfootprint.x","payload":`+strings.Repeat("[", 200_000)+strings.Repeat("]", 200_000)+`,"meta":{"runId":"run-1"}}`+"\n")),
			code: 3, want: []string{"1 malformed.", "Problems: line 2: malformed: nested deeper than 10000 levels"}},
		// --max-nesting bounds the document; one event of it still nests
		// at most what the event decoder reads, and says so.
		{name: "deep event in a document", setup: write("deep-event.json", []byte(`{"events":[{"type":"agentfootprint.agent.run_configured","payload":{},"meta":{"runId":"run-1"}},`+
			`{"type":"agentfootprint.x","payload":`+strings.Repeat("[", 10_001)+strings.Repeat("]", 10_001)+`,"meta":{"runId":"run-1"}}]}`)),
			code: 3, want: []string{"1 malformed.", "Problems: events[1]: malformed: nested deeper than 10000 levels", "which --max-nesting does not raise"}},
		{name: "huge line refused", setup: hugeLine, args: []string{"--max-line-bytes", "33554432"}, code: 2, slow: true,
			want: []string{"huge-line.jsonl: line 2: the line is longer than 32 MiB (limit set by --max-line-bytes)"}},
		{name: "huge line read", setup: hugeLine, code: 3, slow: true, big: true,
			want: []string{"Read 2 lines as 2 events; nothing was skipped."}},
		{name: "events per run", setup: write("many-events.jsonl", bytes.Repeat([]byte(`{"type":"agentfootprint.stream.token","payload":{},"meta":{"runId":"run-1"}}`+"\n"), 1000)),
			args: []string{"--max-events-per-run", "500"}, code: 2,
			want: []string{`many-events.jsonl: line 501: run "run-1" has more than 500 events (limit set by --max-events-per-run)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.slow && testing.Short() {
				t.Skip("moves a 64 MiB line; skipped with -short")
			}
			if c.big && os.Getenv("FPCHECK_BIG") != "1" {
				t.Skip("reads, replays and reports a 64 MiB line (seconds); set FPCHECK_BIG=1 to run")
			}
			path := c.setup(t)
			args := append(append([]string{"analyze", "--color=never"}, c.args...), path)
			start := time.Now()
			code, stdout, stderr := run(t, nil, args...)
			t.Logf("%s: exit %d in %v", c.name, code, time.Since(start).Round(time.Millisecond))
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, head(stdout), stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout does not contain %q:\n%s", w, head(stdout))
				}
			}
			checkTerminalSafe(t, "stdout", stdout)
		})
	}
}

func head(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "…"
	}
	return s
}

// TestManyRunsEndToEnd analyses a file of many tiny runs in every format,
// in-process, and logs the time each takes: 2,000 runs, or 20,000 with
// FPCHECK_BIG=1 (about half a minute on two cores).
func TestManyRunsEndToEnd(t *testing.T) {
	n := 2_000
	if os.Getenv("FPCHECK_BIG") == "1" && !testing.Short() {
		n = 20_000
	}
	var b bytes.Buffer
	for i := range n {
		id := fmt.Sprintf("run-%d", i)
		fmt.Fprintf(&b, `{"type":"agentfootprint.agent.run_configured","payload":{},"meta":{"runId":%q}}`+"\n", id)
		fmt.Fprintf(&b, `{"type":"agentfootprint.integrity.disposition","payload":{"posture":"observe","workExisted":true,"rows":[{"check":"invariant-violation","seam":"wire","checked":1,"findings":0,"notApplicable":0,"unreachable":0,"synthetic":0}]},"meta":{"runId":%q}}`+"\n", id)
	}
	path := filepath.Join(t.TempDir(), "many.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json", "sarif", "junit", "markdown", "github"} {
		start := time.Now()
		code, stdout, stderr := run(t, nil, "analyze", "--color=never", "--format", format, path)
		t.Logf("%d runs, --format %s: exit %d, %d bytes in %v", n, format, code, len(stdout), time.Since(start).Round(time.Millisecond))
		if strings.Contains(stderr, "not an output format") || strings.Contains(stderr, "must be") {
			continue // a format this build does not have yet
		}
		if code != 0 {
			t.Errorf("--format %s: exit %d, want 0\n%s", format, code, stderr)
		}
	}
}

// TestUTF16RecordingIsNotSkipped checks that a recording saved as UTF-16
// (as a Windows PowerShell redirection saves it) is an unreadable input
// that says how to convert it, even where a directory walk finds it: the
// walk leaves out only what is no recording at all.
func TestUTF16RecordingIsNotSkipped(t *testing.T) {
	dir := t.TempDir()
	clean, err := os.ReadFile("../../testdata/recordings/formats/clean.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	units := utf16.Encode([]rune("\uFEFF" + string(clean)))
	wide := make([]byte, 0, 2*len(units))
	for _, u := range units {
		wide = append(wide, byte(u), byte(u>>8))
	}
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), clean, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.jsonl"), wide, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := run(t, nil, "analyze", "--color=never", dir)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	want := "b.jsonl: a recording written as UTF-16 (little-endian) text with a byte-order mark; agentfootprint writes UTF-8: convert it first, e.g. iconv -f UTF-16 -t UTF-8"
	if !strings.Contains(strings.Join(strings.Fields(stdout), " "), want) {
		t.Errorf("stdout does not say %q:\n%s", want, stdout)
	}
	if strings.Contains(stdout, "SKIPPED") {
		t.Errorf("the UTF-16 recording was skipped:\n%s", stdout)
	}
}

// TestDamagedRotatedHalf: a rotated half that cannot be read, whether the
// damage is in its first bytes or further in, makes its input unreadable
// (exit 2) in every format, and each format that lists inputs names the
// half; the newer half is never judged alone as a green.
func TestDamagedRotatedHalf(t *testing.T) {
	two, err := os.ReadFile("../../testdata/recordings/loader/ndjson-two-runs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	gz := func(p []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(p)
		w.Close()
		return buf.Bytes()
	}
	long := gz(bytes.Repeat(two, 40))
	for _, c := range []struct {
		name  string
		older []byte
	}{
		{"cut within the sniff", gz(two)[:200]},
		{"cut past the sniff", long[:len(long)-20]},
	} {
		dir := t.TempDir()
		main := filepath.Join(dir, "x.jsonl")
		os.WriteFile(main, two, 0o644)
		os.WriteFile(main+".1", c.older, 0o644)
		for _, format := range []string{"text", "json", "sarif", "junit", "markdown", "github", "html", "jsonl", "short"} {
			code, stdout, _ := run(t, nil, "analyze", "--color=never", "--format", format, main)
			if code != int(ExitUsage) {
				t.Errorf("%s, %s: exit %d, want %d", c.name, format, code, ExitUsage)
			}
			if format != "short" && format != "jsonl" && !strings.Contains(stdout, "x.jsonl.1") {
				t.Errorf("%s, %s: the output does not name x.jsonl.1:\n%s", c.name, format, stdout)
			}
		}
	}
}

// TestStoppedStreamCountsItsRuns: a stream whose compression ends early
// inside a run reports that run too, as read so far and with damaged
// evidence, so every event read is in a run; the exit stays 2, and the
// input is not said to have skipped nothing.
func TestStoppedStreamCountsItsRuns(t *testing.T) {
	two, err := os.ReadFile("../../testdata/recordings/loader/ndjson-two-runs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(two), "\n")
	// The first run whole, past the sniff window, then four events of the
	// second; the compressed stream ends there, cut off.
	head := strings.Replace(strings.Join(lines[:10], ""), `"userPrompt":"hello"`, `"userPrompt":"`+strings.Repeat("a", 70000)+`"`, 1)
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write([]byte(head))
	w.Flush()
	p := filepath.Join(t.TempDir(), "cut.jsonl.gz")
	os.WriteFile(p, buf.Bytes(), 0o644)

	code, stdout, _ := run(t, nil, "analyze", "--format", "json", p)
	if code != int(ExitUsage) {
		t.Errorf("exit %d, want %d", code, ExitUsage)
	}
	var rep struct {
		Inputs []struct {
			Events   int64    `json:"events"`
			RunCount int      `json:"runCount"`
			Notes    []string `json:"notes"`
		} `json:"inputs"`
		Runs []struct {
			RunID  string `json:"runId"`
			Events int64  `json:"events"`
			Damage []struct {
				Cause string  `json:"cause"`
				Lines []int64 `json:"lines"`
			} `json:"damage"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Inputs) != 1 || rep.Inputs[0].RunCount != 2 || len(rep.Runs) != 2 {
		t.Fatalf("inputs %+v, runs %+v", rep.Inputs, rep.Runs)
	}
	if n := rep.Runs[0].Events + rep.Runs[1].Events; n != rep.Inputs[0].Events {
		t.Errorf("%d events in runs, %d read", n, rep.Inputs[0].Events)
	}
	if d := rep.Runs[1].Damage; len(d) != 1 || d[0].Cause != "unread" || !slices.Equal(d[0].Lines, []int64{11}) {
		t.Errorf("damage of the run cut short: %+v", d)
	}
	if len(rep.Runs[0].Damage) != 0 {
		t.Errorf("the run read whole is damaged: %+v", rep.Runs[0].Damage)
	}
	if notes := strings.Join(rep.Inputs[0].Notes, " "); strings.Contains(notes, "nothing was skipped") {
		t.Errorf("notes: %s", notes)
	}
}

// TestCraftedRunIDCannotSteerDamage: a line of the second run, cut before
// its meta, whose payload names the first run, damages both runs (nothing
// says whose it is), never the first alone.
func TestCraftedRunIDCannotSteerDamage(t *testing.T) {
	two, err := os.ReadFile("../../testdata/recordings/loader/ndjson-two-runs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(two), "\n")
	lines[8] = `{"type":"agentfootprint.stream.llm_start","payload":{"runId":"run-1796025753133-1","iteration":` + "\n"
	p := filepath.Join(t.TempDir(), "steer.jsonl")
	os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644)
	_, stdout, _ := run(t, nil, "analyze", "--format", "json", p)
	var rep struct {
		Runs []struct {
			RunID  string            `json:"runId"`
			Damage []json.RawMessage `json:"damage"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 2 {
		t.Fatalf("runs %+v", rep.Runs)
	}
	for _, r := range rep.Runs {
		if len(r.Damage) == 0 {
			t.Errorf("run %s is not damaged by line 9", r.RunID)
		}
	}
}
