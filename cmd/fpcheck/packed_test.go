package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/internal/synth"
)

// corpusDecls arms the replay on the reference corpus the way its
// scenarios describe.
const corpusDecls = `
tools:
  screen_fire: { argumentsFrom: [whats_here] }
`

// TestPackedCorpusReportsAsPlain: every recording of the reference corpus,
// packed, gives byte for byte the report of its plain form, in every
// format, with and without declarations. The plain form is the file with
// its whitespace taken out, because a report counts a document's lines:
// a compact recording.json is its own plain form, and an envelope's report
// differs from its pretty-printed original only in the lines it counts.
// packedStat is the line of a JSON report's evidence that says an input was
// read packed.
var packedStat = regexp.MustCompile(`\n *"packed": true,`)

func TestPackedCorpusReportsAsPlain(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/reference-corpus/*/*.json")
	more, _ := filepath.Glob("../../../shared/reference-corpus/*/*/*.json")
	files = append(files, more...)
	if len(files) == 0 {
		t.Skip("reference corpus not found")
	}
	dir := t.TempDir()
	plainDir, packedDir := filepath.Join(dir, "plain"), filepath.Join(dir, "packed")
	for _, d := range []string{plainDir, packedDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	decls := filepath.Join(dir, "decls.yaml")
	if err := os.WriteFile(decls, []byte(corpusDecls), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		base := filepath.Base(f)
		if base == "variants.json" {
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var plain bytes.Buffer
		if err := json.Compact(&plain, raw); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var packed []byte
		if strings.HasPrefix(base, "envelope") {
			packed, err = synth.PackMember(raw, "recording")
		} else {
			packed, err = synth.Pack(raw)
		}
		if err != nil {
			t.Fatalf("%s: packing: %v", f, err)
		}
		if bytes.Equal(packed, plain.Bytes()) || !bytes.Contains(packed, []byte(`{"$af:ref":`)) {
			t.Fatalf("%s: packing pooled nothing", f)
		}
		rel, _ := filepath.Rel("../../../shared/reference-corpus", f)
		name := strings.ReplaceAll(rel, string(filepath.Separator), "-")
		plainPath, packedPath := filepath.Join(plainDir, name), filepath.Join(packedDir, name)
		if err := os.WriteFile(plainPath, plain.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(packedPath, packed, 0o644); err != nil {
			t.Fatal(err)
		}
		n++
		for _, flags := range [][]string{
			{"--format", "json"},
			{"--format", "json", "--declarations", decls},
			{"--format", "text", "--color=never", "--declarations", decls},
			{"--format", "sarif", "--declarations", decls},
		} {
			args := append([]string{"analyze"}, flags...)
			code1, out1, err1 := run(t, nil, append(args, plainPath)...)
			code2, out2, err2 := run(t, nil, append(args, packedPath)...)
			out2 = strings.ReplaceAll(out2, packedDir, plainDir)
			// The evidence section keeps the loader's accounting whole, so
			// it says the input was packed; nothing else may differ.
			out2 = packedStat.ReplaceAllString(out2, "")
			out1, out2 = listingDigest.ReplaceAllString(out1, "listing"), listingDigest.ReplaceAllString(out2, "listing")
			err2 = strings.ReplaceAll(err2, packedDir, plainDir)
			if code1 != code2 || out1 != out2 || err1 != err2 {
				t.Errorf("%s %v: packed report differs from the plain one (exit %d vs %d)\nplain:\n%s\npacked:\n%s\nstderr: %q vs %q",
					rel, flags, code1, code2, head(out1), head(out2), err1, err2)
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d corpus recordings packed", n)
	}
}

// TestPackedRefusals: a packed recording that cannot be expanded is an
// input error (exit 2) naming the file and the place.
func TestPackedRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const ev = `{"type":"agentfootprint.agent.turn_start","payload":{"x":{"$af:ref":%s}},"meta":{"runId":"r1"}}`
	for _, tc := range []struct {
		name, body string
		args       []string
		want       []string
	}{
		{"dangling", `{"format":"agentfootprint.recording.packed.v1","recording":{"events":[` + strings.Replace(ev, "%s", "3", 1) + `]},"values":["x"]}`, nil,
			[]string{"dangling.json: recording.events[0].payload.x: a reference names value 3, which the packed recording does not hold (it holds 1 value, values[0])"}},
		{"self", `{"format":"agentfootprint.recording.packed.v1","recording":{"events":[]},"values":[{"a":{"$af:ref":0}}]}`, nil,
			[]string{"self.json: values[0] refers to itself"}},
		{"cycle", `{"format":"agentfootprint.recording.packed.v1","recording":{"events":[{"$af:ref":0}]},"values":[[{"$af:ref":1}],{"b":{"$af:ref":0}}]}`, nil,
			[]string{"cycle.json: values[0] refers to itself through a cycle of references (values[0] → values[1] → values[0])"}},
		{"v2", `{"format":"agentfootprint.recording.packed.v2","recording":{},"values":[]}`, nil,
			[]string{`v2.json: unknown packed recording format "agentfootprint.recording.packed.v2" — this build reads agentfootprint.recording.packed.v1 only`}},
		{"envelope-v2", `{"format":"agentfootprint.recording.v1","run":{"complete":true,"droppedEvents":0},"privacy":{"mode":"full"},"recording":{"format":"agentfootprint.recording.packed.v9","values":[],"recording":{}}}`, nil,
			[]string{`envelope-v2.json: recording.format: unknown packed recording format "agentfootprint.recording.packed.v9"`}},
		{"bomb", bomb(30), []string{"--max-packed-expansion", "1048576"},
			[]string{"bomb.json: the packed recording expands to more than 1 MiB (limit set by --max-packed-expansion"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(tc.name+".json", tc.body)
			args := append(append([]string{"analyze"}, tc.args...), p)
			code, out, errOut := run(t, nil, args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out+errOut, w) {
					t.Errorf("output does not say %q:\nstdout:\n%s\nstderr:\n%s", w, out, errOut)
				}
			}
		})
	}
}

// bomb is a packed recording of a few hundred bytes whose values each
// refer to the one before twice: it stands for 2^depth copies of a string.
func bomb(depth int) string {
	var b strings.Builder
	b.WriteString(`{"format":"agentfootprint.recording.packed.v1","recording":{"events":[],"snapshot":{"$af:ref":` + strconv.Itoa(depth) + `}},"values":["` + strings.Repeat("x", 64) + `"`)
	for i := 1; i <= depth; i++ {
		b.WriteString(`,[{"$af:ref":` + strconv.Itoa(i-1) + `},{"$af:ref":` + strconv.Itoa(i-1) + `}]`)
	}
	b.WriteString("]}")
	return b.String()
}
