package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

const (
	recordingsDir = "../testdata/recordings"
	formatsGolden = "../testdata/recordings/formats/golden"
	testToday     = "2026-11-30"
)

// testRules stand in for the registry in golden files, so that editing a
// check's documentation does not rewrite every SARIF golden.
var testRules = []Rule{
	{Kind: checks.KindInvariantViolation, Seam: checks.SeamWire, Title: "tools on the wire that the composed frame never carried",
		Doc: "Compares the composed tool names with the manifest the provider states.", ArmedBy: "always (unreachable without a manifest)", Ceiling: "Sees only what the manifest states."},
	{Kind: checks.KindInvariantViolation, Seam: checks.SeamCompose, Title: "a parked map's tools still served",
		Doc: "Flags a tool served while the map that owns it is parked.", ArmedBy: "maps declared", Ceiling: "Needs map ownership declared."},
	{Kind: checks.KindDanglingReference, Seam: checks.SeamCompose, Title: "a tool offered after its grounds left the window",
		Doc: "Flags an argumentsFrom tool offered after its grounding results were evicted.", ArmedBy: "an argumentsFrom tool", Ceiling: "Hash joins can be ambiguous."},
	{Kind: checks.KindUnsupportedArgument, Seam: checks.SeamChoice, Title: "an argument nothing in the frame served",
		Doc: "Flags a tool-call argument no tool result in the frame carried.", ArmedBy: "an argumentsFrom tool", Ceiling: "Sees only the rebuilt frame."},
	{Kind: checks.KindUnsupportedClaim, Seam: checks.SeamClaim, Title: "an answer field the settled facts contradict",
		Doc: "Compares claimed answer fields with the settled facts.", ArmedBy: "a claims contract", Ceiling: "Only declared claims.", AdvisoryWhen: "doubt only"},
}

func testRenderOptions() RenderOptions {
	return RenderOptions{ToolVersion: "0.0.0-test", Root: "/work/repo", Rules: testRules}
}

type formatCase struct {
	name   string
	inputs []string // relative to testdata/recordings
	opts   Options
	tweak  func(t *testing.T, in []InputResult)
}

func formatCases() []formatCase {
	return []formatCase{
		{name: "mixed", inputs: []string{"report/mixed.jsonl"}},
		{name: "full", inputs: []string{"report/full.jsonl"}},
		{name: "multi-input", inputs: []string{"report/full.jsonl", "report/missing.jsonl", "report/empty.jsonl", "report/partial-never-ran.jsonl", "report/evidence-missing.jsonl"}},
		{name: "replayed", inputs: []string{"report/mixed.jsonl"}, tweak: addReplay},
		{name: "fail-on-advisory", inputs: []string{"report/advisory.jsonl", "report/synthetic.jsonl"}, opts: Options{FailOn: FailOnAdvisory}},
		{name: "limit", inputs: []string{"report/mixed.jsonl"}, opts: Options{Limit: 1}},
		{name: "hostile", inputs: []string{"report/hostile.jsonl"}, tweak: func(t *testing.T, in []InputResult) {
			in[0].Stats.Path = "hostile\x1b]0;title\x07.jsonl"
			for i := range in[0].Runs {
				in[0].Runs[i].Input = in[0].Stats.Path
			}
		}},
		{name: "hostile-ci", inputs: []string{"formats/hostile-ci.jsonl"}, tweak: func(t *testing.T, in []InputResult) {
			in[0].Stats.Path = "odd,name:1 %.jsonl"
			for i := range in[0].Runs {
				in[0].Runs[i].Input = in[0].Stats.Path
			}
		}},
		{name: "damaged", inputs: []string{"report/full.jsonl", "report/interleaved.jsonl"}, tweak: addDamage},
		{name: "damaged-allowed", inputs: []string{"report/full.jsonl"}, opts: Options{AllowDamaged: true}, tweak: addDamage},
		{name: "baseline", inputs: []string{"report/mixed.jsonl", "formats/defect.jsonl"}, opts: Options{Baseline: testBaseline(), Today: testToday}},
		{name: "copies", inputs: []string{"copies/cut.jsonl", "copies/run.jsonl", "copies/run.json"}},
		{name: "copies-disagree", inputs: []string{"copies/greener.jsonl", "copies/run.jsonl"}},
		// Unreadable past a point: the run read before the error is judged,
		// and the input still fails as unreadable.
		{name: "partly-read", inputs: []string{"report/full.jsonl"}, tweak: func(t *testing.T, in []InputResult) {
			in[0].Err = errors.New("report/full.jsonl: line 99: the line is longer than 4 KiB (limit set by --max-line-bytes)")
		}},
		// A run stopped at a limit beside a judged run, and a run lost
		// whole beside judged runs.
		{name: "stopped-and-lost", inputs: []string{"report/full.jsonl", "report/mixed.jsonl"}, tweak: func(t *testing.T, in []InputResult) {
			in[0].Stats.StoppedRuns = []recording.StoppedRun{{RunID: "run-big", Line: 99,
				Message: `report/full.jsonl: line 99: run "run-big" has more than 100 events (limit set by --max-events-per-run)`}}
			in[1].Stats.Losses = append(in[1].Stats.Losses, recording.Loss{Kind: "malformed", RunID: "run-lost", Count: 1, Lines: []int64{99}})
			in[1].Stats.Malformed++
		}},
		// Inputs that had runs and have none judged: every run stopped at
		// a limit, every run lost whole. Neither holds no run (no-tail).
		{name: "none-judged", inputs: []string{"report/full.jsonl", "report/mixed.jsonl"}, tweak: func(t *testing.T, in []InputResult) {
			in[0].Stats.StoppedRuns = []recording.StoppedRun{{RunID: in[0].Runs[0].RunID, Line: 7,
				Message: `report/full.jsonl: line 7: run "run-1796025700000-1" has more than 6 events (limit set by --max-events-per-run)`}}
			in[0].Runs = nil
			in[1].Stats.Losses = append(in[1].Stats.Losses, recording.Loss{Kind: "malformed", RunID: in[1].Runs[0].RunID, Count: 1, Lines: []int64{3}})
			in[1].Stats.Malformed++
			in[1].Runs = nil
		}},
	}
}

