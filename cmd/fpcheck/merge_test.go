package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"

	"github.com/fpcheck/fpcheck/report"
)

func corpusPath(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../../shared/reference-corpus")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skip("the shared reference corpus is not beside the repository")
	}
	return dir
}

// analyzeShards writes the JSON reports of n shards of args into dir and
// returns their paths, last shard first, so that merge must put them back
// in order.
func analyzeShards(t *testing.T, dir string, n int, args ...string) []string {
	t.Helper()
	var paths []string
	for i := n - 1; i >= 0; i-- {
		p := filepath.Join(dir, "shard-"+itoa(i)+".json")
		code, _, stderr := run(t, nil, append([]string{"analyze", "--shard", itoa(i) + "/" + itoa(n), "--output", "json=" + p}, args...)...)
		// An unreadable input exits 2 with its report written; only a
		// missing report stops the test.
		if _, err := os.Stat(p); err != nil || code == int(ExitInternal) {
			t.Fatalf("shard %d/%d: exit %d, no report: %s", i, n, code, stderr)
		}
		paths = append(paths, p)
	}
	return paths
}

func itoa(i int) string { return strconv.Itoa(i) }

// The done-when of sharding: the corpus analyzed in n shards and merged is
// the report of one invocation over all of it, byte for byte in every
// format, with the same exit code.
func TestShardsMergeToOneInvocation(t *testing.T) {
	corpus := corpusPath(t)
	for _, tc := range []struct {
		name string
		n    int
		args []string
	}{
		{"corpus in 4 shards", 4, []string{corpus}},
		{"corpus in 1 shard", 1, []string{corpus}},
		{"corpus in 7 shards, kind filter and limit", 7, []string{"--kind", "dangling-reference", "--limit", "1", corpus}},
		{"files and a directory", 3, []string{corpus + "/multi-turn", corpus + "/clean-armed/events.jsonl", corpus + "/no-tail/recording.json"}},
		{"allow damaged, fail on advisory", 3, []string{"--allow-damaged", "--fail-on", "advisory", corpus}},
		{"hostile recordings", 3, []string{"../../testdata/recordings/hostile"}},
		{"demo with declarations", 2, []string{"--declarations", "../../testdata/recordings/demo/declarations.yaml", "../../testdata/recordings/demo"}},
		{"demo with a typo in the declarations, strict", 2, []string{"--strict-declarations", "--declarations", "../../testdata/recordings/demo/declarations-typo.yaml", "../../testdata/recordings/demo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shards := analyzeShards(t, t.TempDir(), tc.n, tc.args...)
			for _, format := range report.Formats() {
				if format == report.FormatHTML {
					// A saved JSON report does not place encounters at
					// iterations, so a merged page draws its timelines
					// from the findings alone, and says so.
					_, got, _ := run(t, nil, append([]string{"merge", "--format", format}, shards...)...)
					if !strings.Contains(got, "only the findings are drawn") {
						t.Errorf("html: a merged page does not say its timelines lack the encounters")
					}
					continue
				}
				wantCode, want, _ := run(t, nil, append([]string{"analyze", "--format", format}, tc.args...)...)
				gotCode, got, stderr := run(t, nil, append([]string{"merge", "--format", format}, shards...)...)
				if gotCode != wantCode {
					t.Errorf("%s: merge exit %d, one invocation %d (%s)", format, gotCode, wantCode, stderr)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: merged shards differ from one invocation (-want +got):\n%s", format, diff)
				}
			}
		})
	}
}

