package main

import (
	"fmt"
	"github.com/fpcheck/fpcheck/internal/hostile"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// lostFindingStream is a committed recording whose finding event was lost
// (as a capped stream loses it) while its ledger, on line 8, still counts
// the finding, with that count written as count.
func lostFindingStream(t *testing.T, count string) []byte {
	t.Helper()
	data, err := os.ReadFile("../../testdata/recordings/report/evidence-missing.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	const counted = `"findings":2,`
	if !strings.Contains(string(data), counted) {
		t.Fatal("the fixture's ledger no longer counts two failing encounters")
	}
	return []byte(strings.Replace(string(data), counted, `"findings":`+count+",", 1))
}

// TestDamagedLedgerCountIsNeverGreen: a run that lost its finding and
// whose ledger still counts it is evidence missing (exit 1); every other
// spelling of that count once read as 0 and made the run green.
func TestDamagedLedgerCountIsNeverGreen(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		count string
		code  int
		want  string
	}{
		{"2", 1, "EVIDENCE MISSING"},
		{"-6", 3, "is -6, not a count"},
		{"9007199254740992", 3, "is 9007199254740992, not a count"},
		{"1e21", 3, "is 1e21, not a count"},
		{"1234567890123456789012345678901", 3, "is 1234567890123456789012345678901, not a count"},
		{`"6"`, 3, `is "6", not a count`},
		{"6.5", 3, "is 6.5, not a count"},
		{"2,\"findings\":0", 3, "findings is repeated"},
	}
	for i, tt := range tests {
		t.Run(tt.count, func(t *testing.T) {
			path := filepath.Join(dir, "run"+string(rune('a'+i))+".jsonl")
			if err := os.WriteFile(path, lostFindingStream(t, tt.count), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, format := range []string{"text", "json", "sarif"} {
				code, stdout, stderr := run(t, nil, "analyze", "--color=never", "--format", format, path)
				if code != tt.code {
					t.Errorf("%s: exit %d, want %d; stderr %q", format, code, tt.code, stderr)
				}
				if format == "text" && !strings.Contains(stdout, tt.want) {
					t.Errorf("text report lacks %q:\n%s", tt.want, stdout)
				}
				if tt.code == 3 && format == "text" && !strings.Contains(stdout, "EVIDENCE DAMAGED — a ledger count is unusable (line 8): payload.rows[") {
					t.Errorf("text report does not name the line and field:\n%s", stdout)
				}
			}
		})
	}
}

// TestUsageRefusals: mistakes that once read the wrong thing, or wrote
// over the evidence, are usage errors (exit 2) naming the flag, and
// nothing is written.
func TestUsageRefusals(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "run.jsonl")
	data, err := os.ReadFile(filepath.Join(hostileFixtures, "interleaved.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rec, data, 0o644); err != nil {
		t.Fatal(err)
	}
	decl := filepath.Join(dir, "decl.yaml")
	if err := os.WriteFile(decl, []byte("posture: observe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A baseline to read, and a directory named two ways.
	base := filepath.Join(dir, "baseline.json")
	if code, _, stderr := run(t, nil, "analyze", "--write-baseline", base, rec); code > 1 {
		t.Fatalf("writing a baseline: exit %d, %s", code, stderr)
	}
	baseData, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	outDir, outLink := filepath.Join(dir, "out"), filepath.Join(dir, "out-link")
	if err := os.Mkdir(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outDir, outLink); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"--output over the input", []string{"analyze", "--output", "json=" + rec, rec}, "would overwrite the recording"},
		{"--output over the baseline", []string{"analyze", "--baseline", base, "--output", "json=" + base, rec}, "would overwrite the baseline it reads"},
		{"two --output to one file through a link", []string{"analyze", "--output", "json=" + filepath.Join(outDir, "r.json"), "--output", "sarif=" + filepath.Join(outLink, "r.json"), rec}, "is already written by another --output"},
		{"--write-baseline and --output to one file", []string{"analyze", "--write-baseline", filepath.Join(outDir, "r.json"), "--output", "json=" + filepath.Join(outLink, ".", "r.json"), rec}, "name one file"},
		{"--output over an input found in a directory", []string{"analyze", "--output", "json=" + filepath.Join(dir, ".", "run.jsonl"), dir}, "would overwrite the recording"},
		{"--write-baseline over the input", []string{"analyze", "--write-baseline", rec, rec}, "--write-baseline"},
		{"--write-baseline over the declarations", []string{"analyze", "--declarations", decl, "--write-baseline", decl, rec}, "would overwrite the declarations file"},
		{"diff --output over the head", []string{"diff", "--output", "sarif=" + rec, rec, rec}, "would overwrite the recording"},
		{"merge --output over an input", []string{"merge", "--output", "json=" + rec, rec}, "would overwrite the recording"},
		{"diff --output over the baseline", []string{"diff", "--baseline", base, "--output", "json=" + base, rec, rec}, "--output json=" + base + " would overwrite the baseline it reads"},
		{"merge --output over the baseline", []string{"merge", "--baseline", base, "--output", "sarif=" + base, rec}, "--output sarif=" + base + " would overwrite the baseline it reads"},
		{"negative --max-line-bytes", []string{"analyze", "--max-line-bytes", "-1", rec}, `invalid argument "-1" for "--max-line-bytes" flag: a size cannot be negative`},
		{"negative --max-events-per-run", []string{"analyze", "--max-events-per-run", "-5", rec}, "--max-events-per-run must be 0"},
		{"negative --max-decompressed-bytes", []string{"diff", "--max-decompressed-bytes", "-1", rec, rec}, `invalid argument "-1" for "--max-decompressed-bytes" flag: a size cannot be negative`},
		{"negative --max-nesting", []string{"analyze", "--max-nesting", "-1", rec}, "--max-nesting must be 0"},
		{"negative --max-runs-in-flight", []string{"analyze", "--max-runs-in-flight", "-1", rec}, "--max-runs-in-flight must be 0"},
		{"negative --jobs", []string{"analyze", "-j", "-2", rec}, "--jobs must be 0"},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		tests = append(tests,
			struct {
				name string
				args []string
				says string
			}{"--declarations /dev/zero", []string{"analyze", "--declarations", "/dev/zero", rec}, "longer than 16 MiB"},
			struct {
				name string
				args []string
				says string
			}{"--baseline /dev/zero", []string{"analyze", "--baseline", "/dev/zero", rec}, "longer than 16 MiB"},
		)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, nil, append([]string{"--color=never"}, tt.args...)...)
			if code != 2 {
				t.Errorf("exit %d, want 2; stderr %q", code, stderr)
			}
			if !strings.Contains(stderr, tt.says) {
				t.Errorf("stderr %q does not say %q", stderr, tt.says)
			}
			if got, _ := os.ReadFile(rec); string(got) != string(data) {
				t.Fatalf("the recording was overwritten")
			}
		})
	}
	if got, _ := os.ReadFile(base); string(got) != string(baseData) {
		t.Errorf("the baseline was overwritten")
	}
	if entries, _ := os.ReadDir(outDir); len(entries) > 0 {
		t.Errorf("refused outputs were written: %v", entries)
	}
	// Refreshing a baseline in place stays allowed.
	if code, _, stderr := run(t, nil, "analyze", "--baseline", base, "--write-baseline", base, rec); code > 1 {
		t.Errorf("refreshing a baseline in place: exit %d, %s", code, stderr)
	}
}