// testBaseline accepts mixed.jsonl's wire defect and advisory, holds an
// expired entry for the dangling-reference defect both fixtures carry, and
// a stale entry.
func testBaseline() *Baseline {
	return &Baseline{Path: ".fpcheck-baseline.json", Entries: []BaselineEntry{
		{Identity: "invariant-violation @wire [tool ghost_tool]  ", Kind: "invariant-violation", Seam: "wire", Reason: "ghost tool | known `flake`", Expires: "2999-01-01"},
		{Identity: "unsupported-claim @claim [entity screen2] scope ", Kind: "unsupported-claim", Seam: "claim", Advisory: true},
		{Identity: "dangling-reference @compose [tool screen_fire + tool whats_here]  ", Kind: "dangling-reference", Seam: "compose", Reason: "until the window fix", Expires: "2026-01-01"},
		{Identity: "missing-column @write [tool gone]  ", Kind: "missing-column", Seam: "write", Reason: "fixed long ago"},
	}}
}

func readInputs(t *testing.T, inputs []string) []InputResult {
	t.Helper()
	var out []InputResult
	for _, name := range inputs {
		in := readTestInput(t, filepath.Join(recordingsDir, name), name)
		if errors.Is(in.Err, os.ErrNotExist) {
			in.Err = errors.New("open " + name + ": no such file or directory")
		}
		out = append(out, in)
	}
	return out
}

func buildFormatCase(t *testing.T, fc formatCase) *Report {
	t.Helper()
	in := readInputs(t, fc.inputs)
	if fc.tweak != nil {
		fc.tweak(t, in)
	}
	return Build(in, testOptions(fc.opts))
}

// renderAll renders a report in every CI format.
func renderAll(t *testing.T, r *Report) map[string][]byte {
	t.Helper()
	return renderFormats(t, r, []string{FormatSARIF, FormatJUnit, FormatMarkdown, FormatGitHub})
}

