//go:build !fpcheck_nos3

package objstore

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
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

// Without a region an s3:// URL is refused when its bucket is opened,
// saying where a region comes from, before any request; and the SDK
// writes nothing of its own.
func TestS3NoRegion(t *testing.T) {
	s3Env(t)
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	for _, u := range []string{"s3://bucket/day/", "s3://bucket/day/?endpoint=http://127.0.0.1:1&use_path_style=true", "s3://bucket/day/?region="} {
		_, err := New().List(context.Background(), u)
		if !errors.Is(err, errNoRegion) || !strings.Contains(err.Error(), "?region=") || !strings.Contains(err.Error(), "AWS_REGION") {
			t.Errorf("%s: %v", u, err)
		}
	}
}

// With no credentials anywhere, the error says where credentials come
// from; and the SDK writes nothing to stderr of its own, not even when
// the instance metadata service refuses it a token (it would warn that
// it falls back to IMDSv1).
func TestS3NoCredentials(t *testing.T) {
	s3Env(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "")
	imds := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusForbidden)
	}))
	t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.URL)
	stderr, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = stderr
	t.Cleanup(func() { os.Stderr = saved })

	_, err = New().List(context.Background(), "s3://bucket/day/?endpoint=http://127.0.0.1:1&use_path_style=true")
	os.Stderr = saved
	if err == nil || !strings.Contains(err.Error(), "no AWS credentials found (AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or an instance or pod role") || strings.Contains(err.Error(), "operation error S3") {
		t.Errorf("got %v", err)
	}
	if written, _ := os.ReadFile(stderr.Name()); len(written) > 0 {
		t.Errorf("the SDK wrote to stderr: %s", written)
	}
}
