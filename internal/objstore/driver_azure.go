//go:build !fpcheck_noazure

package objstore

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob" // azblob://
)

func init() {
	compiled[azureblob.Scheme] = true
	openers[azureblob.Scheme] = openAzure
	shorteners = append(shorteners, azureOneLine)
}

// azureOpener opens azblob:// URLs as azureblob's own opener does, with
// the same query parameters and the same AZURE_STORAGE_* variables, read
// once, when the first bucket is opened; but its clients send their
// requests through fpcheck's HTTP client, which holds them to
// stallTimeout, where the SDK's own would wait forever for an answer.
var azureOpener = sync.OnceValue(func() *azureblob.URLOpener {
	return &azureblob.URLOpener{MakeClient: azureClientFromEnv(), ServiceURLOptions: *azureblob.NewDefaultServiceURLOptions()}
})

// azureRetryDelay, when not zero, replaces the SDK's first wait between
// attempts; tests shorten it.
var azureRetryDelay time.Duration

func openAzure(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	return azureOpener().OpenBucketURL(ctx, u)
}

// azureClientFromEnv chooses the credentials azureblob chooses: an
// account key, else a SAS token (which NewServiceURL puts in the URL),
// else a connection string, else the default Azure credential.
func azureClientFromEnv() func(azureblob.ServiceURL, azureblob.ContainerName) (*container.Client, error) {
	account, key := os.Getenv("AZURE_STORAGE_ACCOUNT"), os.Getenv("AZURE_STORAGE_KEY")
	sas := os.Getenv("AZURE_STORAGE_SAS_TOKEN")
	conn := os.Getenv("AZURE_STORAGE_CONNECTION_STRING")
	if conn == "" {
		conn = os.Getenv("AZURE_STORAGEBLOB_CONNECTIONSTRING")
	}
	return func(svc azureblob.ServiceURL, name azureblob.ContainerName) (*container.Client, error) {
		opts := &container.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: netClient()}}
		opts.Retry.RetryDelay = azureRetryDelay
		containerURL, err := url.JoinPath(string(svc), string(name))
		if err != nil {
			return nil, err
		}
		switch {
		case account != "" && key != "":
			cred, err := azblob.NewSharedKeyCredential(account, key)
			if err != nil {
				return nil, fmt.Errorf("AZURE_STORAGE_KEY: %w", err)
			}
			return container.NewClientWithSharedKeyCredential(containerURL, cred, opts)
		case sas != "":
			return container.NewClientWithNoCredential(containerURL, opts)
		case conn != "":
			return container.NewClientFromConnectionString(conn, string(name), opts)
		}
		cred, err := azidentity.NewDefaultAzureCredential(&azidentity.DefaultAzureCredentialOptions{ClientOptions: opts.ClientOptions})
		if err != nil {
			return nil, fmt.Errorf("no Azure credentials (AZURE_STORAGE_ACCOUNT with AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN, AZURE_STORAGE_CONNECTION_STRING, or the Azure default credential): %w", err)
		}
		return container.NewClient(containerURL, cred, opts)
	}
}

// azureOneLine words the Azure SDK's response error on one line: the SDK
// writes the request, the status, the code and the body over a dozen
// lines between rules, which buries fpcheck's own message about the URL.
// The request's query (a SAS token) is left out, as the SDK leaves it.
func azureOneLine(err error) (long, short string, ok bool) {
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.RawResponse == nil {
		return "", "", false
	}
	var b strings.Builder
	if req := re.RawResponse.Request; req != nil && req.URL != nil {
		b.WriteString(req.Method + " " + req.URL.Scheme + "://" + req.URL.Host + req.URL.EscapedPath() + ": ")
	}
	b.WriteString(re.RawResponse.Status)
	if re.ErrorCode != "" {
		b.WriteString(" (" + re.ErrorCode + ")")
	}
	if body, err := runtime.Payload(re.RawResponse); err == nil {
		var e struct {
			Message string `xml:"Message"`
		}
		if xml.Unmarshal(body, &e) == nil {
			// Azure adds the request's id and time on lines of their own.
			m, _, _ := strings.Cut(strings.TrimSpace(e.Message), "\n")
			if m = strings.TrimSpace(m); m != "" {
				if len(m) > maxMessage {
					m = strings.ToValidUTF8(m[:maxMessage], "") + "…"
				}
				b.WriteString(": " + m)
			}
		}
	}
	return re.Error(), b.String(), true
}

// maxMessage bounds the bytes of a service's message fpcheck repeats.
const maxMessage = 200
