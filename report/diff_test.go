package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/recording"
	"github.com/google/go-cmp/cmp"
)

type diffCase struct {
	name       string
	base, head []string
	// baseRoot and headRoot make it a directory diff.
	baseRoot, headRoot string
	opts               Options
	diff               DiffOptions
	exit               int
	golden             bool
	// want are strings the text rendering must carry; short the lines
	// --format short must carry.
	want, short []string
	// totals checked when set.
	totals *DiffTotals
	// tweak, when set, edits the inputs read before the reports are built.
	tweak func(base, head []InputResult)
}

// reRecorded stands for a multi-run recording made again: every head run
// id is new, every run's first turn has its own prompt, and the head's last
// run was recorded with another prompt than the base's.
func reRecorded(base, head []InputResult) {
	for _, side := range [][]InputResult{base, head} {
		for i := range side {
			for j := range side[i].Runs {
				side[i].Runs[j].PromptKey = fmt.Sprintf("sha256:turn-%d", j)
			}
		}
	}
	for i := range head {
		runs := head[i].Runs
		for j := range runs {
			runs[j].RunID = "re-" + runs[j].RunID
		}
		runs[len(runs)-1].PromptKey = "sha256:changed"
	}
}

func diffCases() []diffCase {
	return []diffCase{
		{name: "self", base: []string{"report/mixed.jsonl"}, head: []string{"report/mixed.jsonl"}, exit: ExitGreen, golden: true,
			want:   []string{"matched by run id", "PERSISTING defect dangling-reference @compose"},
			totals: &DiffTotals{PersistingDefects: 3, PersistingAdvisories: 1, BaseRuns: 1, HeadRuns: 1, Matched: 1}},
		{name: "clean-defect", base: []string{"formats/clean.jsonl"}, head: []string{"formats/defect.jsonl"}, exit: ExitDefects, golden: true,
			want:   []string{"NEW defect dangling-reference @compose · iteration 2 · line 6 · FAILS"},
			totals: &DiffTotals{NewDefects: 1, Failing: 1, BaseRuns: 1, HeadRuns: 1, Matched: 1}},
		{name: "defect-clean", base: []string{"formats/defect.jsonl"}, head: []string{"formats/clean.jsonl"}, exit: ExitGreen,
			want:   []string{"RESOLVED defect dangling-reference @compose"},
			totals: &DiffTotals{ResolvedDefects: 1, BaseRuns: 1, HeadRuns: 1, Matched: 1}},
		{name: "other-iteration-persists", base: []string{"formats/defect.jsonl"}, head: []string{"formats/defect-later.jsonl"}, exit: ExitGreen,
			want:   []string{"PERSISTING defect dangling-reference @compose · iteration 5"},
			totals: &DiffTotals{PersistingDefects: 1, BaseRuns: 1, HeadRuns: 1, Matched: 1}},
		{name: "stopped-checking", base: []string{"formats/clean.jsonl"}, head: []string{"formats/stopped.jsonl"}, exit: ExitDefects, golden: true,
			want:   []string{"REGRESSION — dangling-reference @compose (recorded) stopped checking: checked 6 in the base, 0 in the head", "Coverage (recorded) got worse: full in the base, partial in the head."},
			totals: &DiffTotals{Regressions: 2, BaseRuns: 1, HeadRuns: 1, Matched: 1}},
		{name: "coverage-lost", base: []string{"report/full.jsonl"}, head: []string{"report/no-integrity-events.jsonl"}, exit: ExitDefects,
			want: []string{"Coverage (recorded) got worse: full in the base, no-integrity-events in the head.", "its ledger row vanished", "HEAD UNMEASURED"}},
		{name: "head-unmeasured", base: []string{"report/nothing-checked.jsonl"}, head: []string{"report/nothing-checked.jsonl"}, exit: ExitUnmeasured,
			want: []string{"HEAD UNMEASURED — no check checked anything"}},
		{name: "head-unmeasured-allowed", base: []string{"report/nothing-checked.jsonl"}, head: []string{"report/nothing-checked.jsonl"}, exit: ExitGreen,
			diff: DiffOptions{AllowUnmeasured: true}},
		{name: "unreadable", base: []string{"report/full.jsonl"}, head: []string{"report/missing.jsonl"}, exit: ExitUnreadable,
			want:  []string{"head unreadable"},
			short: []string{"report/missing.jsonl:1: unreadable@input: Unreadable: open report/missing.jsonl: no such file or directory. Nothing from it is compared."}},
		{name: "head-no-run", base: []string{"report/full.jsonl"}, head: []string{"report/empty.jsonl"}, exit: ExitDefects,
			want:  []string{"The head holds no run (no-tail)"},
			short: []string{"report/empty.jsonl:1: unmeasured@input: The head holds no run (no-tail): nothing in it is measured."}},
		// A run of the head stopped at a limit beside a run that compares
		// clean: not compared, so never a green diff.
		{name: "head-run-stopped", base: []string{"formats/clean.jsonl"}, head: []string{"formats/clean.jsonl"}, exit: ExitUnreadable,
			tweak: func(_, head []InputResult) {
				head[0].Stats.StoppedRuns = []recording.StoppedRun{{RunID: "run-big", Line: 9, Message: `formats/clean.jsonl: line 9: run "run-big" has more than 8 events (limit set by --max-events-per-run)`}}
			},
			want:  []string{`⚠ head: Run stopped at a limit: formats/clean.jsonl: line 9: run "run-big" has more than 8 events (limit set by --max-events-per-run). The run is not compared.`, "RESULT exit 2 (run stopped at a limit)"},
			short: []string{`formats/clean.jsonl:9: stopped@run: head: Run stopped at a limit: formats/clean.jsonl: line 9: run "run-big" has more than 8 events (limit set by --max-events-per-run). The run is not compared.`}},
		// The head lost a run whole beside a run that compares clean: the
		// head is damaged, as analyze says, never a green diff.
		{name: "head-run-lost", base: []string{"formats/clean.jsonl"}, head: []string{"formats/clean.jsonl"}, exit: ExitUnmeasured,
			tweak: func(_, head []InputResult) {
				head[0].Stats.Losses = append(head[0].Stats.Losses, recording.Loss{Kind: "malformed", RunID: "run-lost", Count: 1, Lines: []int64{9}})
				head[0].Stats.Malformed++
			},
			want:  []string{"⚠ head: Evidence damaged: 1 line that did not decode names a run of which no event was read: run-lost (line 9).", "RESULT exit 3 (head unmeasured)"},
			short: []string{"formats/clean.jsonl:9: lost@input: head: Evidence damaged: 1 line that did not decode names a run of which no event was read: run-lost (line 9). A run lost whole cannot be judged; the input counts as unmeasured."}},
		{name: "new-advisory", base: []string{"formats/clean.jsonl"}, head: []string{"formats/advisory.jsonl"}, exit: ExitGreen,
			want: []string{"NEW advisory"}},
		{name: "new-advisory-fails", base: []string{"formats/clean.jsonl"}, head: []string{"formats/advisory.jsonl"}, exit: ExitDefects,
			diff: DiffOptions{FailOn: FailOnAdvisory}, want: []string{"NEW advisory", "FAILS"}},
		{name: "advisory-became-defect", base: []string{"formats/advisory.jsonl"}, head: []string{"formats/advisory.jsonl"}, exit: ExitDefects,
			tweak:  func(_, head []InputResult) { setAdvisory(head, false) },
			want:   []string{"NEW defect unsupported-claim @claim", "RESOLVED advisory unsupported-claim @claim"},
			totals: &DiffTotals{NewDefects: 1, ResolvedAdvisories: 1, Failing: 1, BaseRuns: 1, HeadRuns: 1, Matched: 1}},
		{name: "defect-became-advisory", base: []string{"formats/advisory.jsonl"}, head: []string{"formats/advisory.jsonl"}, exit: ExitGreen,
			tweak:  func(base, _ []InputResult) { setAdvisory(base, false) },
			want:   []string{"RESOLVED defect unsupported-claim @claim", "NEW advisory unsupported-claim @claim"},
			totals: &DiffTotals{ResolvedDefects: 1, NewAdvisories: 1, BaseRuns: 1, HeadRuns: 1, Matched: 1}},
		{name: "advisory-baseline-does-not-accept-defect", base: []string{"formats/clean.jsonl"}, head: []string{"formats/advisory.jsonl"}, exit: ExitDefects,
			tweak: func(_, head []InputResult) { setAdvisory(head, false) },
			opts:  Options{Baseline: &Baseline{Path: "b.json", Entries: []BaselineEntry{{Identity: "unsupported-claim @claim [entity screen2] scope ", Advisory: true}}}, Today: testToday},
			want:  []string{"NEW defect unsupported-claim @claim", "FAILS"}},
		{name: "replay-vanished", base: []string{"formats/defect.jsonl"}, head: []string{"formats/defect.jsonl"}, exit: ExitDefects,
			tweak: func(base, _ []InputResult) { replayedAsRecorded(base) },
			want:  []string{"Coverage (replayed) got worse: full in the base, no replay at all in the head"}},
		{name: "baseline-accepts-new", base: []string{"formats/clean.jsonl"}, head: []string{"formats/defect.jsonl"}, exit: ExitGreen,
			opts:   Options{Baseline: &Baseline{Path: "b.json", Entries: []BaselineEntry{{Identity: "dangling-reference @compose [tool screen_fire + tool whats_here]  ", Reason: "known"}}}, Today: testToday},
			want:   []string{"NEW defect dangling-reference @compose · iteration 2 · line 6 · BASELINED (accepted: known; does not fail)"},
			totals: &DiffTotals{NewDefects: 1, Baselined: 1, BaseRuns: 1, HeadRuns: 1, Matched: 1}},
		{name: "baseline-expired-persisting", base: []string{"formats/defect.jsonl"}, head: []string{"formats/defect-later.jsonl"}, exit: ExitDefects,
			opts: Options{Baseline: &Baseline{Path: "b.json", Entries: []BaselineEntry{{Identity: "dangling-reference @compose [tool screen_fire + tool whats_here]  ", Expires: "2020-02-02"}}}, Today: testToday},
			want: []string{"PERSISTING defect dangling-reference @compose · iteration 5 · line 7 · ⚠ BASELINE EXPIRED on 2020-02-02 (fails again) · FAILS"}},
		{name: "re-recorded", base: []string{"report/sessions.jsonl"}, head: []string{"report/sessions.jsonl"}, exit: ExitUnmeasured, golden: true,
			tweak:  reRecorded,
			want:   []string{"(matched by prompt)", "(not compared: base only)", "(not compared: head only)", "⚠ NOT COMPARED — Base run", "RESULT exit 3 (runs not compared)"},
			totals: &DiffTotals{PersistingDefects: 2, BaseRuns: 4, HeadRuns: 4, Matched: 3, Unmatched: 2}},
		{name: "re-recorded-allowed", base: []string{"report/sessions.jsonl"}, head: []string{"report/sessions.jsonl"}, exit: ExitGreen,
			tweak: reRecorded, diff: DiffOptions{AllowUnmeasured: true}},
		{name: "directories", baseRoot: "report", headRoot: "formats",
			base: []string{"report/clean.jsonl", "report/mixed.jsonl"}, head: []string{"formats/clean.jsonl", "formats/defect.jsonl"},
			exit: ExitDefects, golden: true,
			want: []string{"INPUT mixed.jsonl (base only", "INPUT defect.jsonl (head only", "REGRESSION — The head has no recording named mixed.jsonl", "NEW defect dangling-reference"}},
	}
}

