//go:build !fpcheck_noazure

package main

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/internal/objstore/azfake"
)

// The Azure driver reads its account and key from the environment once
// a process, when it opens its first azblob:// bucket: every test here
// sets the same ones.
var azAccount, azKey = "fpcheckrecordings", base64.StdEncoding.EncodeToString([]byte("fpcheck-test-account-key-0123456789"))

func azureEnv(t *testing.T) {
	t.Helper()
	t.Setenv("AZURE_STORAGE_ACCOUNT", azAccount)
	t.Setenv("AZURE_STORAGE_KEY", azKey)
	for _, k := range []string{"AZURE_STORAGE_SAS_TOKEN", "AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGEBLOB_CONNECTIONSTRING", "AZURE_STORAGE_DOMAIN", "AZURE_STORAGE_PROTOCOL", "AZURE_STORAGE_IS_CDN", "AZURE_STORAGE_IS_LOCAL_EMULATOR"} {
		t.Setenv(k, "")
	}
}

// azURL is the URL of key in container on a fake account, named as a
// user names a local emulator's (Azurite's).
func azURL(az *azfake.Server, container, key string) string {
	return "azblob://" + container + "/" + key + "?localemu=true&protocol=http&domain=" + az.Host
}

// The same inputs read from Blob Storage (an in-process fake of its REST
// API that checks every request's Shared Key signature) and from a
// directory give the same report. The fake serves two entries a page, so
// every listing spans pages.
func TestObjectStorageAzureReadsAsFiles(t *testing.T) {
	azureEnv(t)
	az := azfake.New(t, azAccount, azKey)
	az.PageSize = 2
	local := stageBucketInputs(t, t.TempDir(), func(key string, data []byte) { az.Put("recordings", key, data) })
	checkBucketReadsAsFiles(t, local, func(key string) string { return azURL(az, "recordings", key) })

	var lists, reads int
	for _, r := range az.Requests() {
		if !r.Signed {
			t.Errorf("%s %s was not signed with the account key", r.Method, r.Path)
		}
		if r.Query.Get("comp") == "list" {
			lists++
			if r.Query.Get("prefix") == "" {
				t.Errorf("a listing without a prefix: %v", r.Query)
			}
		}
		if r.Method == "GET" && r.Query.Get("comp") == "" {
			reads++
		}
	}
	if lists == 0 || reads == 0 {
		t.Errorf("%d listings and %d reads: the driver did not go through the fake", lists, reads)
	}
}

// What the account answers is said by kind on one line, with the bucket
// named and the query left out; a wrong key is refused, never taken for
// an empty bucket.
func TestObjectStorageAzureRefusals(t *testing.T) {
	azureEnv(t)
	az := azfake.New(t, azAccount, azKey)
	az.Put("recordings", bucketDay+"/ok.jsonl", []byte("{}\n"))
	other := azfake.New(t, azAccount, base64.StdEncoding.EncodeToString([]byte("another key")))
	other.Put("recordings", bucketDay+"/ok.jsonl", []byte("{}\n"))
	for _, tc := range []struct{ name, url, stderr string }{
		{"no container", azURL(az, "nowhere", bucketDay), "azblob://nowhere/" + bucketDay + ": not found: blob (code=NotFound): GET http://" + az.Host + "/" + azAccount + "/nowhere: 404 Not Found (ContainerNotFound): The specified container does not exist.\n"},
		{"wrong key", azURL(other, "recordings", bucketDay), "azblob://recordings/" + bucketDay + ": permission denied (credentials come from the cloud's usual environment): blob (key \"" + bucketDay + "\") (code=PermissionDenied): HEAD http://" + other.Host + "/" + azAccount + "/recordings/" + bucketDay + ": 403 Forbidden (AuthenticationFailed)\n"},
		{"unknown parameter", azURL(az, "recordings", bucketDay) + "&grpc=true", "azblob://recordings/" + bucketDay + `: unknown query parameter "grpc"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, nil, "analyze", tc.url)
			if code != int(ExitUsage) || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, %q; want exit %d and %q", code, stderr, ExitUsage, tc.stderr)
			}
			if strings.Contains(stderr, "localemu") {
				t.Errorf("the query was shown: %q", stderr)
			}
		})
	}
}

// What a service says is its own text: a message that would act on a
// terminal is shown escaped, on the one line of fpcheck's error, or left
// out where it is not even XML.
func TestObjectStorageAzureServiceWords(t *testing.T) {
	azureEnv(t)
	az := azfake.New(t, azAccount, azKey)
	az.Put("recordings", bucketDay+"/ok.jsonl", []byte("{}\n"))
	for _, tc := range []struct {
		name    string
		refusal azfake.Refusal
		want    string
	}{
		{"escaped", azfake.Refusal{Status: 409, Code: "OperationNotAllowedInCurrentState", Message: "busy \u202enow\tfpcheck: all green"},
			`409 Conflict (OperationNotAllowedInCurrentState): busy \u202enow\tfpcheck: all green`},
		{"not XML", azfake.Refusal{Status: 409, Code: "OperationNotAllowedInCurrentState", Message: "busy \x1b]0;owned\x07\x1b[31mnow", Raw: true},
			`409 Conflict (OperationNotAllowedInCurrentState)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			az.Refusal = &tc.refusal
			// A prefix is listed at once (a GET, whose answer has a body).
			code, _, stderr := run(t, nil, "analyze", azURL(az, "recordings", bucketDay+"/"))
			if code != int(ExitUsage) {
				t.Errorf("exit %d, %q", code, stderr)
			}
			checkTerminalSafe(t, "stderr", stderr)
			if first, _, _ := strings.Cut(stderr, "\n"); !strings.HasSuffix(first, tc.want) {
				t.Errorf("stderr %q; want its first line to end in %q", stderr, tc.want)
			}
		})
	}
}
