package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// renderEvery renders r in every format this build has.
func renderEvery(t *testing.T, r *Report) map[string]string {
	t.Helper()
	out := map[string]string{}
	for f, b := range renderFormats(t, r, Formats()) {
		out[f] = string(b)
	}
	return out
}

// rebuild reads r back from its JSON rendering and judges it again with
// opts, as merge and diff do.
func rebuild(t *testing.T, r *Report, opts Options) *Report {
	t.Helper()
	var js bytes.Buffer
	if err := RenderJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if !IsSaved(js.Bytes()) {
		t.Fatal("IsSaved is false on a rendered JSON report")
	}
	s, err := ReadSaved("saved.json", &js, 0)
	if err != nil {
		t.Fatal(err)
	}
	back := Build(s.Inputs, opts)
	back.Provenance = s.Provenance
	return back
}

// replayedAsRecorded gives each run of the inputs that has no replay one
// that found what was recorded: fpcheck replays every run it reports, and
// a saved report with a run not replayed is refused.
func replayedAsRecorded(inputs []InputResult) {
	for i := range inputs {
		for j := range inputs[i].Runs {
			if r := &inputs[i].Runs[j]; r.Replayed == nil && r.Recorded != nil {
				replayed := *r.Recorded
				r.Replayed = &replayed
			}
		}
	}
}

func TestSavedRoundTripEveryFormat(t *testing.T) {
	type tc struct {
		name string
		r    *Report
		opts Options
	}
	var cases []tc
	for _, gc := range goldenCases() {
		in := goldenInputs(t, gc)
		replayedAsRecorded(in)
		cases = append(cases, tc{"golden/" + gc.name, Build(in, testOptions(gc.opts)), testOptions(gc.opts)})
	}
	for _, fc := range formatCases() {
		in := readInputs(t, fc.inputs)
		if fc.tweak != nil {
			fc.tweak(t, in)
		}
		replayedAsRecorded(in)
		cases = append(cases, tc{"formats/" + fc.name, Build(in, testOptions(fc.opts)), testOptions(fc.opts)})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.r.Provenance = Provenance{Declarations: "sha256:00", Posture: "observe", Shard: &Shard{Index: 1, Count: 3}, Total: len(c.r.Sources) + 2, Listing: "sha256:ab"}
			for i := range c.r.Sources {
				c.r.Sources[i].Index, c.r.Sources[i].Root = i+1, "recordings"
			}
			back := rebuild(t, c.r, c.opts)
			if diff := cmp.Diff(c.r.Provenance, back.Provenance); diff != "" {
				t.Errorf("provenance changed (-want +got):\n%s", diff)
			}
			if got, want := back.ExitCode(), c.r.ExitCode(); got != want {
				t.Errorf("exit code %d after reading back, want %d", got, want)
			}
			want, got := renderEvery(t, c.r), renderEvery(t, back)
			for f := range want {
				if diff := cmp.Diff(want[f], got[f]); diff != "" {
					t.Errorf("%s rendering changed by the round trip (-want +got):\n%s", f, diff)
				}
			}
		})
	}
}

func TestIsSaved(t *testing.T) {
	for _, tt := range []struct {
		head string
		want bool
	}{
		{"{\n  \"schemaVersion\": 1,", true},
		{"\xEF\xBB\xBF { \"schemaVersion\":2}", true},
		{`{"events":[], "schemaVersion": 1}`, false},
		{`{"type":"turn_start"}` + "\n", false},
		{`["schemaVersion"]`, false},
		{"", false},
	} {
		if got := IsSaved([]byte(tt.head)); got != tt.want {
			t.Errorf("IsSaved(%q) = %v, want %v", tt.head, got, tt.want)
		}
	}
}

