package hostile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func TestWriters(t *testing.T) {
	tests := []struct {
		name   string
		write  func(io.Writer) (int64, error)
		lines  int
		runs   int
		result int // the size of every tool result, when there are any
	}{
		{"results", func(w io.Writer) (int64, error) { return Results(w, 5, 1000, false) }, 3 + 10 + 3 + 3, 1, 1000},
		{"identical results", func(w io.Writer) (int64, error) { return Results(w, 5, 1000, true) }, 19, 1, 1000},
		{"tiny events", func(w io.Writer) (int64, error) { return TinyEvents(w, 100) }, 100, 1, 0},
		{"unfinished ahead", func(w io.Writer) (int64, error) { return UnfinishedAhead(w, 4) }, 1 + 4*6, 5, 0},
		{"repeated finding", func(w io.Writer) (int64, error) { return RepeatedFinding(w, 7) }, 3 + 7 + 3, 1, 0},
		{"many runs", func(w io.Writer) (int64, error) { return ManyRuns(w, 9) }, 9, 9, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a, b bytes.Buffer
			n, err := tt.write(&a)
			if err != nil || n != int64(a.Len()) {
				t.Fatalf("wrote %d bytes, said %d, %v", a.Len(), n, err)
			}
			if tt.write(&b); !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Error("two writes differ")
			}
			runs := map[string]bool{}
			results := map[string]bool{}
			sc := bufio.NewScanner(&a)
			sc.Buffer(nil, 1<<20)
			lines := 0
			for sc.Scan() {
				lines++
				var ev struct {
					Type    string
					Payload struct{ Result *string }
					Meta    struct{ RunID string }
				}
				if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || !strings.HasPrefix(ev.Type, "agentfootprint.") || ev.Meta.RunID == "" {
					t.Fatalf("line %d: %v: %.200s", lines, err, sc.Text())
				}
				runs[ev.Meta.RunID] = true
				if r := ev.Payload.Result; r != nil && strings.HasPrefix(*r, "IDS ") {
					if len(*r) != tt.result {
						t.Errorf("line %d: a result of %d bytes, want %d", lines, len(*r), tt.result)
					}
					results[*r] = true
				}
			}
			if lines != tt.lines || len(runs) != tt.runs {
				t.Errorf("%d lines of %d runs, want %d of %d", lines, len(runs), tt.lines, tt.runs)
			}
			if tt.name == "results" && len(results) != 5 || tt.name == "identical results" && len(results) != 1 {
				t.Errorf("%d distinct results", len(results))
			}
		})
	}
}

func TestBomb(t *testing.T) {
	for _, codec := range []string{"zstd", "gzip"} {
		for _, pad := range []int64{0, 1000, 3<<20 + 5, 16 << 20, 33<<20 + 1} {
			var b bytes.Buffer
			if _, err := Bomb(&b, codec, pad); err != nil {
				t.Fatal(err)
			}
			var r io.Reader
			if codec == "zstd" {
				zr, err := zstd.NewReader(&b)
				if err != nil {
					t.Fatal(err)
				}
				defer zr.Close()
				r = zr
			} else {
				gr, err := gzip.NewReader(&b)
				if err != nil {
					t.Fatal(err)
				}
				r = gr
			}
			plain, err := io.ReadAll(r)
			if err != nil {
				t.Fatalf("%s %d: %v", codec, pad, err)
			}
			first, rest, _ := bytes.Cut(plain, []byte("\n"))
			if !json.Valid(first) || int64(len(rest)) != pad || len(bytes.TrimSpace(rest)) != 0 {
				t.Errorf("%s %d: a first line of %d bytes (valid %v) and %d bytes of padding", codec, pad, len(first), json.Valid(first), len(rest))
			}
		}
	}
	if _, err := Bomb(io.Discard, "lz4", 1); err == nil {
		t.Error("an unknown codec was accepted")
	}
}

func TestArmAll(t *testing.T) {
	got := ArmAll([]string{"a", "b"})
	for _, want := range []string{"  \"a\":\n    argumentsFrom: [\"b\"]\n", "maps:\n  - { id: skill-map, tools: [\"a\"] }", "checkColumnTypes: warn"} {
		if !strings.Contains(got, want) {
			t.Errorf("ArmAll lacks %q:\n%s", want, got)
		}
	}
}