// renderFormats renders a report in each of formats, keyed by format.
func renderFormats(t *testing.T, r *Report, formats []string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, f := range formats {
		rd, err := NewRenderer(f, testRenderOptions())
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := rd.Render(&b, r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[f] = b.Bytes()
	}
	return out
}

var goldenExt = map[string]string{FormatSARIF: ".sarif.json", FormatJUnit: ".junit.xml", FormatMarkdown: ".md", FormatGitHub: ".github.txt"}

func TestFormatGoldens(t *testing.T) {
	for _, fc := range formatCases() {
		t.Run(fc.name, func(t *testing.T) {
			r := buildFormatCase(t, fc)
			for f, got := range renderAll(t, r) {
				if bytes.ContainsAny(got, "\x1b\x07\x08\r") {
					t.Errorf("%s output carries a control character", f)
				}
				compareGolden(t, filepath.Join(formatsGolden, fc.name+goldenExt[f]), got)
			}
			// The human text for the same case, so the goldens show the
			// counts the machine formats must agree with.
			var text bytes.Buffer
			if err := RenderText(&text, r, TextOptions{}); err != nil {
				t.Fatal(err)
			}
			compareGolden(t, filepath.Join(formatsGolden, fc.name+".txt"), text.Bytes())
			var js bytes.Buffer
			if err := RenderJSON(&js, r); err != nil {
				t.Fatal(err)
			}
			if !json.Valid(js.Bytes()) {
				t.Errorf("JSON output is not valid JSON")
			}
		})
	}
}

func TestFormatsDeterministic(t *testing.T) {
	for _, fc := range formatCases() {
		a := renderAll(t, buildFormatCase(t, fc))
		b := renderAll(t, buildFormatCase(t, fc))
		for f := range a {
			if !bytes.Equal(a[f], b[f]) {
				t.Errorf("%s/%s: two renders differ", fc.name, f)
			}
		}
	}
}

// sarifDoc is the part of SARIF 2.1.0 the tests check.
type sarifDoc struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name           string `json:"name"`
				InformationURI string `json:"informationUri"`
				Rules          []struct {
					ID                   string                 `json:"id"`
					ShortDescription     struct{ Text string }  `json:"shortDescription"`
					DefaultConfiguration struct{ Level string } `json:"defaultConfiguration"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Invocations []struct {
			ExecutionSuccessful *bool `json:"executionSuccessful"`
			ExitCode            int   `json:"exitCode"`
		} `json:"invocations"`
		Results []struct {
			RuleID              string                `json:"ruleId"`
			RuleIndex           *int                  `json:"ruleIndex"`
			Level               string                `json:"level"`
			Message             struct{ Text string } `json:"message"`
			PartialFingerprints map[string]string     `json:"partialFingerprints"`
			BaselineState       string                `json:"baselineState"`
			Suppressions        []json.RawMessage     `json:"suppressions"`
			Locations           []struct {
				PhysicalLocation struct {
					ArtifactLocation struct{ URI string }     `json:"artifactLocation"`
					Region           *struct{ StartLine int } `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			Properties map[string]any `json:"properties"`
		} `json:"results"`
	} `json:"runs"`
}

// checkSARIF validates the SARIF 2.1.0 structure fpcheck relies on and
// returns the parsed log.
func checkSARIF(t *testing.T, data []byte) sarifDoc {
	t.Helper()
	var doc sarifDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("SARIF does not parse: %v", err)
	}
	if doc.Version != "2.1.0" || !strings.Contains(doc.Schema, "sarif-2.1.0") {
		t.Errorf("version %q, $schema %q", doc.Version, doc.Schema)
	}
	if len(doc.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(doc.Runs))
	}
	run := doc.Runs[0]
	if run.Tool.Driver.Name != "fpcheck" || run.Tool.Driver.InformationURI == "" {
		t.Errorf("driver %+v", run.Tool.Driver)
	}
	if len(run.Invocations) != 1 || run.Invocations[0].ExecutionSuccessful == nil {
		t.Errorf("invocations %+v", run.Invocations)
	}
	ids := map[string]int{}
	for i, r := range run.Tool.Driver.Rules {
		if r.ID == "" || r.ShortDescription.Text == "" {
			t.Errorf("rule %d lacks id or shortDescription", i)
		}
		if _, dup := ids[r.ID]; dup {
			t.Errorf("rule %s declared twice", r.ID)
		}
		ids[r.ID] = i
		if !slices.Contains([]string{"error", "warning", "note", "none"}, r.DefaultConfiguration.Level) {
			t.Errorf("rule %s level %q", r.ID, r.DefaultConfiguration.Level)
		}
	}
	for i, res := range run.Results {
		if res.Message.Text == "" {
			t.Errorf("result %d has no message.text", i)
		}
		idx, ok := ids[res.RuleID]
		if !ok {
			t.Errorf("result %d ruleId %q is not among the rules", i, res.RuleID)
		}
		if res.RuleIndex == nil || *res.RuleIndex != idx {
			t.Errorf("result %d ruleIndex %v, want %d", i, res.RuleIndex, idx)
		}
		if !slices.Contains([]string{"error", "warning", "note", "none"}, res.Level) {
			t.Errorf("result %d level %q", i, res.Level)
		}
		if len(res.PartialFingerprints[FingerprintKey]) != 64 {
			t.Errorf("result %d partialFingerprints %v", i, res.PartialFingerprints)
		}
		for _, loc := range res.Locations {
			if loc.PhysicalLocation.ArtifactLocation.URI == "" {
				t.Errorf("result %d has a location with no uri", i)
			}
			if r := loc.PhysicalLocation.Region; r != nil && r.StartLine < 1 {
				t.Errorf("result %d startLine %d", i, r.StartLine)
			}
		}
	}
	return doc
}