// savedDoc renders a small report and lets edit change its JSON text.
func savedDoc(t *testing.T, edit func(string) string) string {
	t.Helper()
	gc := goldenCases()[0]
	in := goldenInputs(t, gc)
	replayedAsRecorded(in)
	r := Build(in, testOptions(gc.opts))
	r.Provenance = Provenance{Posture: "observe", Total: len(r.Sources)}
	var js bytes.Buffer
	if err := RenderJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	return edit(js.String())
}

func TestReadSavedRefusals(t *testing.T) {
	for _, tt := range []struct {
		name, want string
		edit       func(string) string
		limit      int64
	}{
		{name: "newer schema", want: "saved.json: an fpcheck report of schemaVersion 7; this build reads schemaVersion 1 only",
			edit: func(s string) string { return strings.Replace(s, `"schemaVersion": 1`, `"schemaVersion": 7`, 1) }},
		{name: "schema not a number", want: "schemaVersion is not a number",
			edit: func(s string) string { return strings.Replace(s, `"schemaVersion": 1`, `"schemaVersion": null`, 1) }},
		{name: "no evidence", want: "without an evidence section",
			edit: func(s string) string {
				return s[:strings.Index(s, `,
  "evidence"`)] + "\n}\n"
			}},
		{name: "newer evidence", want: "evidence is version 9; this build reads evidence version 1 only",
			edit: func(s string) string { return strings.Replace(s, `"version": 1`, `"version": 9`, 1) }},
		{name: "unknown evidence key", want: `unknown field "surprise"`,
			edit: func(s string) string {
				return strings.Replace(s, `"version": 1,`, `"version": 1, "surprise": true,`, 1)
			}},
		{name: "truncated", want: "saved.json: not a readable fpcheck report",
			edit: func(s string) string { return s[:len(s)/2] }},
		{name: "wrong type names its line", want: "the report's evidence does not decode: line ",
			edit: func(s string) string { return strings.Replace(s, `"total": 1`, `"total": "one"`, 1) }},
		{name: "index beyond total", want: "has index 5: not a distinct position below total 1",
			edit: func(s string) string {
				i := strings.Index(s, `"evidence"`)
				return s[:i] + strings.Replace(s[i:], `"index": 0`, `"index": 5`, 1)
			}},
		{name: "total below inputs", want: "evidence.total says 0 inputs, but the evidence holds 1",
			edit: func(s string) string { return strings.Replace(s, `"total": 1`, `"total": 0`, 1) }},
		{name: "whole report missing inputs", want: "evidence.total says 4 inputs, but the evidence holds 1 (positions 1, 2, 3 of 4 missing); a report of part of its inputs never passes for all of them",
			edit: func(s string) string { return strings.Replace(s, `"total": 1`, `"total": 4`, 1) }},
		{name: "whole report of another listing", want: "evidence.inputs do not name the inputs of the listing the report says it read",
			edit: func(s string) string {
				return strings.Replace(s, `"total": 1,`, `"total": 1, "listing": "sha256:00",`, 1)
			}},
		{name: "unknown posture", want: `evidence.posture is "bogus", not observe or dev`,
			edit: func(s string) string {
				i := strings.Index(s, `"evidence": {`)
				return s[:i] + strings.Replace(s[i:], `"posture": "observe"`, `"posture": "bogus"`, 1)
			}},
		{name: "listing not a digest", want: `evidence.listing is "runs", not a sha256: digest`,
			edit: func(s string) string { return strings.Replace(s, `"total": 1,`, `"total": 1, "listing": "runs",`, 1) }},
		{name: "shard count beyond the bound", want: "evidence.shard is 0/1000000000000, not a shard index below a count from 1 to 100000",
			edit: func(s string) string {
				return strings.Replace(s, `"shard": null`, `"shard": {"index": 0, "count": 1000000000000}`, 1)
			}},
		{name: "crafted shard", want: "evidence.shard is 4/2",
			edit: func(s string) string {
				return strings.Replace(s, `"shard": null`, `"shard": {"index": 4, "count": 2}`, 1)
			}},
		{name: "run without recorded evidence", want: "has no recorded evidence",
			edit: func(s string) string {
				i := strings.Index(s, `"evidence"`)
				j := i + strings.Index(s[i:], `"recorded": {`)
				k := j + strings.Index(s[j:], "\n            },\n")
				return s[:j] + `"recorded": null` + s[k+len("\n            }"):]
			}},
		{name: "run without its replay", want: "has no replayed evidence, which every run fpcheck reports carries; the report was edited",
			edit: func(s string) string {
				i := strings.Index(s, `"evidence"`)
				j := i + strings.Index(s[i:], `"replayed": {`)
				k := j + strings.Index(s[j:], "\n            },\n")
				return s[:j] + `"replayed": null` + s[k+len("\n            }"):]
			}},
		{name: "too large", want: "a saved report larger than 100 bytes (limit set by --max-decompressed-bytes)",
			edit: func(s string) string { return s }, limit: 100},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := savedDoc(t, tt.edit)
			_, err := ReadSaved("saved.json", strings.NewReader(doc), tt.limit)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ReadSaved error = %v, want it to contain %q", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "saved.json: ") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestMissingText(t *testing.T) {
	for _, tt := range []struct {
		held []int
		n    int
		want string
	}{
		{[]int{0, 2}, 3, "position 1 of 3 missing"},
		{[]int{3, 0}, 4, "positions 1, 2 of 4 missing"},
		{[]int{0, 1, 5}, 6, "positions 2, 3, 4 of 6 missing"},
		{[]int{0, 6}, 7, "5 of 7 positions missing: 1, 2, 3, …"},
		{[]int{7}, 1_000_000_000_000, "999999999999 of 1000000000000 positions missing: 0, 1, 2, …"},
		{nil, 2, "positions 0, 1 of 2 missing"},
	} {
		if got := MissingText("position", tt.held, tt.n); got != tt.want {
			t.Errorf("MissingText(%v, %d) = %q, want %q", tt.held, tt.n, got, tt.want)
		}
	}
}

// A report's rendered counts are never read back: editing them changes
// nothing once the evidence is judged again.
func TestReadSavedIgnoresRenderedCounts(t *testing.T) {
	doc := savedDoc(t, func(s string) string {
		s = strings.Replace(s, `"exitCode": 0`, `"exitCode": 1`, 1)
		return strings.Replace(s, `"verdict": "green"`, `"verdict": "defects"`, 1)
	})
	s, err := ReadSaved("saved.json", strings.NewReader(doc), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := Build(s.Inputs, testOptions(Options{})).ExitCode(); got != ExitGreen {
		t.Errorf("exit code %d, want the evidence's %d", got, ExitGreen)
	}
}

// FuzzReadSaved feeds ReadSaved crafted reports: it must refuse them with
// an error naming the file, or return evidence that Build judges and every
// renderer renders.
func FuzzReadSaved(f *testing.F) {
	for _, gc := range []string{"partial.jsonl", "sessions.jsonl", "hostile.jsonl", "empty.jsonl"} {
		r := Build([]InputResult{readTestInput(f, filepath.Join(fixtureDir, gc), gc)}, testOptions(Options{}))
		var js bytes.Buffer
		if err := RenderJSON(&js, r); err != nil {
			f.Fatal(err)
		}
		f.Add(js.Bytes())
	}
	f.Add([]byte(`{"schemaVersion":1,"evidence":{"version":1,"total":1,"inputs":[{"index":0,"path":"a","stats":null,"error":"x","runs":[{"recorded":{}}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSaved("fuzz.json", bytes.NewReader(data), 1<<20)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json: ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		r := Build(s.Inputs, testOptions(Options{}))
		for _, format := range Formats() {
			rd, err := NewRenderer(format, testRenderOptions())
			if err != nil {
				t.Fatal(err)
			}
			if err := rd.Render(&bytes.Buffer{}, r); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
		}
	})
}