// setAdvisory files every recorded finding of the inputs as an advisory
// (true) or as a defect (false): the same identity in the other class.
func setAdvisory(inputs []InputResult, advisory bool) {
	for i := range inputs {
		for j := range inputs[i].Runs {
			fs := inputs[i].Runs[j].Recorded.Findings
			for k := range fs {
				fs[k].Advisory = advisory
			}
		}
	}
}

func buildDiff(t *testing.T, dc diffCase) *Diff {
	t.Helper()
	// "report/clean.jsonl" does not exist under report/: stand in with
	// formats/clean.jsonl so the directory case has a matched pair.
	base := readInputs(t, remap(dc.base))
	head := readInputs(t, remap(dc.head))
	for i := range base {
		setDisplay(&base[i], dc.base[i])
	}
	for i := range head {
		setDisplay(&head[i], dc.head[i])
	}
	if dc.tweak != nil {
		dc.tweak(base, head)
	}
	b := Build(base, testOptions(dc.opts))
	h := Build(head, testOptions(dc.opts))
	d := NewDiff(b, h, PairInputs(dc.baseRoot, dc.base, dc.headRoot, dc.head), dc.diff)
	d.BaseName, d.HeadName = strings.Join(dc.base, " "), strings.Join(dc.head, " ")
	if dc.baseRoot != "" {
		d.BaseName, d.HeadName = dc.baseRoot, dc.headRoot
	}
	return d
}

