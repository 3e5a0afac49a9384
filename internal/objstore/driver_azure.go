//go:build !fpcheck_noazure

package objstore

import (
	"encoding/xml"
	"errors"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	_ "gocloud.dev/blob/azureblob" // azblob://
)

func init() {
	compiled["azblob"] = true
	shorteners = append(shorteners, azureOneLine)
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
