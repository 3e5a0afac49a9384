package recording

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func zstdBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}

func gzipBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCompression reads compressed copies of fixtures of every format and
// expects exactly what the plain file gives, apart from the compression.
func TestCompression(t *testing.T) {
	for _, file := range []string{"ndjson-two-runs.jsonl", "ndjson-malformed.jsonl", "recording.json", "envelope.json", "artifact.json"} {
		plain := readFixture(t, file)
		want, err := loadBytes(t, "x", plain, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			data []byte
		}{{"zstd", zstdBytes(t, plain)}, {"gzip", gzipBytes(t, plain)}} {
			t.Run(file+"."+c.name, func(t *testing.T) {
				got, err := loadBytes(t, "x", c.data, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if got.Stats.Compression != c.name {
					t.Errorf("compression = %q", got.Stats.Compression)
				}
				got.Stats.Compression = "none"
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("compressed input differs (-plain +compressed):\n%s", diff)
				}
			})
		}
	}
}

func TestCorruptCompressed(t *testing.T) {
	plain := bytes.Repeat(readFixture(t, "ndjson-two-runs.jsonl"), 200)
	z := zstdBytes(t, plain)
	corrupt := append([]byte(nil), z...)
	for i := len(corrupt) / 2; i < len(corrupt)/2+64; i++ {
		corrupt[i] ^= 0x5a
	}
	g := gzipBytes(t, plain)
	// Written as zstd --long=28 writes: the frame asks for a 256 MiB window.
	var long bytes.Buffer
	enc, err := zstd.NewWriter(&long, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(256<<20))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := enc.Write(plain); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	// A frame of 16 bytes (so a window of 1 KiB, the least) whose one raw
	// block says it holds 2,000: the decoder calls a block larger than its
	// frame's window the way it calls a window larger than it allows.
	oversized := append(append([]byte(nil), magicZstd...), 0x20, 16, 0x81, 0x3e, 0x00)
	oversized = append(oversized, bytes.Repeat([]byte{'x'}, 2000)...)
	cases := []struct {
		name string
		data []byte
		want []string
		// notWant is advice that would mislead for this input.
		notWant []string
	}{
		{"corrupt zstd", corrupt, []string{"x.zst: corrupt zstd data near compressed byte offset", "decompressed byte offset"}, nil},
		{"zstd window too large", long.Bytes(), []string{"x.zst: the zstd stream asks for a window of 256 MiB, larger than the 128 MiB this reader allows; recompress with a smaller window"}, nil},
		{"zstd block larger than its window", oversized, []string{"x.zst: corrupt zstd data (a block larger than its frame's window, or a later frame asking for a window larger than 128 MiB) near compressed byte offset"}, []string{"recompress"}},
		{"truncated zstd", z[:len(z)/2], []string{"x.zst:", "zstd"}, nil},
		{"truncated gzip", g[:len(g)/2], []string{"x.zst: the gzip stream ends early (truncated) near compressed byte offset"}, nil},
		{"zstd magic only", magicZstd, []string{"x.zst:", "zstd"}, nil},
		{"xz", append(append([]byte(nil), magicXz...), 1, 2, 3), []string{"xz-compressed data"}, nil},
		{"zip", []byte("PK\x03\x04rest of a zip"), []string{"a zip archive"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadBytes(t, "x.zst", tc.data, Options{})
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want an *InputError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(err.Error(), w) {
					t.Errorf("error %q contains %q", err, w)
				}
			}
			if strings.Contains(tc.name, "corrupt") && ie.Offset <= 0 {
				t.Errorf("no offset in %+v", ie)
			}
		})
	}
}

// TestDecompressionBomb caps a highly compressible input well below its
// real size.
func TestDecompressionBomb(t *testing.T) {
	plain := bytes.Repeat([]byte("\n"), 64<<20)
	for _, c := range []struct {
		name string
		data []byte
	}{{"zstd", zstdBytes(t, plain)}, {"gzip", gzipBytes(t, plain)}} {
		t.Run(c.name, func(t *testing.T) {
			if len(c.data) > 1<<20 {
				t.Fatalf("test input compresses to %d bytes, not a bomb", len(c.data))
			}
			_, err := loadBytes(t, "bomb", c.data, Options{MaxDecompressedBytes: 4 << 20})
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), "decompresses to more than 4 MiB (limit set by --max-decompressed-bytes)") {
				t.Errorf("err = %v", err)
			}
		})
	}
}

