package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

// renderSeedRoot holds every hand-made recording; its NDJSON files seed the
// renderer fuzzer.
const renderSeedRoot = "../testdata/recordings"

// fuzzReportInputs turns fuzzed bytes into what the CLI would hand Build:
// the bytes loaded as a recording (each run with its recorded evidence and
// a replay), and a second input that could not be read, whose path and
// error carry the fuzzed text too.
func fuzzReportInputs(name string, data []byte, errText string) []InputResult {
	in := InputResult{Path: name}
	st, err := recording.LoadReader(name, bytes.NewReader(data), recording.Options{MaxNesting: 2000}, func(run *recording.Run) error {
		rr := NewRunResult(run)
		if ev, err := replay.Replay(run, nil, replay.Options{}); err == nil {
			rr.Replayed = ev
		}
		in.Runs = append(in.Runs, rr)
		return nil
	})
	in.Stats, in.Err = st, err
	return []InputResult{in, {Path: errText + ".jsonl", Err: errors.New(errText)}}
}

// fuzzOptions picks report options from fuzzed numbers.
func fuzzOptions(kind, limit, failOn uint8, allow bool) Options {
	o := testOptions(Options{Limit: int(limit % 4), AllowUnmeasured: allow})
	kinds := append([]string{""}, checks.KnownKinds()...)
	o.Kind = kinds[int(kind)%len(kinds)]
	o.FailOn = []string{"", FailOnDefect, FailOnAdvisory, FailOnDrift}[failOn%4]
	return o
}

// checkRendered asserts what every output of a format must be, whatever
// the recording held.
func checkRendered(t *testing.T, format string, out []byte) {
	t.Helper()
	switch {
	case format == FormatJSONL:
		checkJSONL(t, out)
		return
	case format == FormatHTML:
		checkHTML(t, out)
		checkNoControls(t, format, out)
		return
	case format == FormatJSON || format == FormatSARIF:
		if !json.Valid(out) {
			t.Fatalf("%s output is not valid JSON:\n%s", format, out)
		}
		return
	case format == FormatJUnit || bytes.HasPrefix(bytes.TrimSpace(out), []byte("<")):
		dec := xml.NewDecoder(bytes.NewReader(out))
		for {
			_, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s output is not well-formed XML: %v\n%s", format, err, out)
			}
		}
		return
	case bytes.HasPrefix(bytes.TrimSpace(out), []byte("{")):
		if !json.Valid(out) {
			t.Fatalf("%s output looks like JSON but is not valid:\n%s", format, out)
		}
		return
	}
	// Formats read on a terminal or in a log (text, markdown, GitHub
	// annotations): nothing from the recording may act on the terminal.
	checkNoControls(t, format, out)
}

// checkNoControls fails on invalid UTF-8 and on any control, C1 or
// bidirectional character but the newline.
func checkNoControls(t *testing.T, format string, out []byte) {
	t.Helper()
	if !utf8.Valid(out) {
		t.Errorf("%s output is not valid UTF-8", format)
	}
	for i, r := range string(out) {
		if r == '\n' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == '\u202e' || r == '\u202d' || r == '\u2066' || r == '\u2067' || r == '\u2068' || r == '\u2069' || r == '\u2028' || r == '\u2029' {
			lo, hi := max(0, i-60), min(len(out), i+20)
			t.Fatalf("%s output holds the raw %U at byte %d: %q", format, r, i, out[lo:hi])
		}
	}
}

// FuzzRender builds a report from fuzzed recordings and options and renders
// it in every format this build has: no renderer panics or fails, JSON
// formats parse back, XML formats are well-formed, text without colour
// carries no control character but the newline, and the same report
// renders to the same bytes twice.
func FuzzRender(f *testing.F) {
	filepath.WalkDir(renderSeedRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.Size() > 64<<10 {
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil {
			f.Add(data, "run\x1b]0;x\a.jsonl", "cannot read \x1b[2J\r\u202e", uint8(0), uint8(0), uint8(0), false, uint8(0))
		}
		return nil
	})
	f.Add([]byte(`{"type":"agentfootprint.integrity.context_error","payload":{"kind":"dangling-reference","seam":"compose","message":"<b>&amp;</b> ]]> %0A ::error::","subjects":[{"kind":"tool","id":"a\"b"}]},"meta":{"runId":"r"}}`+"\n"),
		"a&b<c>.jsonl", "x]]>y", uint8(1), uint8(1), uint8(2), true, uint8(40))
	f.Fuzz(func(t *testing.T, data []byte, name, errText string, kind, limit, failOn uint8, allow bool, width uint8) {
		rep := Build(fuzzReportInputs(name, data, errText), fuzzOptions(kind, limit, failOn, allow))
		for _, format := range Formats() {
			r, err := RendererFor(format, TextOptions{Width: int(width)})
			if err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			var a, b bytes.Buffer
			if err := r.Render(&a, rep); err != nil {
				t.Fatalf("%s: render failed: %v", format, err)
			}
			checkRendered(t, format, a.Bytes())
			if err := r.Render(&b, rep); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatalf("%s: a second render differs (err %v)", format, err)
			}
		}
	})
}

