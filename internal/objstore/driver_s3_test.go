//go:build !fpcheck_nos3

package objstore

import (
	"bytes"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// s3Env points the AWS SDK at static test credentials and away from every
// file and metadata service it would otherwise consult.
func s3Env(t *testing.T) {
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           "fpcheck-test",
		"AWS_SECRET_ACCESS_KEY":       "fpcheck-test-secret",
		"AWS_REGION":                  "us-east-1",
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_CONFIG_FILE":             filepath.Join(dir, "no-aws-config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "no-aws-credentials"),
	} {
		t.Setenv(k, v)
	}
}

func init() {
	stallFixtures["s3"] = stallFixture{
		start: func(t *testing.T, wrap func(http.Handler) http.Handler) string {
			s3Env(t)
			backend := s3mem.New()
			if err := backend.CreateBucket("bucket"); err != nil {
				t.Fatal(err)
			}
			if _, err := backend.PutObject("bucket", "day/a.jsonl", map[string]string{}, bytes.NewReader(stallObject), int64(len(stallObject)), nil); err != nil {
				t.Fatal(err)
			}
			srv := serve(t, wrap(gofakes3.New(backend).Server()))
			saved := s3Backoff
			s3Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
			t.Cleanup(func() { s3Backoff = saved })
			return "s3://bucket/day/?endpoint=" + srv.URL + "&use_path_style=true&disable_https=true"
		},
		isRead: func(r *http.Request) bool {
			return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/a.jsonl")
		},
	}
}