func TestMergeRefusals(t *testing.T) {
	corpus := corpusPath(t)
	dir := t.TempDir()
	shards := analyzeShards(t, dir, 3, corpus)
	whole := filepath.Join(dir, "whole.json")
	run(t, nil, "analyze", "--output", "json="+whole, corpus)
	decl := filepath.Join(dir, "demo-decl.json")
	run(t, nil, "analyze", "--declarations", "../../testdata/recordings/demo/declarations.yaml", "--output", "json="+decl, "../../testdata/recordings/demo")
	plain := filepath.Join(dir, "plain.json")
	run(t, nil, "analyze", "--output", "json="+plain, "../../testdata/recordings/formats/defect.jsonl")
	copied := filepath.Join(dir, "copy-of-shard-1.json")
	data, err := os.ReadFile(shards[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, data, 0o644); err != nil {
		t.Fatal(err)
	}
	kinded := filepath.Join(dir, "kinded.json")
	run(t, nil, "analyze", "--kind", "dangling-reference", "--output", "json="+kinded, "../../testdata/recordings/formats/clean.jsonl")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"a shard missing", []string{shards[0], shards[2]}, "shard 1 of 3 missing"},
		{"a shard twice", []string{shards[0], shards[1], shards[2], copied}, "are both shard 1/3"},
		{"an input twice", []string{whole, corpus + "/no-tail/recording.json"}, "appears twice among the inputs and reports given"},
		{"other declarations", []string{decl, "../../testdata/recordings/formats/clean.jsonl"}, "was judged with declarations sha256:"},
		{"options disagree", []string{kinded, plain}, `says --kind "dangling-reference" and`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, nil, append([]string{"merge", "--format", "json"}, tt.args...)...)
			if code != int(ExitUsage) || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tt.want)
			}
			if stdout != "" {
				t.Errorf("a refused merge wrote a report:\n%s", head(stdout))
			}
		})
	}
	// A flag given to merge settles what the reports disagree on.
	if code, _, stderr := run(t, nil, "merge", "--kind", "", "--format", "json", kinded, plain); code == int(ExitUsage) {
		t.Errorf("merge --kind '' refused: %s", stderr)
	}
	// analyze reads recordings only, and says where saved reports go.
	code, _, stderr := run(t, nil, "analyze", whole)
	if code != int(ExitUsage) || !strings.Contains(stderr, "is a saved fpcheck report, not a recording; 'fpcheck merge' and 'fpcheck diff' read saved reports") {
		t.Errorf("analyze of a saved report: exit %d, %q", code, stderr)
	}
}

// The done-when of saved reports in diff: diffing two saved reports says
// what diffing the recordings they came from says, save the names given.
func TestDiffOfSavedReportsEqualsDiffOfRecordings(t *testing.T) {
	corpus := corpusPath(t)
	dir := t.TempDir()
	for _, tc := range []struct{ name, base, head string }{
		{"two directories", corpus + "/clean-armed", corpus + "/dangling-reference"},
		{"two files", corpus + "/clean-armed/events.jsonl", corpus + "/dangling-reference/events.jsonl"},
		{"a directory against itself", corpus + "/multi-turn", corpus + "/multi-turn"},
		{"unmeasured head", corpus + "/clean-armed/recording.json", corpus + "/no-tail/recording.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, h := filepath.Join(dir, "base.json"), filepath.Join(dir, "head.json")
			run(t, nil, "analyze", "--output", "json="+b, tc.base)
			run(t, nil, "analyze", "--output", "json="+h, tc.head)
			for _, format := range report.Formats() {
				wantCode, want, _ := run(t, nil, "diff", "--format", format, tc.base, tc.head)
				gotCode, got, stderr := run(t, nil, "diff", "--format", format, b, h)
				if gotCode != wantCode {
					t.Errorf("%s: diff of saved reports exit %d, of recordings %d (%s)", format, gotCode, wantCode, stderr)
				}
				got = strings.NewReplacer(b, tc.base, h, tc.head).Replace(got)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: diff of saved reports differs (-recordings +reports):\n%s", format, diff)
				}
			}
			// One side saved, the other recorded, is the same diff too.
			wantCode, _, _ := run(t, nil, "diff", tc.base, tc.head)
			if code, _, stderr := run(t, nil, "diff", b, tc.head); code != wantCode {
				t.Errorf("diff saved base against recorded head: exit %d, want %d (%s)", code, wantCode, stderr)
			}
		})
	}
}

