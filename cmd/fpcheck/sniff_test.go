package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFormatStatedLate analyses an artifact written with its payload,
// larger than the 64 KiB the format is told from, ahead of its format: as
// a file it reads as the artifact it is, as the same artifact written in
// the usual order does; from standard input, which cannot be read twice,
// it is refused as undecidable (exit 2), never read as a stream with a
// cut-off line.
func TestFormatStatedLate(t *testing.T) {
	plain, err := os.ReadFile("../../testdata/recordings/loader/recording.json")
	if err != nil {
		t.Fatal(err)
	}
	padded := append([]byte(`{"structure":"`+strings.Repeat("x", 70_000)+`",`), plain[1:]...)
	value, _ := json.Marshal(string(padded))
	payload := `"payload":{"shape":"text","value":` + string(value) + `}`
	dir := t.TempDir()
	usual, late := filepath.Join(dir, "usual.json"), filepath.Join(dir, "late.json")
	os.WriteFile(usual, []byte(`{"format":1,"meta":{"kind":"recording/run"},`+payload+`}`), 0o644)
	os.WriteFile(late, []byte(`{`+payload+`,"meta":{"kind":"recording/run"},"format":1}`), 0o644)

	wantCode, wantOut, _ := run(t, nil, "analyze", "--color=never", usual)
	code, out, stderr := run(t, nil, "analyze", "--color=never", late)
	if code != wantCode || strings.ReplaceAll(out, "late.json", "usual.json") != wantOut {
		t.Errorf("exit %d, want %d as in the usual order\nstdout:\n%s\nstderr:\n%s", code, wantCode, head(out), stderr)
	}
	if !strings.Contains(out, "Read an artifact document") {
		t.Errorf("not read as an artifact:\n%s", head(out))
	}

	data, _ := os.ReadFile(late)
	code, out, stderr = run(t, bytes.NewReader(data), "analyze", "--color=never", "-")
	if code != 2 || !strings.Contains(out, "cannot tell what it is") || strings.Contains(out, "cut off") {
		t.Errorf("from standard input: exit %d, want 2 and undecidable\nstdout:\n%s\nstderr:\n%s", code, head(out), stderr)
	}
}
