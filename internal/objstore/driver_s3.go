//go:build !fpcheck_nos3

package objstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go/logging"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob" // s3://
)

func init() {
	compiled[s3blob.Scheme] = true
	openers[s3blob.Scheme] = openS3
	shorteners = append(shorteners, s3NoCredentials)
}

// s3NoCredentials words the SDK's failure to find credentials, which it
// tells as a failed operation, by what would have given some.
func s3NoCredentials(err error) (long, short string, ok bool) {
	const mark = "get identity: get credentials: "
	msg := err.Error()
	i := strings.Index(msg, mark)
	if i < 0 {
		return "", "", false
	}
	from := strings.Index(msg, "operation error S3: ")
	if from < 0 || from > i {
		from = i
	}
	return msg[from:], "no AWS credentials found (AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or an instance or pod role; anonymous=true reads a public bucket): " + msg[i+len(mark):], true
}

// openS3 opens an s3:// bucket as s3blob's own URL opener does, with the
// same query parameters, but with the SDK's logger silenced and its
// requests held to stallTimeout. By default the logger writes to the
// process's stderr (once per object read from a store that sends no
// checksum, and when the instance metadata service refuses a token), and
// fpcheck's output is fpcheck's to write: its own errors say what failed.
// Parameters that only matter when writing objects (ssetype, kmskeyid) are
// accepted and have nothing to do on a read.
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
	cfg, err := s3Config(ctx, q)
	if err != nil {
		return nil, err
	}
	// The S3 client's requests are watched step by step (the credential
	// providers', made when the configuration was loaded, are held to the
	// transport's timeouts).
	httpClient := cfg.HTTPClient
	opts = append(opts, func(o *s3.Options) {
		o.HTTPClient = awsWatched{httpClient}
	})
	client := s3.NewFromConfig(cfg, opts...)
	return s3blob.OpenBucket(ctx, client, u.Host, &s3blob.Options{RequestChecksumCalculation: cfg.RequestChecksumCalculation})
}

// awsWatched sends the S3 client's requests through a watch (see watched).
type awsWatched struct{ client aws.HTTPClient }

func (a awsWatched) Do(req *http.Request) (*http.Response, error) { return watched(req, a.client.Do) }

// s3Backoff, when set, replaces the SDK's waits between attempts; tests
// shorten them.
var s3Backoff retry.BackoffDelayer

// errNoRegion refuses an s3:// URL before a request the SDK would fail
// with words about endpoint rules and DNS names.
var errNoRegion = errors.New("no AWS region: name one with ?region= in the URL, or set AWS_REGION (or a region in the AWS profile used)")

