package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestJUnitValidatesAgainstXSD renders every format case as JUnit and has
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
	cases := append(formatCases(), formatCase{name: "damaged-declared", inputs: []string{"report/full.jsonl", "report/interleaved.jsonl", "report/empty.jsonl", "report/missing.jsonl"}, tweak: addDamage})
	for _, fc := range cases {
		t.Run(fc.name, func(t *testing.T) {
			r := buildFormatCase(t, fc)
			var b bytes.Buffer
			if err := RenderJUnit(&b, r, testRenderOptions()); err != nil {
				t.Fatal(err)
			}
			f := filepath.Join(dir, fc.name+".xml")
			if err := os.WriteFile(f, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(xmllint, "--noout", "--schema", schema, f).CombinedOutput()
			if err != nil {
				t.Errorf("junit-10.xsd refuses the %s output: %v\n%s", fc.name, err, out)
			}
		})
	}
}