// nestedSnapshot is a compact recording whose snapshot nests depth levels
// (alternating objects and arrays) around parkedToolNames-free data.
func nestedSnapshot(depth int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"snapshot":{"sharedState":{"parkedToolNames":["x"]},"executionTree":`)
	for i := 0; i < depth; i++ {
		if i%2 == 0 {
			b.WriteString(`{"next":`)
		} else {
			b.WriteString(`[`)
		}
	}
	b.WriteString(`null`)
	for i := depth - 1; i >= 0; i-- {
		if i%2 == 0 {
			b.WriteString(`}`)
		} else {
			b.WriteString(`]`)
		}
	}
	b.WriteString(`},"events":[`)
	ev, _ := json.Marshal(map[string]any{"type": TypeRunConfigured, "payload": map[string]any{}, "meta": map[string]any{"runId": "run-1"}})
	b.Write(ev)
	b.WriteString(`]}`)
	return b.Bytes()
}

func TestDeepNesting(t *testing.T) {
	t.Run("2500 levels load", func(t *testing.T) {
		got, err := loadBytes(t, "deep.json", nestedSnapshot(2500), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Runs) != 1 || got.Runs[0].Snapshot == nil || !cmp.Equal(got.Runs[0].Snapshot.ParkedToolNames, []string{"x"}) {
			t.Errorf("got %+v", got.Runs)
		}
	})
	t.Run("200000 levels refused", func(t *testing.T) {
		_, err := loadBytes(t, "hostile.json", nestedSnapshot(200_000), Options{})
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "hostile.json: line 1: nesting deeper than 100000 levels") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("200000 levels inside an artifact", func(t *testing.T) {
		inner, _ := json.Marshal(string(nestedSnapshot(200_000)))
		doc := fmt.Sprintf(`{"format":1,"meta":{"kind":"recording/run"},"payload":{"shape":"text","value":%s}}`, inner)
		_, err := loadBytes(t, "hostile-artifact.json", []byte(doc), Options{})
		if !strings.Contains(fmt.Sprint(err), "in the recording text stored in payload.value, nesting deeper than 100000 levels") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("deep NDJSON line is malformed, not fatal", func(t *testing.T) {
		line := `{"type":"agentfootprint.x","payload":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `,"meta":{"runId":"r"}}` + "\n"
		got, err := loadBytes(t, "deep.jsonl", []byte(line+line), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Stats.Malformed != 2 || got.Stats.Format != FormatNDJSON {
			t.Errorf("got %+v", got.Stats)
		}
	})
}