// s3Config is the SDK configuration for the URL's parameters, read as
// gocloud.dev/aws.V2ConfigFromURLParams reads them (region, endpoint,
// hostname_immutable, profile, dualstack, fips, rate_limiter_capacity,
// anonymous, role, role_session_name, role_external_id, role_duration,
// web_identity_token_file, request_checksum_calculation,
// response_checksum_validation), but loaded with fpcheck's logger and
// HTTP client: the credential providers the SDK builds while loading
// keep the ones it had then.
func s3Config(ctx context.Context, q url.Values) (aws.Config, error) {
	var endpoint, roleARN string
	var hostnameImmutable, anonymous bool
	var rateLimitCapacity int64
	var role struct {
		sessionName, externalID, tokenFile string
		duration                           time.Duration
	}
	httpClient := awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
		t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			return dial(ctx, network, addr)
		}
		// The S3 client's watch (awsWatched) says first which step
		// stalled; this bounds the credential providers' requests.
		t.ResponseHeaderTimeout = 2 * stallTimeout
	})
	opts := []func(*config.LoadOptions) error{config.WithLogger(logging.Nop{}), config.WithHTTPClient(httpClient)}
	parseBool := func(key, v string) (bool, error) {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, fmt.Errorf("invalid value for %q: %w", key, err)
		}
		return b, nil
	}
	for key, values := range q {
		v := values[0]
		var err error
		switch key {
		case "region":
			opts = append(opts, config.WithRegion(v))
		case "endpoint":
			endpoint = v
		case "hostname_immutable":
			hostnameImmutable, err = parseBool(key, v)
		case "profile":
			opts = append(opts, config.WithSharedConfigProfile(v))
		case "dualstack":
			var on bool
			if on, err = parseBool(key, v); on {
				opts = append(opts, config.WithUseDualStackEndpoint(aws.DualStackEndpointStateEnabled))
			}
		case "fips":
			var on bool
			if on, err = parseBool(key, v); on {
				opts = append(opts, config.WithUseFIPSEndpoint(aws.FIPSEndpointStateEnabled))
			}
		case "rate_limiter_capacity":
			if rateLimitCapacity, err = strconv.ParseInt(v, 10, 32); err != nil {
				err = fmt.Errorf("invalid value for %q: %w", key, err)
			}
		case "anonymous":
			if anonymous, err = parseBool(key, v); anonymous {
				opts = append(opts, config.WithCredentialsProvider(aws.AnonymousCredentials{}))
			}
		case "role":
			if !strings.HasPrefix(v, "arn:") {
				err = fmt.Errorf("invalid value for %q: an IAM role ARN starts with \"arn:\"", key)
			}
			roleARN = v
		case "role_session_name":
			role.sessionName = v
		case "role_external_id":
			role.externalID = v
		case "role_duration":
			if role.duration, err = time.ParseDuration(v); err != nil {
				err = fmt.Errorf("invalid value for %q: %w", key, err)
			}
		case "web_identity_token_file":
			role.tokenFile = v
		case "request_checksum_calculation":
			var c aws.RequestChecksumCalculation
			c, err = checksumMode(key, v, aws.RequestChecksumCalculationWhenSupported, aws.RequestChecksumCalculationWhenRequired)
			opts = append(opts, config.WithRequestChecksumCalculation(c))
		case "response_checksum_validation":
			var c aws.ResponseChecksumValidation
			c, err = checksumMode(key, v, aws.ResponseChecksumValidationWhenSupported, aws.ResponseChecksumValidationWhenRequired)
			opts = append(opts, config.WithResponseChecksumValidation(c))
		case "awssdk":
		default:
			err = fmt.Errorf("unknown query parameter %q", key)
		}
		if err != nil {
			return aws.Config{}, err
		}
	}
	switch {
	case roleARN == "" && (role.sessionName != "" || role.externalID != "" || role.duration != 0 || role.tokenFile != ""):
		return aws.Config{}, errors.New(`query parameter "role" is required when using role_session_name, role_external_id, role_duration or web_identity_token_file`)
	case roleARN != "" && anonymous:
		return aws.Config{}, errors.New(`query parameter "role" is not supported with anonymous credentials`)
	case role.tokenFile != "" && role.externalID != "":
		return aws.Config{}, errors.New(`query parameter "role_external_id" is not supported with web_identity_token_file`)
	}
	if roleARN != "" {
		base, err := config.LoadDefaultConfig(ctx, opts...)
		if err != nil {
			return aws.Config{}, fmt.Errorf("failed to load default AWS config: %w", err)
		}
		if base.Region == "" {
			return aws.Config{}, errNoRegion
		}
		stsClient := sts.NewFromConfig(base)
		var provider aws.CredentialsProvider
		if role.tokenFile != "" {
			provider = stscreds.NewWebIdentityRoleProvider(stsClient, roleARN, stscreds.IdentityTokenFile(role.tokenFile), func(o *stscreds.WebIdentityRoleOptions) {
				if role.sessionName != "" {
					o.RoleSessionName = role.sessionName
				}
				o.Duration = role.duration
			})
		} else {
			provider = stscreds.NewAssumeRoleProvider(stsClient, roleARN, func(o *stscreds.AssumeRoleOptions) {
				if role.sessionName != "" {
					o.RoleSessionName = role.sessionName
				}
				if role.externalID != "" {
					o.ExternalID = aws.String(role.externalID)
				}
				o.Duration = role.duration
			})
		}
		opts = []func(*config.LoadOptions) error{config.WithLogger(logging.Nop{}), config.WithHTTPClient(httpClient), config.WithCredentialsProvider(provider), config.WithRegion(base.Region)}
	}
	limiter := retry.RateLimiter(ratelimit.None)
	if rateLimitCapacity > 0 {
		limiter = ratelimit.NewTokenRateLimit(uint(rateLimitCapacity))
	}
	opts = append(opts, config.WithRetryer(func() aws.Retryer {
		return retry.NewStandard(func(so *retry.StandardOptions) {
			so.RateLimiter = limiter
			if s3Backoff != nil {
				so.Backoff = s3Backoff
			}
		})
	}))
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, err
	}
	if cfg.Region == "" {
		return aws.Config{}, errNoRegion
	}
	if endpoint != "" {
		cfg.EndpointResolverWithOptions = aws.EndpointResolverWithOptionsFunc(
			func(service, region string, options ...any) (aws.Endpoint, error) {
				return aws.Endpoint{PartitionID: "aws", URL: endpoint, SigningRegion: region, HostnameImmutable: hostnameImmutable}, nil
			})
	}
	return cfg, nil
}

// checksumMode reads a checksum parameter: when_supported or when_required.
func checksumMode[T any](key, v string, supported, required T) (T, error) {
	switch strings.ToLower(v) {
	case "when_supported":
		return supported, nil
	case "when_required":
		return required, nil
	}
	return supported, fmt.Errorf("invalid value for %q: %q. Valid values are: when_supported, when_required", key, v)
}