func remap(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		if n == "report/clean.jsonl" {
			n = "formats/clean.jsonl"
		}
		out[i] = n
	}
	return out
}

func setDisplay(in *InputResult, name string) {
	if in.Stats != nil {
		in.Stats.Path = name
	}
	in.Path = name
	for i := range in.Runs {
		in.Runs[i].Input = name
	}
}

func renderDiffAll(t *testing.T, d *Diff) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, f := range DiffFormats() {
		rd, err := NewDiffRenderer(f, testRenderOptions())
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := rd.RenderDiff(&b, d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[f] = b.Bytes()
	}
	return out
}

var diffExt = map[string]string{FormatText: ".txt", FormatJSON: ".json", FormatJSONL: ".jsonl", FormatSARIF: ".sarif.json", FormatJUnit: ".junit.xml", FormatMarkdown: ".md", FormatGitHub: ".github.txt"}

func TestDiff(t *testing.T) {
	for _, dc := range diffCases() {
		t.Run(dc.name, func(t *testing.T) {
			d := buildDiff(t, dc)
			if got := d.ExitCode(); got != dc.exit {
				t.Errorf("ExitCode() = %d, want %d", got, dc.exit)
			}
			out := renderDiffAll(t, d)
			text := string(out[FormatText])
			for _, w := range dc.want {
				if !strings.Contains(text, w) {
					t.Errorf("text lacks %q:\n%s", w, text)
				}
			}
			short := strings.Split(string(out[FormatShort]), "\n")
			for _, w := range dc.short {
				if !slices.Contains(short, w) {
					t.Errorf("short lacks %q:\n%s", w, out[FormatShort])
				}
			}
			if dc.totals != nil {
				got := d.Totals
				got.HeadUnmeasured, got.Unreadable = 0, 0
				if diff := cmp.Diff(*dc.totals, got); diff != "" {
					t.Errorf("totals (-want +got):\n%s", diff)
				}
			}
			// Every format states the same exit code.
			var js struct {
				ExitCode      int    `json:"exitCode"`
				SchemaVersion int    `json:"schemaVersion"`
				Report        string `json:"report"`
			}
			if err := json.Unmarshal(out[FormatJSON], &js); err != nil || js.ExitCode != dc.exit || js.SchemaVersion != DiffSchemaVersion || js.Report != "diff" {
				t.Errorf("JSON exitCode %d schema %d report %q (%v)", js.ExitCode, js.SchemaVersion, js.Report, err)
			}
			sarif := checkSARIF(t, out[FormatSARIF])
			if c := sarif.Runs[0].Invocations[0].ExitCode; c != dc.exit {
				t.Errorf("SARIF exitCode %d", c)
			}
			var ju junitDoc
			if err := xml.Unmarshal(out[FormatJUnit], &ju); err != nil {
				t.Fatalf("JUnit: %v", err)
			}
			if (ju.Failures > 0) != (dc.exit == ExitDefects) && dc.exit != ExitUnreadable {
				t.Errorf("JUnit failures %d with exit %d", ju.Failures, dc.exit)
			}
			for _, f := range []string{FormatText, FormatMarkdown, FormatGitHub} {
				if !strings.Contains(strings.ToLower(string(out[f])), "exit "+string(rune('0'+dc.exit))) {
					t.Errorf("%s does not state exit %d", f, dc.exit)
				}
				if bytes.ContainsAny(out[f], "\x1b\r") {
					t.Errorf("%s carries control characters", f)
				}
			}
			if dc.golden {
				for f, got := range out {
					compareGolden(t, filepath.Join(formatsGolden, "diff-"+dc.name+diffExt[f]), got)
				}
			}
		})
	}
}