// TestMaxRunBytes: a run that keeps more bytes than --max-run-bytes for its
// checks stops with the file, the line, the limit and the flag (exit 2),
// whether the bytes are a few big tool results its armed lookups search or
// many tiny messages gathered for a request that never comes, and the
// other runs of its input and another input are still read and judged, in
// every format. The limit is scaled down so the inputs stay small.
func TestMaxRunBytes(t *testing.T) {
	dir := t.TempDir()
	decl := armedDeclarations(t, dir)
	var results, messages strings.Builder
	if _, err := hostile.Results(&results, 64, 4096, false); err != nil {
		t.Fatal(err)
	}
	event := func(typ, payload string) string {
		return `{"type":"` + typ + `","payload":` + payload + `,"meta":{"runId":"run-messages"}}` + "\n"
	}
	// The model call arms the replay, so the messages after it are
	// replayed as they are read, not held.
	messages.WriteString(event("agentfootprint.agent.turn_start", `{"userPrompt":"q"}`))
	messages.WriteString(event("agentfootprint.stream.llm_start", `{"iteration":1}`))
	// One message again and again: the evictions keep it once, the
	// coming request every time.
	for i := range 2000 {
		messages.WriteString(event("agentfootprint.context.injected", fmt.Sprintf(`{"slot":"messages","source":"user","contentHash":"h","rawContent":"m","position":%d}`, i)))
	}
	other := filepath.Join(hostileFixtures, "interleaved.jsonl")
	tests := []struct {
		name, data, limit, id string
	}{
		{"big results", results.String(), "65536", "run-results"},
		{"many messages", messages.String(), "65536", "run-messages"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("run%d.jsonl", i))
			neighbours, err := os.ReadFile(other)
			if err != nil {
				t.Fatal(err)
			}
			// The big run shares its file with two runs that end after it.
			if err := os.WriteFile(path, append([]byte(tt.data), neighbours...), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := run(t, nil, "analyze", "--color=never", "--declarations", decl, "--max-run-bytes", tt.limit, path, other)
			if code != 2 {
				t.Errorf("exit %d, want 2; stderr %q", code, stderr)
			}
			if !regexp.MustCompile(`line \d+: run "` + tt.id + `" keeps more than 64 KiB \(limit set by --max-run-bytes\)`).MatchString(stdout) {
				t.Errorf("the limit is not named with the line and the flag:\n%s", stdout)
			}
			// The runs beside the stopped one are copies of the other
			// input's: judged once, and named as copies.
			if n := strings.Count(stdout, "RUN run-1796025700000-2 · "); n != 1 || !strings.Contains(stdout, "Copies: 1 other input holds a copy of this run") {
				t.Errorf("the runs beside the stopped one and their copies in the other input were judged %d times, want once, as copies:\n%s", n, stdout)
			}
			if strings.Contains(stdout, "RUN "+tt.id) {
				t.Errorf("the stopped run was judged:\n%s", stdout)
			}
			for format, want := range map[string]string{
				"json": "keeps more than 64 KiB", "sarif": "keeps more than 64 KiB",
				"github": "keeps more than 64 KiB", "short": "1 with a run stopped at a limit",
			} {
				code, out, _ := run(t, nil, "analyze", "--format", format, "--declarations", decl, "--max-run-bytes", tt.limit, path)
				if code != 2 || !strings.Contains(out, want) {
					t.Errorf("--format %s: exit %d, want 2 and the stop stated:\n%s", format, code, head(out))
				}
			}
			// Under the default limit the same input is read whole.
			if code, _, stderr := run(t, nil, "analyze", "--color=never", "--declarations", decl, path); code == 2 {
				t.Errorf("under the default limit: exit 2, %s", stderr)
			}
		})
	}
}