func TestSARIFStructureAndCounts(t *testing.T) {
	for _, fc := range formatCases() {
		t.Run(fc.name, func(t *testing.T) {
			r := buildFormatCase(t, fc)
			doc := checkSARIF(t, renderAll(t, r)[FormatSARIF])
			run := doc.Runs[0]
			if run.Invocations[0].ExitCode != r.ExitCode() {
				t.Errorf("invocation exitCode %d, report %d", run.Invocations[0].ExitCode, r.ExitCode())
			}
			// Not every input read whole: the invocation did not succeed,
			// whatever it judged.
			whole := !slices.ContainsFunc(r.Inputs, func(in Input) bool { return in.Error != "" || len(in.StoppedRuns) > 0 })
			if ok := run.Invocations[0].ExecutionSuccessful; ok != nil && *ok != whole {
				t.Errorf("executionSuccessful %v; every input read whole: %v", *ok, whole)
			}
			// One result per listed real identity per run: without a limit
			// or kind filter, the report's own counts.
			want, errors, notes, suppressed := 0, 0, 0, 0
			for _, rr := range r.Runs {
				want += len(uniqueFindings(&rr))
				if r.Options.Limit == 0 && r.Options.Kind == "" && len(uniqueFindings(&rr)) != rr.Defects+rr.Advisories+rr.Baselined {
					t.Errorf("run %s lists %d identities, counts %d+%d+%d", rr.RunID, len(uniqueFindings(&rr)), rr.Defects, rr.Advisories, rr.Baselined)
				}
			}
			for _, res := range run.Results {
				switch res.Level {
				case "error":
					errors++
				case "note":
					notes++
				}
				if len(res.Suppressions) > 0 {
					suppressed++
				}
			}
			if len(run.Results) != want {
				t.Errorf("%d results, want %d", len(run.Results), want)
			}
			if r.Options.Limit == 0 {
				defects, advisories, baselined := 0, 0, 0
				for _, rr := range r.Runs {
					defects += rr.Defects
					advisories += rr.Advisories
					baselined += rr.Baselined
				}
				if errors+notes != defects+advisories+baselined || suppressed != baselined {
					t.Errorf("levels: %d error + %d note (%d suppressed); report: %d defects, %d advisories, %d baselined",
						errors, notes, suppressed, defects, advisories, baselined)
				}
			}
		})
	}
}