// Shards agreeing on the count and the total are still refused when they
// split other listings: shards of another directory, a shard that does not
// say what it split, a listing edited after the fact.
func TestMergeRefusesShardsOfAnotherListing(t *testing.T) {
	dir := t.TempDir()
	formats := "../../testdata/recordings/formats/"
	for _, d := range []string{"A", "B"} {
		for i, name := range []string{"a", "b", "c", "d"} {
			src := "clean.jsonl"
			if d == "A" && name == "b" {
				src = "defect.jsonl"
			}
			data, err := os.ReadFile(formats + src)
			if err != nil {
				t.Fatal(err)
			}
			data = []byte(strings.ReplaceAll(string(data), "run-1796025700000-1", "run-"+itoa(i)))
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, d, name+".jsonl"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	a := analyzeShards(t, dir, 2, filepath.Join(dir, "A"))
	shardOf := func(from string, i int, edit func(string) string) string {
		p := filepath.Join(t.TempDir(), from+"-"+itoa(i)+".json")
		run(t, nil, "analyze", "--shard", itoa(i)+"/2", "--output", "json="+p, filepath.Join(dir, from))
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(edit(string(data))), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	same := func(s string) string { return s }
	unlisted := func(s string) string {
		return regexp.MustCompile(`\n\s*"listing": "[^"]*",`).ReplaceAllString(s, "")
	}
	renamed := func(s string) string { return strings.ReplaceAll(s, `d.jsonl"`, `e.jsonl"`) }
	for _, tt := range []struct {
		name   string
		shards []string
		want   string
	}{
		{"shards of another directory", []string{shardOf("A", 0, same), shardOf("B", 1, same)}, "split different listings of 4 inputs: inputs under "},
		{"a shard that does not say what it split", []string{shardOf("A", 0, unlisted), shardOf("A", 1, unlisted)}, "written without the listing it split"},
		{"inputs renamed in every shard", []string{shardOf("A", 0, renamed), shardOf("A", 1, renamed)}, "hold inputs whose names are not those of the listing"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, nil, append([]string{"merge", "--format", "json"}, tt.shards...)...)
			if code != int(ExitUsage) || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tt.want)
			}
			if stdout != "" {
				t.Errorf("a refused merge wrote a report:\n%s", head(stdout))
			}
		})
	}
	// The shards of the one directory merge, and fail on its defect, also
	// when each worker spelt the directory its own way.
	if code, _, stderr := run(t, nil, append([]string{"merge", "--format", "json"}, a...)...); code != int(ExitDefects) {
		t.Errorf("merge of the shards of one listing: exit %d, want 1 (%s)", code, stderr)
	}
	spelt := []string{filepath.Join(t.TempDir(), "0.json"), filepath.Join(t.TempDir(), "1.json")}
	run(t, nil, "analyze", "--shard", "0/2", "--output", "json="+spelt[0], filepath.Join(dir, "A"))
	run(t, nil, "analyze", "--shard", "1/2", "--output", "json="+spelt[1], filepath.Join(dir, "A")+"/")
	if code, _, stderr := run(t, nil, append([]string{"merge", "--format", "json"}, spelt...)...); code != int(ExitDefects) {
		t.Errorf("merge of shards naming the directory as A and A/: exit %d, want 1 (%s)", code, stderr)
	}
}

