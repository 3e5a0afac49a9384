//go:build !fpcheck_nogcs

package main

import (
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/internal/objstore/gcsfake"
)

// The same inputs read from Cloud Storage (an in-process fake of its JSON
// API, reached through STORAGE_EMULATOR_HOST as Google's emulators are)
// and from a directory give the same report. The fake serves two entries
// a page, so every listing spans pages.
func TestObjectStorageGCSReadsAsFiles(t *testing.T) {
	gcs := gcsfake.New(t)
	gcs.PageSize = 2
	t.Setenv("STORAGE_EMULATOR_HOST", gcs.Host)
	local := stageBucketInputs(t, t.TempDir(), func(key string, data []byte) { gcs.Put("recordings", key, data) })
	for _, tc := range []struct{ name, query string }{
		{"gs", ""},
		{"gs anonymous", "?anonymous=true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkBucketReadsAsFiles(t, local, func(key string) string { return "gs://recordings/" + key + tc.query })
		})
	}
	for _, tc := range []struct{ url, stderr string }{
		{"gs://nowhere/" + bucketDay, "gs://nowhere/" + bucketDay + ": not found: blob (code=NotFound): Cloud Storage answered 404 Not Found: The specified bucket does not exist."},
		{"gs://recordings/" + bucketDay + "?grpc=true", "gs://recordings/" + bucketDay + `: invalid query parameter "grpc"`},
	} {
		if code, _, stderr := run(t, nil, "analyze", tc.url); code != int(ExitUsage) || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%s: exit %d, %q", tc.url, code, stderr)
		}
	}
}
