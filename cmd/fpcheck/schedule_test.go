package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/internal/synth"
	"github.com/google/go-cmp/cmp"
)

func TestStartOrder(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, size int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small := file("small.jsonl", 100)
	small2 := file("small2.jsonl", 100)
	big := file("big.json", 5000)
	packed := file("packed.jsonl.zst", 600) // 6000 bytes once read
	packedUpper := file("PACKED.JSONL.ZSTD", 400)
	rotated := file("rotated.jsonl", 3000)
	file("rotated.jsonl.1", 2500) // read with rotated.jsonl: 5500 in all
	missing := filepath.Join(dir, "missing.jsonl")

	tests := []struct {
		name      string
		inputs    []string
		noRotated bool
		want      []string
	}{
		{"largest first", []string{small, big, small2}, false, []string{big, small, small2}},
		{"equal sizes keep the argument order", []string{small2, small}, false, []string{small2, small}},
		{"a zstd input counts what it unpacks to", []string{big, packed, packedUpper}, false, []string{packed, big, packedUpper}},
		{"a rotated sibling counts with its stream", []string{big, rotated}, false, []string{rotated, big}},
		{"without rotated siblings it does not", []string{big, rotated}, true, []string{big, rotated}},
		{"unknown sizes first, unreadable last", []string{missing, small, "-", big, os.DevNull}, false, []string{"-", os.DevNull, big, small, missing}},
		{"nothing", nil, false, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []string{}
			seen := map[int]bool{}
			for _, i := range startOrder(tt.inputs, tt.noRotated) {
				if seen[i] {
					t.Fatalf("index %d started twice", i)
				}
				seen[i] = true
				got = append(got, tt.inputs[i])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("start order (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLargestFirstKeepsInputOrder: inputs given smallest first start in the
// opposite order, yet the report lists them, and their runs, as given, in
// the bytes a one-core run writes.
func TestLargestFirstKeepsInputOrder(t *testing.T) {
	dir := t.TempDir()
	var args []string
	for i, iterations := range []int{1, 3, 6, 12} {
		args = append(args, writeStream(t, dir, fmt.Sprintf("run-%d.jsonl", i), 2, iterations))
	}
	if order := startOrder(args, false); order[0] != len(args)-1 {
		t.Fatalf("start order %v: the largest input is not first", order)
	}
	code1, out1, _ := run(t, nil, append([]string{"analyze", "--format", "json", "-j", "1"}, args...)...)
	code3, out3, _ := run(t, nil, append([]string{"analyze", "--format", "json", "-j", "3"}, args...)...)
	if code1 != code3 || out1 != out3 {
		t.Fatalf("-j 3 differs from -j 1: exit %d vs %d\n%s", code3, code1, cmp.Diff(out1, out3))
	}
	var rep struct {
		Inputs []struct{ Path string }
	}
	if err := json.Unmarshal([]byte(out3), &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range rep.Inputs {
		got = append(got, in.Path)
	}
	if diff := cmp.Diff(args, got); diff != "" {
		t.Errorf("report inputs (-want +got):\n%s", diff)
	}
}

// TestCoresLentAndReturned: a stream still being read when the other inputs
// are done borrows their cores, for its decoders and its replays; whatever
// the timing, the report is the one-core report and every core of the
// budget is back at the end.
func TestCoresLentAndReturned(t *testing.T) {
	dir := t.TempDir()
	inputs := []string{writeStream(t, dir, "a.jsonl", 1, 1), writeStream(t, dir, "stream.jsonl", 8, 12), writeStream(t, dir, "bc.jsonl", 1, 2)}
	decls := filepath.Join(dir, "armed.yaml")
	if err := os.WriteFile(decls, []byte(armed), 0o644); err != nil {
		t.Fatal(err)
	}
	ios := &IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}, Getenv: testEnv}
	for _, o := range []loadOptions{{}, {Declarations: decls}, {Declarations: decls, Posture: "dev"}} {
		flags := []string{"analyze", "--format", "json"}
		if o.Declarations != "" {
			flags = append(flags, "--declarations", o.Declarations)
		}
		if o.Posture != "" {
			flags = append(flags, "--posture", o.Posture)
		}
		_, want, _ := run(t, nil, append(append(flags, "-j", "1"), inputs...)...)
		for _, jobs := range []int{2, 3, 5} {
			o.Jobs = jobs
			p, err := newPipeline(o)
			if err != nil {
				t.Fatal(err)
			}
			p.run(inputs, ios, nil)
			if got := p.spare.Load(); got != int64(jobs) {
				t.Errorf("%v -j %d: %d cores spare at the end, want all %d", flags, jobs, got, jobs)
			}
			_, got, _ := run(t, nil, append(append(flags, "-j", fmt.Sprint(jobs)), inputs...)...)
			if got != want {
				t.Errorf("%v -j %d differs from -j 1:\n%s", flags, jobs, cmp.Diff(want, got))
			}
		}
	}
}

// writeStream writes a generated stream of runs runs of iterations model
// calls each into dir, its content chosen by its name.
func writeStream(t *testing.T, dir, name string, runs, iterations int) string {
	t.Helper()
	var b bytes.Buffer
	c := synth.DefaultConfig()
	c.Runs, c.Iterations = runs, iterations
	for _, r := range name {
		c.Seed = c.Seed*31 + int64(r)
	}
	if _, err := synth.WriteNDJSON(&b, c); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
