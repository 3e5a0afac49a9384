package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestJUnitValidatesAgainstXSD renders every format case, and every diff
// case, as JUnit and has
// xmllint validate it against the Jenkins xunit junit-10.xsd kept under
// testdata/junit. Without xmllint the test skips, except under CI=true,
// where a missing tool must not pass for a valid file.
func TestJUnitValidatesAgainstXSD(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("xmllint (Debian libxml2-utils) is missing; tools/test-deps.sh installs it")
		}
		t.Skip("xmllint not installed (Debian libxml2-utils)")
	}
	schema := filepath.Join("..", "testdata", "junit", "junit-10.xsd")
	dir := t.TempDir()
	validate := func(t *testing.T, name string, xml []byte) {
		f := filepath.Join(dir, name+".xml")
		if err := os.WriteFile(f, xml, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(xmllint, "--noout", "--schema", schema, f).CombinedOutput()
		if err != nil {
			t.Errorf("junit-10.xsd refuses the %s output: %v\n%s", name, err, out)
		}
	}
	cases := append(formatCases(), formatCase{name: "damaged-declared", inputs: []string{"report/full.jsonl", "report/interleaved.jsonl", "report/empty.jsonl", "report/missing.jsonl"}, tweak: addDamage})
	for _, fc := range cases {
		t.Run(fc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := RenderJUnit(&b, buildFormatCase(t, fc), testRenderOptions()); err != nil {
				t.Fatal(err)
			}
			validate(t, fc.name, b.Bytes())
		})
	}
	for _, dc := range diffCases() {
		t.Run("diff-"+dc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := RenderDiffJUnit(&b, buildDiff(t, dc), testRenderOptions()); err != nil {
				t.Fatal(err)
			}
			validate(t, "diff-"+dc.name, b.Bytes())
		})
	}
}
