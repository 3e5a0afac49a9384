package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		says string // the error, when refused
	}{
		{"0", 0, ""},
		{"1048576", 1 << 20, ""},
		{"128MiB", 128 << 20, ""},
		{"128 MiB", 128 << 20, ""},
		{"128mib", 128 << 20, ""},
		{"8GiB", 8 << 30, ""},
		{"2TiB", 2 << 40, ""},
		{"64KiB", 64 << 10, ""},
		{"500B", 500, ""},
		{"64KB", 64000, ""},
		{"64MB", 64e6, ""},
		{"1GB", 1e9, ""},
		{"3TB", 3e12, ""},
		{"8388607TiB", 8388607 << 40, ""},
		{"-1", 0, "cannot be negative"},
		{"-128MiB", 0, "cannot be negative"},
		{"1.5GiB", 0, "whole number"},
		{"0.5", 0, "whole number"},
		{"", 0, "not a size"},
		{"MiB", 0, "not a size"},
		{"64k", 0, `unknown unit "k"`},
		{"12XB", 0, `unknown unit "XB"`},
		{"9223372036854775808", 0, "larger than fpcheck can count"},
		{"8388608TiB", 0, "larger than fpcheck can count"},
		{"10000000000GB", 0, "larger than fpcheck can count"},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		switch {
		case tt.says == "" && (err != nil || got != tt.want):
			t.Errorf("parseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		case tt.says != "" && (err == nil || !strings.Contains(err.Error(), tt.says)):
			t.Errorf("parseSize(%q) = %d, %v; want an error saying %q", tt.in, got, err, tt.says)
		}
	}
}

// TestSizeFlags: every byte-size limit takes a size with a unit, and one
// that is no size is a usage error naming the flag.
func TestSizeFlags(t *testing.T) {
	const rec = "../../testdata/recordings/formats/clean.jsonl"
	for _, args := range [][]string{
		{"analyze", "-j", "1", "--max-run-bytes", "128MiB", rec},
		{"analyze", "--max-line-bytes", "64MiB", "--max-decompressed-bytes", "1GB", "--max-packed-expansion=2GiB", rec},
		{"diff", "--max-run-bytes", "64MiB", rec, rec},
		{"merge", "--max-line-bytes", "1MiB", rec},
		{"explain", "--max-line-bytes", "1MiB", rec},
		{"declarations", "init", "--max-line-bytes", "1MiB", "--max-decompressed-bytes", "8GiB", rec},
	} {
		if code, _, stderr := run(t, nil, args...); code != 0 && code != 3 {
			t.Errorf("%v: exit %d, want a report:\n%s", args, code, stderr)
		}
	}
	for _, flag := range []string{"--max-line-bytes", "--max-decompressed-bytes", "--max-run-bytes", "--max-packed-expansion"} {
		for _, v := range []string{"-1", "1.5GiB", "128XB"} {
			code, stdout, stderr := run(t, nil, "analyze", flag, v, rec)
			if code != 2 || stdout != "" || !strings.Contains(stderr, `invalid argument "`+v+`" for "`+flag+`" flag`) {
				t.Errorf("%s %s: exit %d, stderr %q; want exit 2 naming the flag", flag, v, code, stderr)
			}
		}
	}
}

// TestDocsSizesParse: a byte-size limit the docs give in an example is
// one the flag takes.
func TestDocsSizesParse(t *testing.T) {
	re := regexp.MustCompile("--max-(?:line|run|decompressed)-bytes[ =]([0-9][0-9A-Za-z]*)|--max-packed-expansion[ =]([0-9][0-9A-Za-z]*)")
	for _, doc := range []string{"security.md", "recording-format.md", "performance.md", "ci.md"} {
		data, err := os.ReadFile("../../docs/" + doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			if _, err := parseSize(m[1] + m[2]); err != nil {
				t.Errorf("docs/%s: %q: %v", doc, m[0], err)
			}
		}
	}
}