// TestSARIFFingerprintAcrossIterations: the same defect found at another
// iteration (another epoch, another line) keeps its fingerprint.
func TestSARIFFingerprintAcrossIterations(t *testing.T) {
	fps := func(name string) []string {
		r := Build(readInputs(t, []string{name}), testOptions(Options{}))
		doc := checkSARIF(t, renderAll(t, r)[FormatSARIF])
		var out []string
		for _, res := range doc.Runs[0].Results {
			out = append(out, res.PartialFingerprints[FingerprintKey])
		}
		return out
	}
	a, b := fps("formats/defect.jsonl"), fps("formats/defect-later.jsonl")
	if len(a) != 1 || !slices.Equal(a, b) {
		t.Errorf("fingerprints %v and %v, want one, equal", a, b)
	}
	it1, it5 := int64(1), int64(5)
	f := checks.Finding{Kind: "dangling-reference", Seam: "compose", Subjects: []checks.Subject{{Kind: "tool", ID: "b"}, {Kind: "tool", ID: "a"}}, Epoch: &it1, Iteration: &it1}
	g := f
	g.Epoch, g.Iteration, g.Subjects = &it5, &it5, []checks.Subject{{Kind: "tool", ID: "a"}, {Kind: "tool", ID: "b"}}
	if Fingerprint(f.Identity()) != Fingerprint(g.Identity()) {
		t.Errorf("fingerprint depends on epoch or subject order")
	}
}

func TestSARIFLocations(t *testing.T) {
	tests := []struct {
		path, root, uri, base string
		ok                    bool
	}{
		{"runs/a.jsonl", "/repo", "runs/a.jsonl", "%SRCROOT%", true},
		{"runs/a b#1.jsonl", "/repo", "runs/a%20b%231.jsonl", "%SRCROOT%", true},
		{"/repo/runs/a.jsonl", "/repo", "runs/a.jsonl", "%SRCROOT%", true},
		{"/elsewhere/a.jsonl", "/repo", "file:///elsewhere/a.jsonl", "", true},
		{"../up.jsonl", "/repo/sub", "file:///repo/up.jsonl", "", true},
		{"a:b.jsonl", "", "./a:b.jsonl", "%SRCROOT%", true},
		{"-", "/repo", "", "", false},
		{recording.StdinName, "/repo", "", "", false},
	}
	for _, tt := range tests {
		uri, base, ok := artifactURI(tt.path, tt.root)
		if uri != tt.uri || base != tt.base || ok != tt.ok {
			t.Errorf("artifactURI(%q, %q) = %q, %q, %v; want %q, %q, %v", tt.path, tt.root, uri, base, ok, tt.uri, tt.base, tt.ok)
		}
	}
}