// A whole report whose total names more inputs than it holds is refused by
// merge and by diff: it would pass for a report of all of them.
func TestSavedReportMissingInputsRefused(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.json")
	run(t, nil, "analyze", "--exclude", "golden", "--output", "json="+full, "../../testdata/recordings/formats")
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	total := regexp.MustCompile(`\n    "total": ([0-9]+),`)
	m := total.FindStringSubmatch(string(data))
	if m == nil {
		t.Fatal("no evidence.total in the report")
	}
	n, _ := strconv.Atoi(m[1])
	holes := filepath.Join(dir, "holes.json")
	edited := strings.Replace(string(data), m[0], "\n    \"total\": "+itoa(n+2)+",", 1)
	if err := os.WriteFile(holes, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "evidence.total says " + itoa(n+2) + " inputs, but the evidence holds " + itoa(n) + " (positions " + itoa(n) + ", " + itoa(n+1) + " of " + itoa(n+2) + " missing)"
	for _, args := range [][]string{{"merge", holes}, {"diff", holes, holes}, {"diff", full, holes}} {
		code, stdout, stderr := run(t, nil, args...)
		if code != int(ExitUsage) || !strings.Contains(stderr, want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2, %q and no report", args[0], code, stderr, head(stdout), want)
		}
	}
}

// The shard count is bounded, and a merge with most shards missing names
// the first few and how many, without a line per missing shard.
func TestShardCountBounded(t *testing.T) {
	rec := "../../testdata/recordings/formats/defect.jsonl"
	code, _, stderr := run(t, nil, "analyze", "--shard", "0/100001", rec)
	if code != int(ExitUsage) || !strings.Contains(stderr, "at most 100000 shards") {
		t.Errorf("--shard 0/100001: exit %d, %q; want exit 2 and the bound", code, stderr)
	}
	p := filepath.Join(t.TempDir(), "s.json")
	run(t, nil, "analyze", "--shard", "0/100000", "--output", "json="+p, rec)
	for _, args := range [][]string{{"merge", p}, {"diff", p, p}} {
		code, _, stderr = run(t, nil, args...)
		want := "99999 of 100000 shards missing: 1, 2, 3, … (the shards given split 1 inputs)"
		if code != int(ExitUsage) || !strings.Contains(stderr, want) || len(stderr) > 1000 {
			t.Errorf("%s of one shard of 100000: exit %d, %q; want exit 2 and %q", args[0], code, stderr, want)
		}
	}
}

// A saved report among a head directory's recordings that holds a
// recording of a name the directory has too makes two inputs of one name:
// diff refuses it, naming both, rather than pairing one and listing the
// other as head only.
func TestDiffRefusesTwoInputsOfOneName(t *testing.T) {
	dir := t.TempDir()
	formats := "../../testdata/recordings/formats/"
	base, hd := filepath.Join(dir, "B"), filepath.Join(dir, "H")
	for _, f := range []struct{ from, to string }{
		{"clean.jsonl", filepath.Join(base, "clean.jsonl")}, {"defect.jsonl", filepath.Join(base, "defect.jsonl")},
		{"clean.jsonl", filepath.Join(hd, "clean.jsonl")},
	} {
		data, err := os.ReadFile(formats + f.from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(f.to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	saved := filepath.Join(hd, "defect.jsonl")
	run(t, nil, "analyze", "--output", "json="+saved, formats+"clean.jsonl")
	code, stdout, stderr := run(t, nil, "diff", base, hd)
	want := "the head holds two inputs named clean.jsonl: " + filepath.Join(hd, "clean.jsonl") + " and " + formats + "clean.jsonl (held by the saved report " + saved + ")"
	if code != int(ExitUsage) || !strings.Contains(stderr, want) || stdout != "" {
		t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, want)
	}
}

// A saved report kept compressed is read as one, by merge and diff, from a
// file or standard input, and a compressed recording on standard input
// still reaches the loader whole; a report whose keys were re-ordered is
// said to look like a report, and why it was not taken.
func TestCompressedAndReorderedSavedReports(t *testing.T) {
	dir := t.TempDir()
	rec := "../../testdata/recordings/formats/defect.jsonl"
	full := filepath.Join(dir, "full.json")
	wantCode, _, _ := run(t, nil, "analyze", "--output", "json="+full, rec)
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	recData, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	zst := func(b []byte) []byte {
		enc, err := zstd.NewWriter(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer enc.Close()
		return enc.EncodeAll(b, nil)
	}
	files := map[string][]byte{"r.json.gz": gz(data), "r.json.zst": zst(data), "rec.jsonl.gz": gz(recData), "rec.jsonl.zst": zst(recData)}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := func(name string) string { return filepath.Join(dir, name) }
	for _, tt := range []struct {
		name  string
		args  []string
		stdin string
		exit  int
	}{
		{"gzip report", []string{"merge", at("r.json.gz")}, "", wantCode},
		{"zstd report", []string{"merge", at("r.json.zst")}, "", wantCode},
		{"gzip report on stdin", []string{"merge", "-"}, "r.json.gz", wantCode},
		{"zstd report against the plain one", []string{"diff", at("r.json.zst"), full}, "", int(ExitGreen)},
		{"gzip recording on stdin", []string{"merge", "-"}, "rec.jsonl.gz", wantCode},
		{"zstd recording on stdin against its report", []string{"diff", "-", at("r.json.gz")}, "rec.jsonl.zst", int(ExitGreen)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdin io.Reader
			if tt.stdin != "" {
				stdin = bytes.NewReader(files[tt.stdin])
			}
			code, stdout, stderr := run(t, stdin, tt.args...)
			if code != tt.exit || strings.Contains(stdout, "Unreadable") {
				t.Errorf("exit %d, want %d: %s\n%s", code, tt.exit, stderr, head(stdout))
			}
		})
	}
	// Keys re-ordered, as jq -S or sort_keys write them.
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for k := range doc {
		if !slices.Contains(savedKeys, k) {
			t.Errorf("a report's key %q is not among savedKeys", k)
		}
	}
	sorted, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(at("sorted.json.gz"), gz(sorted), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := run(t, nil, "merge", at("sorted.json.gz"))
	if want := "looks like a saved fpcheck report (its top-level keys include schemaVersion and evidence), but it does not start with"; code != int(ExitUsage) || !strings.Contains(stdout, want) {
		t.Errorf("re-ordered report: exit %d, want 2 and %q in:\n%s", code, want, head(stdout))
	}
}

// A saved report whose runs lost their replay was edited: merge and diff
// refuse it, so that a finding only the replay held never reads as
// resolved.
func TestSavedReportWithoutReplayRefused(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "t.json")
	run(t, nil, "analyze", "--output", "json="+saved, "../../testdata/recordings/formats/defect.jsonl")
	data, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(doc["evidence"], &ev); err != nil {
		t.Fatal(err)
	}
	for _, in := range ev["inputs"].([]any) {
		for _, r := range in.(map[string]any)["runs"].([]any) {
			delete(r.(map[string]any), "replayed")
		}
	}
	if doc["evidence"], err = json.Marshal(ev); err != nil {
		t.Fatal(err)
	}
	// schemaVersion first, as a report is known by it.
	edited := `{"schemaVersion":` + string(doc["schemaVersion"])
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		if k != "schemaVersion" {
			edited += `,"` + k + `":` + string(doc[k])
		}
	}
	n := filepath.Join(dir, "n.json")
	if err := os.WriteFile(n, []byte(edited+"}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"diff", saved, n}, {"merge", n}} {
		code, stdout, stderr := run(t, nil, args...)
		if want := "has no replayed evidence, which every run fpcheck reports carries"; code != int(ExitUsage) || !strings.Contains(stderr, want) || stdout != "" {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", args[0], code, stderr, want)
		}
	}
}

// TestEmptyShardSaysSo: a shard that drew none of the inputs exits 3 and
// says why, in the result line and on stderr, not only "0 inputs".
func TestEmptyShardSaysSo(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/recordings/formats/clean.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "only.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	empty := 0
	for i := range 4 {
		code, out, stderr := run(t, nil, "analyze", "--shard", itoa(i)+"/4", dir)
		if !strings.Contains(out, "0 inputs") {
			continue
		}
		empty++
		want := "0 inputs (shard " + itoa(i) + "/4 drew none: nothing measured)"
		if code != int(ExitUnmeasured) || !strings.Contains(out, want) {
			t.Errorf("shard %d/4: exit %d, want 3 and %q:\n%s%s", i, code, want, out, stderr)
		}
	}
	if empty != 3 {
		t.Errorf("%d of 4 shards of one input drew none, want 3", empty)
	}
}
