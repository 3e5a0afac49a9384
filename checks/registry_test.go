package checks

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite docs/checks.md from the registry")

func TestRegistryIsValid(t *testing.T) {
	if err := Validate(Registry); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, c := range Registry {
		keys = append(keys, c.Key())
	}
	want := []string{"invariant-violation@wire", "invariant-violation@compose", "dangling-reference@compose", "unsupported-argument@choice", "unsupported-claim@claim",
		"prior-turn-evidence@claim", "empty-lookup@write", "column-type-mismatch@write", "missing-column@write"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("registry order (-want +got):\n%s", diff)
	}
}

func TestValidateRefuses(t *testing.T) {
	good := func() *Check { c := *DanglingReference; return &c }
	tests := []struct {
		name string
		reg  func() []*Check
		says string
	}{
		{"a repeated kind@seam", func() []*Check { return []*Check{good(), good()} }, "registered twice"},
		{"a title with a period", func() []*Check { c := good(); c.Title = "it catches things."; return []*Check{c} }, "title"},
		{"a long title", func() []*Check { c := good(); c.Title = strings.Repeat("x", 61); return []*Check{c} }, "title"},
		{"an upper-case title", func() []*Check { c := good(); c.Title = "Catches things"; return []*Check{c} }, "title"},
		{"no doc", func() []*Check { c := good(); c.Doc = " "; return []*Check{c} }, "no doc"},
		{"no ceiling", func() []*Check { c := good(); c.Ceiling = ""; return []*Check{c} }, "no ceiling"},
		{"no arming predicate", func() []*Check { c := good(); c.Armed = nil; return []*Check{c} }, "no arming predicate"},
		{"no canary", func() []*Check { c := good(); c.Canary = nil; return []*Check{c} }, "no canary"},
		{"no hook", func() []*Check { c := good(); c.OnCompose = nil; return []*Check{c} }, "exactly one hook"},
		{"a hook of another seam", func() []*Check { c := good(); c.OnWire = judgeWire; return []*Check{c} }, "exactly one hook"},
		{"a write hook on a compose check", func() []*Check { c := good(); c.OnWrite = EmptyLookup.OnWrite; return []*Check{c} }, "exactly one hook"},
		{"a nil entry", func() []*Check { return []*Check{nil} }, "nil"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.reg())
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("Validate = %v, want it to say %q", err, tc.says)
			}
		})
	}
}

func TestKinds(t *testing.T) {
	want := []string{KindInvariantViolation, KindDanglingReference, KindUnsupportedArgument, KindUnsupportedClaim,
		KindPriorTurnEvidence, KindEmptyLookup, KindColumnTypeMismatch, KindMissingColumn}
	if diff := cmp.Diff(want, FilableKinds()); diff != "" {
		t.Errorf("FilableKinds (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(append(want, KindDuplicateExecution), KnownKinds()); diff != "" {
		t.Errorf("KnownKinds (-want +got):\n%s", diff)
	}
}

func TestEveryCanaryIsCaught(t *testing.T) {
	for _, c := range Registry {
		fs := c.Canary()
		if len(fs) == 0 {
			t.Errorf("%s missed its canary", c.Key())
			continue
		}
		for _, f := range fs {
			if f.Kind != c.Kind || f.Seam != c.Seam {
				t.Errorf("%s canary filed %s@%s", c.Key(), f.Kind, f.Seam)
			}
		}
	}
	if err := RunCanaries(Registry); err != nil {
		t.Fatal(err)
	}
}

func TestArming(t *testing.T) {
	none := &Declarations{}
	all := designDeclarations("d")
	for _, tc := range []struct {
		c         *Check
		none, all bool
	}{
		{WireInvariant, true, true},
		{ComposeInvariant, false, true},
		{DanglingReference, false, true},
		{UnsupportedArgument, false, true},
		{UnsupportedClaim, false, true},
		{PriorTurnEvidence, false, true},
		{EmptyLookup, false, true},
		{ColumnTypeMismatch, false, true},
		{MissingColumn, false, true},
	} {
		if got := tc.c.Armed(none); got != tc.none {
			t.Errorf("%s armed by nothing = %v", tc.c.Key(), got)
		}
		if got := tc.c.Armed(nil); got != tc.none {
			t.Errorf("%s armed by nil = %v", tc.c.Key(), got)
		}
		if got := tc.c.Armed(all); got != tc.all {
			t.Errorf("%s armed by the design example = %v", tc.c.Key(), got)
		}
	}
}

// TestChecksDoc fails when docs/checks.md no longer matches the registry;
// go test ./checks -update regenerates it.
func TestChecksDoc(t *testing.T) {
	path := filepath.Join("..", "docs", "checks.md")
	got := Describe(Registry)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./checks -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("docs/checks.md is stale; run go test ./checks -update (-file +registry):\n%s", diff)
	}
}
