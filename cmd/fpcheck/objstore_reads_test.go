package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// bucketInputs are the objects the object storage tests read: two
// recordings, one corrupted in transit, one that is no recording.
var bucketInputs = map[string]string{
	"ok.jsonl":              "../../testdata/recordings/formats/clean.jsonl",
	"runs/defect.jsonl":     "../../testdata/recordings/formats/defect.jsonl",
	"runs/corrupt.jsonl.gz": "../../testdata/recordings/hostile/corrupt.jsonl.gz",
	"runs/text.log":         "../../testdata/recordings/hostile/text.log",
	".hidden/skipped.jsonl": "../../testdata/recordings/formats/defect.jsonl",
	"notes.md":              "../../testdata/recordings/demo/README.md",
}

// bucketDay is the prefix bucketInputs are stored under in a bucket.
const bucketDay = "2026-12-01"

// streamOffsets are the byte offsets a read error is reported near.
var streamOffsets = regexp.MustCompile(`offset [0-9]+`)

// listingDigest is the digest of the paths a JSON report's inputs were
// named by, which differ wherever the same inputs are read from.
var listingDigest = regexp.MustCompile(`"listing": "sha256:[0-9a-f]+"`)

// stageBucketInputs writes bucketInputs into dir/day, and through put
// into a bucket under bucketDay; it returns the directory.
func stageBucketInputs(t *testing.T, dir string, put func(key string, data []byte)) string {
	t.Helper()
	local := filepath.Join(dir, "day")
	for key, src := range bucketInputs {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		put(bucketDay+"/"+key, data)
		p := filepath.Join(local, filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return local
}

// checkSameReports asserts that url, shown in reports as shown, gives the
// report local gives, in every format, with the same exit code: the same
// sniffing, limits and loss accounting.
func checkSameReports(t *testing.T, local, url, shown string) {
	t.Helper()
	for _, format := range []string{"json", "text", "jsonl", "markdown", "junit"} {
		wantCode, want, _ := run(t, nil, "analyze", "--format", format, local)
		code, got, stderr := run(t, nil, "analyze", "--format", format, url)
		if code != wantCode {
			t.Errorf("%s: exit %d from the bucket, %d from the directory (%s)", format, code, wantCode, stderr)
		}
		got = strings.ReplaceAll(got, shown, local)
		if format == "markdown" {
			// Markdown keeps a URL from being linked (report.MarkdownEscape).
			got = strings.ReplaceAll(got, strings.Replace(shown, "://", ":\u200b//", 1), local)
		}
		// Where a corrupt stream is noticed depends on how its bytes
		// arrive: a network body comes in smaller reads.
		got, want = streamOffsets.ReplaceAllString(got, "offset N"), streamOffsets.ReplaceAllString(want, "offset N")
		got, want = listingDigest.ReplaceAllString(got, "listing"), listingDigest.ReplaceAllString(want, "listing")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: the bucket's report differs from the directory's (-directory +bucket):\n%s", format, diff)
		}
	}
}

// checkBucketReadsAsFiles asserts that the inputs stageBucketInputs put in
// a bucket read as the directory local does, whether the prefix is named
// with a trailing slash or without; that SARIF names an object by its
// URL; that one object named itself is one input; and that an empty
// prefix is said. at gives the URL of a key in the bucket.
func checkBucketReadsAsFiles(t *testing.T, local string, at func(key string) string) {
	t.Helper()
	name := func(key string) string {
		u, _, _ := strings.Cut(at(key), "?")
		return u
	}
	t.Run("prefix", func(t *testing.T) { checkSameReports(t, local, at(bucketDay), name(bucketDay)) })
	t.Run("prefix with a trailing slash", func(t *testing.T) { checkSameReports(t, local, at(bucketDay+"/"), name(bucketDay)) })
	if _, out, _ := run(t, nil, "analyze", "--format", "sarif", at(bucketDay)); !strings.Contains(out, `"uri": "`+name(bucketDay+"/runs/defect.jsonl")+`"`) {
		t.Errorf("SARIF does not name the object by its URL:\n%s", head(out))
	}
	code, out, _ := run(t, nil, "analyze", at(bucketDay+"/runs/defect.jsonl"))
	if code != int(ExitDefects) || !strings.Contains(out, name(bucketDay+"/runs/defect.jsonl")) {
		t.Errorf("one object: exit %d\n%s", code, head(out))
	}
	code, _, stderr := run(t, nil, "analyze", at("2026-11-30"))
	if code != int(ExitUsage) || !strings.Contains(stderr, name("2026-11-30")+": no recording objects under this prefix") {
		t.Errorf("empty prefix: exit %d, %q", code, stderr)
	}
	// --exclude keeps objects out as it keeps files out of the directory:
	// a prefix by its name, an object by a pattern on its path.
	for _, pattern := range []string{"runs", "runs/*.gz"} {
		wantCode, want, _ := run(t, nil, "analyze", "--exclude", pattern, local)
		code, got, stderr := run(t, nil, "analyze", "--exclude", pattern, at(bucketDay))
		if code != wantCode || strings.Count(got, "EXCLUDED") != strings.Count(want, "EXCLUDED") || !strings.Contains(got, "matches --exclude '"+pattern+"'") {
			t.Errorf("--exclude %s: exit %d from the bucket, %d from the directory (%s)\nbucket:\n%s\ndirectory:\n%s", pattern, code, wantCode, stderr, head(got), head(want))
		}
	}
}