// TestDiffSARIFBaselineState: new findings are "new", persisting ones
// "unchanged", resolved ones "absent", with the same fingerprints on both
// sides of a persisting defect.
func TestDiffSARIFBaselineState(t *testing.T) {
	states := func(base, head string) map[string]string {
		d := buildDiff(t, diffCase{base: []string{base}, head: []string{head}})
		doc := checkSARIF(t, renderDiffAll(t, d)[FormatSARIF])
		out := map[string]string{}
		for _, r := range doc.Runs[0].Results {
			out[r.PartialFingerprints[FingerprintKey]] = r.BaselineState
		}
		return out
	}
	fp := Fingerprint("dangling-reference @compose [tool screen_fire + tool whats_here]  ")
	for _, tt := range []struct{ base, head, want string }{
		{"formats/clean.jsonl", "formats/defect.jsonl", "new"},
		{"formats/defect.jsonl", "formats/defect-later.jsonl", "unchanged"},
		{"formats/defect.jsonl", "formats/clean.jsonl", "absent"},
	} {
		if got := states(tt.base, tt.head)[fp]; got != tt.want {
			t.Errorf("%s → %s: baselineState %q, want %q", tt.base, tt.head, got, tt.want)
		}
	}
}

func TestPairInputs(t *testing.T) {
	tests := []struct {
		name               string
		baseRoot, headRoot string
		base, head         []string
		want               []InputPair
	}{
		{name: "two files", base: []string{"a/x.jsonl"}, head: []string{"b/y.jsonl"}, want: []InputPair{{Base: 0, Head: 0}}},
		{name: "directories", baseRoot: "base", headRoot: "./head/",
			base: []string{"base/a.jsonl", "base/sub/b.jsonl", "base/c.jsonl"}, head: []string{"head/c.jsonl", "head/sub/b.jsonl", "head/d.jsonl"},
			want: []InputPair{{Name: "a.jsonl", Base: 0, Head: -1}, {Name: "sub/b.jsonl", Base: 1, Head: 1}, {Name: "c.jsonl", Base: 2, Head: 0}, {Name: "d.jsonl", Base: -1, Head: 2}}},
		{name: "same name in other directories", baseRoot: "runs/v1", headRoot: "runs/v2",
			base: []string{"runs/v1/s.jsonl"}, head: []string{"runs/v2/s.jsonl"},
			want: []InputPair{{Name: "s.jsonl", Base: 0, Head: 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PairInputs(tt.baseRoot, tt.base, tt.headRoot, tt.head)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestMatchRuns: runs pair by run id, then by the prompt of their first
// turn, then, when each side holds one run, by scenario; never by
// position, so leftovers are one-sided.
func TestMatchRuns(t *testing.T) {
	// "id/prompt"; a prompt "" is no key.
	runs := func(specs ...string) []*Run {
		var out []*Run
		for _, sp := range specs {
			id, prompt, _ := strings.Cut(sp, "/")
			out = append(out, &Run{RunID: id, PromptKey: prompt})
		}
		return out
	}
	// "id@session/prompt".
	sessions := func(specs ...string) []*Run {
		var out []*Run
		for _, sp := range specs {
			idSession, prompt, _ := strings.Cut(sp, "/")
			id, session, _ := strings.Cut(idSession, "@")
			out = append(out, &Run{RunID: id, SessionID: session, PromptKey: prompt})
		}
		return out
	}
	tests := []struct {
		name       string
		base, head []*Run
		want       []string
	}{
		{"by run id, leftovers one-sided", runs("a", "b", "c"), runs("x", "b", "y", "z"),
			[]string{"a:-:base only", "b:b:run id", "c:-:base only", "-:x:head only", "-:y:head only", "-:z:head only"}},
		{"one run each is the scenario's", runs("a/p"), runs("x/q"), []string{"a:x:scenario"}},
		{"one run left of several is not paired by elimination", runs("a", "b"), runs("b", "x"),
			[]string{"a:-:base only", "b:b:run id", "-:x:head only"}},
		{"re-recorded: by prompt, whatever the order", runs("a/p1", "b/p2", "c/p3"), runs("z/p3", "x/p1", "y/p2"),
			[]string{"a:x:prompt", "b:y:prompt", "c:z:prompt"}},
		{"a repeated prompt pairs in recording order", runs("a/p", "b/p", "c/q"), runs("x/p", "y/q", "z/p"),
			[]string{"a:x:prompt, in recording order", "b:z:prompt, in recording order", "c:y:prompt"}},
		{"a prompt repeated more often on one side leaves the extra", runs("a/p", "b/p"), runs("x/p"),
			[]string{"a:x:prompt, in recording order", "b:-:base only"}},
		{"a shared follow-up pairs within its conversation", sessions("a@A/g", "b@B/c", "c@B/f", "d@A/f"), sessions("w@W/g", "x@X/c", "y@W/f", "z@X/f"),
			[]string{"a:w:prompt", "b:x:prompt", "c:z:prompt", "d:y:prompt"}},
		{"after a turn with no prompt, a follow-up is no key", sessions("a@A/", "b@A/f"), sessions("x@X/", "y@X/f"),
			[]string{"a:-:base only", "b:-:base only", "-:x:head only", "-:y:head only"}},
		{"run id first, then prompt", runs("a/p1", "b/p2"), runs("c/p1", "a/p2"),
			[]string{"a:a:run id", "b:-:base only", "-:c:head only"}},
		{"no prompt is no key", runs("a", "b"), runs("x", "y"),
			[]string{"a:-:base only", "b:-:base only", "-:x:head only", "-:y:head only"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var desc []string
			for _, m := range matchRuns(tt.base, tt.head) {
				name := func(r *Run) string {
					if r == nil {
						return "-"
					}
					return r.RunID
				}
				desc = append(desc, name(m.base)+":"+name(m.head)+":"+m.how)
			}
			if diff := cmp.Diff(tt.want, desc); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateDiffOptions(t *testing.T) {
	if ValidateDiffOptions(DiffOptions{FailOn: FailOnDrift}) == nil {
		t.Errorf("drift accepted for diff")
	}
	if ValidateDiffOptions(DiffOptions{FailOn: FailOnAdvisory}) != nil {
		t.Errorf("advisory refused")
	}
}
