package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
)

// uncomment takes the "# " off every line a skeleton commented once, as a
// user arming every key would.
var uncomment = regexp.MustCompile(`(?m)^(\s*)# `)

// TestDeclarationsInitDemo: the skeleton of the demo recording parses as it
// is (arming nothing the demo's finding needs), and uncommented it arms the
// checks and reproduces the demo's finding, as the demo's own declarations
// do.
func TestDeclarationsInitDemo(t *testing.T) {
	const demo = "../../testdata/recordings/demo/triage.jsonl"
	code, skel, stderr := run(t, nil, "declarations", "init", demo)
	if code != 0 {
		t.Fatalf("declarations init exit %d: %s", code, stderr)
	}
	for _, want := range []string{"tools:\n", "  backup_status:\n", "    # argumentsFrom: [fleet_report]\n", "  fleet_report:\n", "  checkColumnTypes: off\n"} {
		if !strings.Contains(skel, want) {
			t.Errorf("skeleton lacks %q:\n%s", want, skel)
		}
	}
	dir := t.TempDir()
	asIs := filepath.Join(dir, "skeleton.yaml")
	armed := filepath.Join(dir, "armed.yaml")
	if err := os.WriteFile(asIs, []byte(skel), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(armed, []byte(uncomment.ReplaceAllString(skel, "$1")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{asIs, armed} {
		data, _ := os.ReadFile(f)
		if _, err := checks.ParseDeclarations(f, data); err != nil {
			t.Fatalf("%s does not parse: %v", filepath.Base(f), err)
		}
	}
	if code, _, stderr := run(t, nil, "analyze", "--strict-declarations", "--declarations", asIs, demo); code != 0 {
		t.Errorf("the skeleton as written: exit %d, want 0 (%s)", code, stderr)
	}
	findings := func(decl string) []string {
		t.Helper()
		code, out, stderr := run(t, nil, "analyze", "--strict-declarations", "--format", "json", "--declarations", decl, demo)
		if code != 1 {
			t.Fatalf("%s: exit %d, want 1 (%s)", filepath.Base(decl), code, stderr)
		}
		var rep struct {
			Runs []struct {
				Findings []struct{ Identity, Source string }
			}
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range rep.Runs {
			for _, f := range r.Findings {
				ids = append(ids, f.Identity+" "+f.Source)
			}
		}
		return ids
	}
	want := findings("../../testdata/recordings/demo/declarations.yaml")
	got := findings(armed)
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(want) == 0 {
		t.Errorf("uncommented skeleton finds %q, the demo's declarations %q", got, want)
	}
}

func TestDeclarationsInitRefuses(t *testing.T) {
	if code, _, _ := run(t, nil, "declarations", "init"); code != 2 {
		t.Errorf("no argument: exit %d, want 2", code)
	}
	if code, _, _ := run(t, nil, "declarations", "init", "../../testdata/recordings/hostile/garbage.bin"); code != 2 {
		t.Errorf("unreadable input: exit %d, want 2", code)
	}
}

// TestSkeletonHostileNames: names from a recording are written so that the
// skeleton still parses and names them exactly.
func TestSkeletonHostileNames(t *testing.T) {
	names := []string{"plain_tool", "yes", "12start", "with space", "new\nline: x", "quote\"d", "\x1b[2Jesc", "ünï"}
	var tools []checks.SkeletonTool
	for i, n := range names {
		st := checks.SkeletonTool{Name: n, Called: true}
		if i > 0 {
			st.Before = names[:i]
		}
		tools = append(tools, st)
	}
	skel := checks.Skeleton([]string{"run\n.jsonl"}, tools)
	for _, data := range [][]byte{skel, []byte(uncomment.ReplaceAllString(string(skel), "$1"))} {
		d, err := checks.ParseDeclarations("skel.yaml", data)
		if err != nil {
			t.Fatalf("skeleton does not parse: %v\n%s", err, data)
		}
		if len(d.Tools) != len(names) {
			t.Fatalf("skeleton declares %d tools, want %d", len(d.Tools), len(names))
		}
		for i, tool := range d.Tools {
			if tool.Name != names[i] {
				t.Errorf("tool %d reads back as %q, want %q", i, tool.Name, names[i])
			}
		}
	}
}

// TestSkeletonUnusualNames: a tool name longer than YAML's 1,024-character
// limit on a plain key is written as an explicit key, and a blank name,
// which declarations refuse, is said in a comment and left out (from the
// argumentsFrom suggestions too), so that the skeleton parses as written
// and uncommented.
func TestSkeletonUnusualNames(t *testing.T) {
	long := strings.Repeat("long_tool_", 200)
	tests := []struct {
		name  string
		tools []checks.SkeletonTool
		want  []string // the tools declared, in order
		says  []string
	}{
		{"a long name", []checks.SkeletonTool{{Name: "a", Called: true}, {Name: long, Called: true, Before: []string{"a"}}, {Name: "z", Before: []string{long}}},
			[]string{"a", long, "z"}, []string{"  ? " + long + "\n  :\n"}},
		{"a long quoted name", []checks.SkeletonTool{{Name: long + " x", Called: true}}, []string{long + " x"}, []string{`  ? "` + long + ` x"` + "\n"}},
		{"a blank name", []checks.SkeletonTool{{Name: "", Called: true}, {Name: "a", Called: true, Before: []string{""}}, {Name: "b", Before: []string{"", "a"}}},
			[]string{"a", "b"}, []string{`## Left out: a tool named "", which declarations cannot name`, "only a tool with a blank name was called before it", "# argumentsFrom: [a]\n"}},
		{"only blank names", []checks.SkeletonTool{{Name: " ", Called: true}}, nil, []string{`## Left out: a tool named " "`, "tools: {}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skel := checks.Skeleton([]string{"run.jsonl"}, tt.tools)
			for _, s := range tt.says {
				if !strings.Contains(string(skel), s) {
					t.Errorf("skeleton does not say %q:\n%s", s, skel)
				}
			}
			for _, data := range [][]byte{skel, []byte(uncomment.ReplaceAllString(string(skel), "$1"))} {
				d, err := checks.ParseDeclarations("skel.yaml", data)
				if err != nil {
					t.Fatalf("skeleton does not parse: %v\n%s", err, data)
				}
				var got []string
				for _, tool := range d.Tools {
					got = append(got, tool.Name)
				}
				if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
					t.Errorf("skeleton declares %q, want %q", got, tt.want)
				}
			}
		})
	}
}

// TestDeclarationsInitUnusualNames: end to end, the skeleton of a recording
// whose tool has a long or a blank name is accepted by analyze as written.
func TestDeclarationsInitUnusualNames(t *testing.T) {
	demo, err := os.ReadFile("../../testdata/recordings/demo/triage.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for name, tool := range map[string]string{"long": strings.Repeat("b", 2000), "blank": ""} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			rec, skel := filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "skeleton.yaml")
			if err := os.WriteFile(rec, []byte(strings.ReplaceAll(string(demo), `"backup_status"`, `"`+tool+`"`)), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, stderr := run(t, nil, "declarations", "init", rec)
			if code != 0 {
				t.Fatalf("declarations init exit %d: %s", code, stderr)
			}
			if err := os.WriteFile(skel, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			if code, _, stderr := run(t, nil, "analyze", "-q", "--declarations", skel, rec); code == 2 {
				t.Errorf("analyze with the skeleton: exit 2: %s", stderr)
			}
		})
	}
}