// junitDoc is JUnit XML parsed back.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnitParsesBackWithReportCounts(t *testing.T) {
	for _, fc := range formatCases() {
		t.Run(fc.name, func(t *testing.T) {
			r := buildFormatCase(t, fc)
			var doc junitDoc
			if err := xml.Unmarshal(renderAll(t, r)[FormatJUnit], &doc); err != nil {
				t.Fatalf("JUnit does not parse: %v", err)
			}
			// A suite per run, and per input that holds none.
			wantSuites := 0
			for _, in := range r.Inputs {
				wantSuites += max(1, in.RunCount)
			}
			if len(doc.Suites) != wantSuites {
				t.Errorf("%d suites for %d runs and runless inputs", len(doc.Suites), wantSuites)
			}
			var tests, failures, errs, skipped, failedDefects int
			for _, s := range doc.Suites {
				var st, sf, se, ss int
				for _, c := range s.Cases {
					st++
					switch {
					case c.Failure != nil:
						sf++
						failedDefects += strings.Count(c.Failure.Text, "[identity: ")
					case c.Error != nil:
						se++
					case c.Skipped != nil:
						ss++
					}
				}
				if st != s.Tests || sf != s.Failures || se != s.Errors || ss != s.Skipped {
					t.Errorf("suite %s counts %d/%d/%d/%d, cases say %d/%d/%d/%d", s.Name, s.Tests, s.Failures, s.Errors, s.Skipped, st, sf, se, ss)
				}
				tests, failures, errs, skipped = tests+st, failures+sf, errs+se, skipped+ss
			}
			// junit-10.xsd has no skipped attribute on the root.
			if tests != doc.Tests || failures != doc.Failures || errs != doc.Errors || doc.Skipped != 0 {
				t.Errorf("root counts %d/%d/%d/%d, suites sum %d/%d/%d (and no skipped)", doc.Tests, doc.Failures, doc.Errors, doc.Skipped, tests, failures, errs)
			}
			_ = skipped
			// An error per input that lost something apart from its runs,
			// whatever runs were read beside it: a partly read input never
			// shows only passing tests.
			sum := r.Summarize()
			wantErrs := sum.StoppedRuns
			for _, in := range r.Inputs {
				if in.Error != "" {
					wantErrs++
				}
				if len(in.LostRuns) > 0 && r.Options.inputCode(&in) != ExitGreen {
					wantErrs++
				}
			}
			if errs != wantErrs {
				t.Errorf("%d errors, want %d (unreadable inputs, inputs with a run stopped or lost)", errs, wantErrs)
			}
			if sum.ExitCode == ExitUnreadable && errs == 0 {
				t.Errorf("exit %d, and no testcase errors", sum.ExitCode)
			}
			if sum.ExitCode != ExitGreen && failures+errs+skipped == 0 {
				t.Errorf("exit %d, and every testcase passes", sum.ExitCode)
			}
			if (failures > 0) != (sum.Defects > 0) {
				t.Errorf("%d failing cases, %d runs with defects", failures, sum.Defects)
			}
			// Every failing finding is listed once: defects, plus
			// advisories when the gate fails on them.
			want := 0
			for _, rr := range r.Runs {
				want += rr.Defects
				if r.Options.failOn() != FailOnDefect {
					want += rr.Advisories
				}
			}
			if failedDefects != want {
				t.Errorf("failures list %d findings, report counts %d", failedDefects, want)
			}
			// A suite per run carries the run id as a property, and a case
			// per check its live ledger registered, at least; the class
			// name never carries the run id, which is minted per run.
			var props struct {
				Suites []struct {
					Props []struct {
						Name  string `xml:"name,attr"`
						Value string `xml:"value,attr"`
					} `xml:"properties>property"`
					Cases []struct {
						Classname string `xml:"classname,attr"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal(renderAll(t, r)[FormatJUnit], &props); err != nil {
				t.Fatal(err)
			}
			for _, rr := range r.Runs {
				found := false
				for _, s := range props.Suites {
					// A copy's suite names the run it is a copy of and
					// holds no test: the run's own suite does.
					if slices.ContainsFunc(s.Props, func(p struct {
						Name  string `xml:"name,attr"`
						Value string `xml:"value,attr"`
					}) bool {
						return p.Name == "copyOf"
					}) {
						continue
					}
					for _, p := range s.Props {
						if p.Name == "runId" && p.Value == Sanitize(rr.RunID) {
							found = true
							if len(s.Cases) < len(rr.Recorded.Rows) {
								t.Errorf("run %s has %d cases, want at least %d", rr.RunID, len(s.Cases), len(rr.Recorded.Rows))
							}
							for _, c := range s.Cases {
								if strings.Contains(c.Classname, rr.RunID) {
									t.Errorf("classname %q carries the run id", c.Classname)
								}
							}
						}
					}
				}
				if !found {
					t.Errorf("no suite carries run %s as its runId property", rr.RunID)
				}
			}
		})
	}
}

func TestMarkdownEscapesHostileStrings(t *testing.T) {
	r := buildFormatCase(t, formatCases()[7]) // hostile-ci
	md := string(renderAll(t, r)[FormatMarkdown])
	for _, bad := range []string{"<script>", "`flake`", "[link](", "@someone", "$x$", "\r"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown carries %q unescaped", bad)
		}
	}
	// Every table row has as many cell borders as its header.
	unescapedPipes := regexp.MustCompile(`(^|[^\\])\|`)
	var header int
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			header = 0
			continue
		}
		n := len(unescapedPipes.FindAllString(line, -1))
		if header == 0 {
			header = n
		} else if n != header {
			t.Errorf("table row has %d borders, header %d: %s", n, header, line)
		}
	}
	if !strings.Contains(md, `pipe \| tick`) || !strings.Contains(md, "&lt;script&gt;") {
		t.Errorf("escaped message not found in:\n%s", md)
	}
	for _, in := range []string{"a|b", "x`y", "<b>", "line\nbreak", "@here", "\x1b[31m", "see https://evil.example/x", "www.evil.example", "WWW.EVIL.EXAMPLE", "ftp://x"} {
		out := MarkdownEscape(in)
		if strings.ContainsAny(out, "\n\x1b<>") || strings.Contains(out, "@h") || strings.Contains(out, "://") || strings.Contains(strings.ToLower(out), "www.") {
			t.Errorf("MarkdownEscape(%q) = %q", in, out)
		}
	}
}

func TestGitHubCommandsEscapeHostileStrings(t *testing.T) {
	r := buildFormatCase(t, formatCases()[7]) // hostile-ci
	gh := string(renderAll(t, r)[FormatGitHub])
	lines := strings.Split(strings.TrimSuffix(gh, "\n"), "\n")
	cmd := regexp.MustCompile(`^::(error|warning|notice)( [a-z]+=[^,:]*(,[a-z]+=[^,:]*)*)?::`)
	for _, l := range lines[:len(lines)-1] {
		if !cmd.MatchString(l) {
			t.Errorf("not a well-formed workflow command: %q", l)
		}
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "fpcheck: exit ") {
		t.Errorf("last line %q", last)
	}
	if strings.Contains(gh, "\n::error file=x::injected") {
		t.Errorf("a recorded string started its own workflow command")
	}
	if !strings.Contains(gh, "file=odd%2Cname%3A1 %25.jsonl") {
		t.Errorf("file property not escaped:\n%s", gh)
	}
	for in, want := range map[string]string{"a%b\r\nc": "a%25b%0D%0Ac", "x:y,z": "x:y,z"} {
		if got := GitHubData(in); got != want {
			t.Errorf("GitHubData(%q) = %q, want %q", in, got, want)
		}
	}
	if got := GitHubProperty("a:b,c%\n"); got != "a%3Ab%2Cc%25%0A" {
		t.Errorf("GitHubProperty = %q", got)
	}
}

// TestFormatsCarrySameCounts: the closing lines of text, markdown and the
// GitHub commands state the same exit code.
func TestFormatsCarrySameCounts(t *testing.T) {
	for _, fc := range formatCases() {
		r := buildFormatCase(t, fc)
		out := renderAll(t, r)
		code := r.ExitCode()
		var text bytes.Buffer
		_ = RenderText(&text, r, TextOptions{})
		for name, s := range map[string]string{
			"text":     text.String(),
			"markdown": string(out[FormatMarkdown]),
			"github":   string(out[FormatGitHub]),
		} {
			if !regexp.MustCompile(`(?i)exit ` + string(rune('0'+code)) + `\b`).MatchString(s) {
				t.Errorf("%s/%s does not state exit %d", fc.name, name, code)
			}
		}
	}
}

// TestReplayedSARIFProperties: a replayed run's results name their source.
func TestReplayedSARIFProperties(t *testing.T) {
	r := buildFormatCase(t, formatCases()[3])
	doc := checkSARIF(t, renderAll(t, r)[FormatSARIF])
	sources := map[string]bool{}
	for _, res := range doc.Runs[0].Results {
		sources[res.Properties["source"].(string)] = true
	}
	for _, s := range []string{replay.SourceBoth, replay.SourceRecorded, replay.SourceReplayed} {
		if !sources[s] {
			t.Errorf("no result with source %s (have %v)", s, sources)
		}
	}
}

// TestShortPlacesDamageAsGitHubDoes: a run unmeasured for damaged evidence
// is placed, in --format short, at the first line lost, as its GitHub
// annotation and its SARIF result are.
func TestShortPlacesDamageAsGitHubDoes(t *testing.T) {
	r := buildFormatCase(t, formatCases()[findFormatCase(t, "damaged")])
	out := renderFormats(t, r, []string{FormatShort, FormatGitHub})
	short := regexp.MustCompile(`(?m)^(\S+):(\d+): unmeasured@run: run (\S+): evidence damaged`).FindAllStringSubmatch(string(out[FormatShort]), -1)
	gh := regexp.MustCompile(`(?m)^::error file=([^,]+),line=(\d+),title=fpcheck%3A evidence damaged::Run (\S+) is unmeasured`).FindAllStringSubmatch(string(out[FormatGitHub]), -1)
	if len(short) == 0 || len(short) != len(gh) {
		t.Fatalf("%d damaged runs in short, %d in github:\n%s\n%s", len(short), len(gh), out[FormatShort], out[FormatGitHub])
	}
	for i := range short {
		if short[i][1] != gh[i][1] || short[i][2] != gh[i][2] || short[i][3] != gh[i][3] {
			t.Errorf("short places run %s at %s:%s, github at %s:%s", short[i][3], short[i][1], short[i][2], gh[i][1], gh[i][2])
		}
	}
}

func findFormatCase(t *testing.T, name string) int {
	t.Helper()
	for i, c := range formatCases() {
		if c.name == name {
			return i
		}
	}
	t.Fatalf("no format case %q", name)
	return 0
}

// TestNoRunJudgedIsNotNoTail: an input whose runs were all stopped at a
// limit or lost whole had runs; no format calls it an input holding no run
// (no-tail), and each says what became of its runs.
func TestNoRunJudgedIsNotNoTail(t *testing.T) {
	r := buildFormatCase(t, formatCases()[findFormatCase(t, "none-judged")])
	if got := r.ExitCode(); got != ExitUnreadable {
		t.Errorf("ExitCode() = %d, want %d", got, ExitUnreadable)
	}
	for _, in := range r.Inputs {
		if in.Coverage != "" {
			t.Errorf("%s: coverage %q, want none", in.Path, in.Coverage)
		}
	}
	out := renderFormats(t, r, []string{FormatText, FormatJSON, FormatSARIF, FormatJUnit, FormatMarkdown, FormatGitHub, FormatShort})
	for f, b := range out {
		s := string(b)
		for _, bad := range []string{"no-tail", "no run)", "with no run", "holds no run", `"emptyInputs": 1`} {
			if strings.Contains(s, bad) {
				t.Errorf("%s says %q of inputs whose runs were stopped or lost:\n%s", f, bad, s)
			}
		}
		if f == FormatJSON {
			continue
		}
		for _, want := range []string{"run-1796025700000-1", "stopped at a limit"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s does not say %q:\n%s", f, want, s)
			}
		}
	}
	if s := string(out[FormatText]); !strings.Contains(s, "No run of this input is judged: 1 run was stopped at a limit.") ||
		!strings.Contains(s, "No run of this input is judged: 1 run was lost whole.") {
		t.Errorf("text does not say why no run is judged:\n%s", s)
	}
}

// TestShortStatesInputProblems: every problem of an input itself that
// sets the exit code (a read error, a run stopped at a limit, runs lost
// whole, no run at all) is a line of --format short at its place, in the
// words the other formats use, matching ShortLine.
func TestShortStatesInputProblems(t *testing.T) {
	tests := []struct {
		fcase string
		want  []string // PATH:LINE: kind@seam: message prefix
	}{
		{"partly-read", []string{"report/full.jsonl:1: unreadable@input: Unreadable past a point: report/full.jsonl: line 99: the line is longer than 4 KiB (limit set by --max-line-bytes). The 1 run read before it is judged"}},
		{"multi-input", []string{"report/missing.jsonl:1: unreadable@input: Unreadable: open report/missing.jsonl", "report/empty.jsonl:1: unmeasured@input: No run in this input: no event tail to judge (no-tail)."}},
		{"stopped-and-lost", []string{`report/full.jsonl:99: stopped@run: Run stopped at a limit: report/full.jsonl: line 99: run "run-big" has more than 100 events (limit set by --max-events-per-run).`,
			"report/mixed.jsonl:99: lost@input: Evidence damaged: 1 line that did not decode names a run of which no event was read: run-lost (line 99)."}},
		{"none-judged", []string{`report/full.jsonl:7: stopped@run: Run stopped at a limit: report/full.jsonl: line 7: run "run-1796025700000-1" has more than 6 events (limit set by --max-events-per-run).`}},
	}
	matcher := regexp.MustCompile(ShortLine)
	for _, tt := range tests {
		t.Run(tt.fcase, func(t *testing.T) {
			out := string(renderFormats(t, buildFormatCase(t, formatCases()[findFormatCase(t, tt.fcase)]), []string{FormatShort})[FormatShort])
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if !strings.HasPrefix(lines[len(lines)-1], "RESULT exit 2") && !strings.HasPrefix(lines[len(lines)-1], "RESULT exit 3") {
				t.Errorf("last line %q", lines[len(lines)-1])
			}
			for _, want := range tt.want {
				i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, want) })
				if i < 0 {
					t.Errorf("no line starting %q:\n%s", want, out)
					continue
				}
				if !matcher.MatchString(lines[i]) {
					t.Errorf("%q does not match ShortLine", lines[i])
				}
			}
		})
	}
}
