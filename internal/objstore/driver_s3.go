//go:build !fpcheck_nos3

package objstore

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"
	"gocloud.dev/aws"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob" // s3://
)

func init() {
	compiled[s3blob.Scheme] = true
	openers[s3blob.Scheme] = openS3
}

// openS3 opens an s3:// bucket as s3blob's own URL opener does, with the
// same query parameters, but with the SDK's logger silenced: by default it
// writes to the process's stderr, once per object read from a store that
// sends no checksum (objects uploaded without one, most S3-compatible
// stores), and fpcheck's output is fpcheck's to write. Parameters that
// only matter when writing objects (ssetype, kmskeyid) are accepted and
// have nothing to do on a read.
func openS3(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	q := u.Query()
	q.Del("ssetype")
	q.Del("kmskeyid")
	var opts []func(*s3.Options)
	for _, p := range []struct {
		keys []string
		set  func(*s3.Options, bool)
	}{
		{[]string{"accelerate"}, func(o *s3.Options, v bool) { o.UseAccelerate = v }},
		{[]string{"disable_https"}, func(o *s3.Options, v bool) { o.EndpointOptions.DisableHTTPS = v }},
		{[]string{"use_path_style", "s3ForcePathStyle"}, func(o *s3.Options, v bool) { o.UsePathStyle = v }},
	} {
		for _, key := range p.keys {
			s := q.Get(key)
			if s == "" {
				continue
			}
			q.Del(key)
			v, err := strconv.ParseBool(s)
			if err != nil {
				return nil, fmt.Errorf("invalid value for %q: %w", key, err)
			}
			opts = append(opts, func(o *s3.Options) { p.set(o, v) })
		}
	}
	cfg, err := aws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, err
	}
	cfg.Logger = logging.Nop{}
	client := s3.NewFromConfig(cfg, opts...)
	return s3blob.OpenBucket(ctx, client, u.Host, &s3blob.Options{RequestChecksumCalculation: cfg.RequestChecksumCalculation})
}
