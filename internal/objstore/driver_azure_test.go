//go:build !fpcheck_noazure

package objstore

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/fpcheck/fpcheck/internal/objstore/azfake"
)

// The Azure SDK's response errors are told on one line, the service's
// message cut to its first line and to maxMessage bytes, and the error
// keeps its chain.
func TestAzureOneLine(t *testing.T) {
	long := strings.Repeat("é", maxMessage)
	for _, tc := range []struct {
		name, code, body, want string
		status                 int
	}{
		{"code and message", "BlobNotFound", "<?xml version=\"1.0\"?><Error><Code>BlobNotFound</Code><Message>The specified blob does not exist.\nRequestId:1\nTime:2026-12-01T06:00:00Z</Message></Error>",
			"HEAD https://acct.blob.core.windows.net/c/k: 404 Not Found (BlobNotFound): The specified blob does not exist.", 404},
		{"no body", "AuthenticationFailed", "", "HEAD https://acct.blob.core.windows.net/c/k: 403 Forbidden (AuthenticationFailed)", 403},
		{"not XML", "", "<html>busy</html", "HEAD https://acct.blob.core.windows.net/c/k: 503 Service Unavailable", 503},
		{"long message", "", "<Error><Message>" + long + "</Message></Error>", "HEAD https://acct.blob.core.windows.net/c/k: 500 Internal Server Error: " + long[:maxMessage] + "…", 500},
		{"cut within a character", "", "<Error><Message>x" + long + "</Message></Error>", "HEAD https://acct.blob.core.windows.net/c/k: 500 Internal Server Error: x" + long[:maxMessage-2] + "…", 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, _ := url.Parse("https://acct.blob.core.windows.net/c/k?sv=2024&sig=secret")
			h := http.Header{}
			if tc.code != "" {
				h.Set("x-ms-error-code", tc.code)
			}
			resp := &http.Response{
				StatusCode: tc.status, Status: fmt.Sprintf("%d %s", tc.status, http.StatusText(tc.status)), Header: h,
				Body: io.NopCloser(strings.NewReader(tc.body)), Request: &http.Request{Method: "HEAD", URL: u},
			}
			sdk := runtime.NewResponseError(resp)
			err := describe(fmt.Errorf("blob (key %q): %w", "k", sdk))
			got := err.Error()
			if strings.Contains(got, "\n") || strings.Contains(got, "secret") {
				t.Fatalf("not one line, or the query shown: %q", got)
			}
			if !strings.HasSuffix(got, tc.want) {
				t.Errorf("got  %q\nwant …%q", got, tc.want)
			}
			if !errors.Is(err, sdk) {
				t.Error("the SDK's error left the chain")
			}
		})
	}
	if shortened(io.EOF) != io.EOF {
		t.Error("an error of no SDK was changed")
	}
}

// The Azure driver reads its account and key from the environment once a
// process, when it opens its first azblob:// bucket: every test here sets
// the same ones.
var azAccount, azKey = "fpcheckrecordings", base64.StdEncoding.EncodeToString([]byte("fpcheck-test-account-key-0123456789"))

func azureEnv(t *testing.T) {
	t.Setenv("AZURE_STORAGE_ACCOUNT", azAccount)
	t.Setenv("AZURE_STORAGE_KEY", azKey)
	for _, k := range []string{"AZURE_STORAGE_SAS_TOKEN", "AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGEBLOB_CONNECTIONSTRING", "AZURE_STORAGE_DOMAIN", "AZURE_STORAGE_PROTOCOL", "AZURE_STORAGE_IS_CDN", "AZURE_STORAGE_IS_LOCAL_EMULATOR"} {
		t.Setenv(k, "")
	}
	saved := azureRetryDelay
	azureRetryDelay = time.Nanosecond // the SDK takes a negative delay for the longest
	t.Cleanup(func() { azureRetryDelay = saved })
}

func init() {
	stallFixtures["azblob"] = stallFixture{
		start: func(t *testing.T, wrap func(http.Handler) http.Handler) string {
			azureEnv(t)
			az := azfake.New(t, azAccount, azKey)
			az.Put("recordings", "day/a.jsonl", stallObject)
			srv := serve(t, wrap(az))
			return "azblob://recordings/day/?localemu=true&protocol=http&domain=" + strings.TrimPrefix(srv.URL, "http://")
		},
		isRead: func(r *http.Request) bool { return r.Method == http.MethodGet && r.URL.Query().Get("comp") != "list" },
	}
}

// A name that does not resolve is a network failure, not a container that
// does not exist (which the driver takes it for).
func TestAzureLookupFails(t *testing.T) {
	azureEnv(t)
	saved := dial
	dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
	}
	t.Cleanup(func() { dial = saved })
	_, err := New().List(context.Background(), "azblob://recordings/day/?localemu=true&protocol=http&domain=localhost:10000")
	if err == nil || strings.Contains(err.Error(), "not found") || !strings.Contains(err.Error(), "network failure: looking up localhost failed (no such host)") {
		t.Errorf("got %v", err)
	}
}
