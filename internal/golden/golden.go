// Package golden holds the tests' golden files to the output they check:
// one comparison, and one way of rewriting them under -update, for every
// package whose tests keep goldens.
package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Compare fails t when got differs from the golden file at path, showing
// the difference; with update it writes got there instead (creating the
// file's directory). Escape bytes are shown escaped, so a coloured report's
// difference reads in a terminal.
func Compare(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the package's tests with -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (-want +got):\n%s", path, cmp.Diff(escapeControls(string(want)), escapeControls(string(got))))
	}
}

func escapeControls(s string) string {
	return strings.ReplaceAll(s, "\x1b", `\x1b`)
}