func TestLongLine(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	ev := func(typ string) string {
		b, _ := json.Marshal(map[string]any{"type": typ, "payload": map[string]any{"result": big}, "meta": map[string]any{"runId": "run-1"}})
		return string(b)
	}
	short := `{"type":"agentfootprint.agent.run_configured","payload":{},"meta":{"runId":"run-1"}}`
	data := []byte(short + "\n" + ev(TypeToolEnd) + "\n" + ev(TypeDisposition) + "\n")
	got, err := loadBytes(t, "long.jsonl", data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Stats.Events != 3 || len(got.Runs) != 1 || got.Runs[0].Events[2] != "line 3 index 2 "+TypeDisposition {
		t.Errorf("got %+v %+v", got.Stats, got.Runs)
	}
	_, err = loadBytes(t, "long.jsonl", data, Options{MaxLineBytes: 1 << 20})
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 2 || err.Error() != "long.jsonl: line 2: the line is longer than 1 MiB (limit set by --max-line-bytes)" {
		t.Errorf("err = %v", err)
	}
	// The same limit holds for one element of a recording's events array.
	doc := []byte(`{"events":[` + ev(TypeToolEnd) + `]}`)
	_, err = loadBytes(t, "long.json", doc, Options{MaxLineBytes: 1 << 20})
	if !strings.Contains(fmt.Sprint(err), "events[0] is longer than 1 MiB (limit set by --max-line-bytes)") {
		t.Errorf("err = %v", err)
	}
}

// TestArtifactEscapes checks that a recording stored as a JSON string is
// un-escaped exactly: \u escapes, surrogate pairs and a lone surrogate.
func TestArtifactEscapes(t *testing.T) {
	rec := `{"events":[{"type":"agentfootprint.agent.turn_start","payload":{"userPrompt":"caf\u00e9 \ud83d\ude00 \ud800 tab\t quote\" slash\/"},"meta":{"runId":"run-1"}}]}`
	value, _ := json.Marshal(rec)
	// Force escapes the Go encoder would not write.
	value = bytes.Replace(value, []byte("events"), []byte(`\u0065vents`), 1)
	doc := `{"format":1,"meta":{"kind":"recording/run"},"payload":{"shape":"text","value":` + string(value) + `}}`
	var gotPrompt string
	_, err := LoadReader("a.json", strings.NewReader(doc), Options{}, func(r *Run) error {
		var p struct{ UserPrompt string }
		json.Unmarshal(r.Events[0].Payload, &p)
		gotPrompt = p.UserPrompt
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Events []struct{ Payload struct{ UserPrompt string } }
	}
	if err := json.Unmarshal([]byte(rec), &want); err != nil {
		t.Fatal(err)
	}
	if gotPrompt != want.Events[0].Payload.UserPrompt {
		t.Errorf("prompt %q, want %q", gotPrompt, want.Events[0].Payload.UserPrompt)
	}
}

func TestSyntaxErrorInDocument(t *testing.T) {
	doc := "{\n  \"events\": [\n    {\"type\": \"agentfootprint.x\", \"meta\": {\"runId\": \"r\"}},\n    {\"type\": tru}\n  ]\n}\n"
	_, err := loadBytes(t, "broken.json", []byte(doc), Options{})
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 4 || !strings.Contains(err.Error(), "broken.json: line 4: malformed JSON at byte offset") {
		t.Errorf("err = %v", err)
	}
}

// TestRotatedProblemsNameTheFile checks that a problem in the older half of
// a rotated pair names that file, and that a rotated pair with a damaged
// .1 still joins its runs.
func TestRotatedProblemsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "run.jsonl")
	older := readFixture(t, "rotated/run.jsonl.1")
	older = append([]byte("not json\n"), older...)
	if err := os.WriteFile(main+".1", older, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(main, readFixture(t, "rotated/run.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := loadFile(t, main, Options{})
	if got.Error != "" {
		t.Fatal(got.Error)
	}
	want := Problem{Line: 1, Message: main + `.1: malformed: not valid JSON (invalid character 'o' in literal null (expecting 'u'), at byte 2): "not json"`}
	if len(got.Stats.Problems) != 1 || got.Stats.Problems[0] != want {
		t.Errorf("problems %+v, want %+v", got.Stats.Problems, want)
	}
	if got.Stats.Rotated != main+".1" || got.Stats.Lines != 13 || len(got.Runs) != 2 || got.Runs[0].HeadMissing {
		t.Errorf("got %+v, runs %+v", got.Stats, got.Runs)
	}
	// A .1 beside a document is not a rotated half: it is left unread, and
	// the problem says so.
	doc := filepath.Join(dir, "recording.json")
	os.WriteFile(doc, readFixture(t, "recording.json"), 0o644)
	os.WriteFile(doc+".1", readFixture(t, "ndjson-two-runs.jsonl"), 0o644)
	got = loadFile(t, doc, Options{})
	if got.Error != "" || got.Stats.Rotated != "" || !strings.Contains(got.Stats.Problems[0].Message, "recording.json.1 was not read") {
		t.Errorf("got %+v", got.Stats)
	}
}

// TestUnreadableRotatedHalf: a rotated half that cannot be read makes its
// input unreadable wherever the failure comes, at the sniff of its first
// bytes or further in; the newer half is never judged as if it were the
// whole stream. A half that is no recording at all does not make the input
// one a directory walk would skip.
func TestUnreadableRotatedHalf(t *testing.T) {
	two := readFixture(t, "ndjson-two-runs.jsonl")
	long := gzipBytes(t, bytes.Repeat(two, 40)) // past the sniff window
	tests := []struct {
		name  string
		older []byte
		want  string
	}{
		{"truncated within the sniff", gzipBytes(t, two)[:200], "run.jsonl.1: the gzip stream ends early (truncated)"},
		{"truncated past the sniff", long[:len(long)-20], "run.jsonl.1: the gzip stream ends early (truncated)"},
		{"no recording", []byte("\x89PNG garbage"), "run.jsonl.1: it sits where the rotated half of " + "%s would, but is not an agentfootprint recording: binary data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			main := filepath.Join(t.TempDir(), "run.jsonl")
			os.WriteFile(main, two, 0o644)
			os.WriteFile(main+".1", tt.older, 0o644)
			st, err := Load(main, Options{}, nil)
			var ie *InputError
			if !errors.As(err, &ie) || ie.Path != main+".1" || !strings.Contains(err.Error(), strings.ReplaceAll(tt.want, "%s", main)) {
				t.Fatalf("err = %v, want an input error containing %q", err, tt.want)
			}
			if errors.Is(err, ErrNotRecording) {
				t.Errorf("err %v says the input is no recording", err)
			}
			if st.Rotated != main+".1" || st.Format != FormatNDJSON {
				t.Errorf("stats rotated %q, format %q", st.Rotated, st.Format)
			}
		})
	}
}