// TestRenderHostileFixtures renders every damaged and hostile recording in
// every format, as FuzzRender checks, so the committed fixtures run on
// every test run and not only under -fuzz.
func TestRenderHostileFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(renderSeedRoot, "hostile", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no hostile fixtures (%v)", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			rep := Build(fuzzReportInputs(name, data, "unreadable \x1b]52;c;eA==\a"), testOptions(Options{}))
			for _, format := range Formats() {
				r, err := RendererFor(format, TextOptions{})
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				if err := r.Render(&out, rep); err != nil {
					t.Fatalf("%s: %v", format, err)
				}
				checkRendered(t, format, out.Bytes())
			}
		})
	}
}

// manyTinyRuns is an NDJSON stream of n runs, each a run_configured, one
// finding and a ledger, the shape of a CI job that records many short
// scenarios into one file.
func manyTinyRuns(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		id := fmt.Sprintf("run-%d", i)
		fmt.Fprintf(&b, `{"type":"agentfootprint.agent.run_configured","payload":{},"meta":{"runId":%q,"sessionId":"s-%d"}}`+"\n", id, i%100)
		fmt.Fprintf(&b, `{"type":"agentfootprint.integrity.context_error","payload":{"kind":"dangling-reference","seam":"compose","subjects":[{"kind":"tool","id":"t%d"}],"witnesses":[],"message":"m"},"meta":{"runId":%q}}`+"\n", i, id)
		fmt.Fprintf(&b, `{"type":"agentfootprint.integrity.disposition","payload":{"posture":"observe","workExisted":true,"rows":[{"check":"dangling-reference","seam":"compose","checked":1,"findings":1,"notApplicable":0,"unreachable":0,"synthetic":0}]},"meta":{"runId":%q}}`+"\n", id)
	}
	return b.Bytes()
}

func loadManyRuns(tb testing.TB, data []byte) []InputResult {
	tb.Helper()
	in := InputResult{Path: "many.jsonl"}
	st, err := recording.LoadReader("many.jsonl", bytes.NewReader(data), recording.Options{}, func(run *recording.Run) error {
		in.Runs = append(in.Runs, NewRunResult(run))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	in.Stats = st
	return []InputResult{in}
}

// TestTwentyThousandRuns builds and renders a report of 20,000 runs in
// every format; with -short it uses 2,000. Timing is measured by
// BenchmarkManyRuns.
func TestTwentyThousandRuns(t *testing.T) {
	n := 20_000
	if testing.Short() {
		n = 2_000
	}
	rep := Build(loadManyRuns(t, manyTinyRuns(n)), testOptions(Options{}))
	if len(rep.Runs) != n || rep.ExitCode() != ExitDefects {
		t.Fatalf("%d runs, exit %d", len(rep.Runs), rep.ExitCode())
	}
	for _, format := range Formats() {
		r, _ := RendererFor(format, TextOptions{})
		if err := r.Render(io.Discard, rep); err != nil {
			t.Errorf("%s: %v", format, err)
		}
	}
}

// BenchmarkManyRuns measures Build and each renderer at 5,000 and 20,000
// runs; a time per run that grows with the count means quadratic work.
func BenchmarkManyRuns(b *testing.B) {
	for _, n := range []int{5_000, 20_000} {
		inputs := loadManyRuns(b, manyTinyRuns(n))
		b.Run(fmt.Sprintf("build/%d", n), func(b *testing.B) {
			for b.Loop() {
				Build(inputs, testOptions(Options{}))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/run")
		})
		rep := Build(inputs, testOptions(Options{}))
		for _, format := range Formats() {
			r, _ := RendererFor(format, TextOptions{})
			b.Run(fmt.Sprintf("%s/%d", format, n), func(b *testing.B) {
				for b.Loop() {
					r.Render(io.Discard, rep)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/run")
			})
		}
	}
}
