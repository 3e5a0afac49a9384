//go:build !fpcheck_nogcs

package objstore

import (
	"bytes"
	"context"
	"crypto/md5"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/fpcheck/fpcheck/internal/objstore/gcsfake"
)

// startGCS serves a fake Cloud Storage that gs:// URLs reach through
// STORAGE_EMULATOR_HOST, and retries without waiting.
func startGCS(t *testing.T) *gcsfake.Server {
	t.Helper()
	f := gcsfake.New(t)
	t.Setenv("STORAGE_EMULATOR_HOST", f.Host)
	noBackoff(t)
	return f
}

func noBackoff(t *testing.T) {
	saved := gcsBackoff
	gcsBackoff = func(int) time.Duration { return 0 }
	t.Cleanup(func() { gcsBackoff = saved })
}

func openGCS(t *testing.T, mux *blob.URLMux, u string) *blob.Bucket {
	t.Helper()
	b, err := mux.OpenBucket(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// requestsTo keeps the requests whose path holds s.
func requestsTo(reqs []gcsfake.Request, s string) []gcsfake.Request {
	var out []gcsfake.Request
	for _, r := range reqs {
		if strings.Contains(r.Path, s) {
			out = append(out, r)
		}
	}
	return out
}

func TestGCSEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain-name_1.jsonl~", "plain-name_1.jsonl~"},
		{"day/runs/a.jsonl", "day%2Fruns%2Fa.jsonl"},
		{"a b+c&d=e:f@g$h;i,j?k#l%m", "a%20b%2Bc%26d%3De%3Af%40g%24h%3Bi%2Cj%3Fk%23l%25m"},
		{"ü/日", "%C3%BC%2F%E6%97%A5"},
		{"..", ".."},
	} {
		if got := gcsEscape(tc.in); got != tc.want {
			t.Errorf("gcsEscape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestGCSBase(t *testing.T) {
	for _, tc := range []struct {
		env, want string
		emulated  bool
		err       bool
	}{
		{"", gcsEndpoint, false, false},
		{"localhost:4443", "http://localhost:4443", true, false},
		{"http://localhost:4443/storage/v1/", "http://localhost:4443", true, false},
		{"https://gcs.example:9000", "https://gcs.example:9000", true, false},
		{"http://", "", true, true},
	} {
		t.Setenv("STORAGE_EMULATOR_HOST", tc.env)
		got, emulated, err := gcsBase()
		if (err != nil) != tc.err || got != tc.want || emulated != tc.emulated {
			t.Errorf("STORAGE_EMULATOR_HOST=%q: %q, %v, %v; want %q, %v, error %v", tc.env, got, emulated, err, tc.want, tc.emulated, tc.err)
		}
	}
}

// A listing comes in pages, in key order, with what lies below a
// delimiter rolled up into one directory.
func TestGCSList(t *testing.T) {
	f := startGCS(t)
	f.PageSize = 2
	keys := []string{"day/a.jsonl", "day/b/c.jsonl", "day/b/d.jsonl", "day/e f+g.jsonl", "day/z.jsonl", "other.jsonl"}
	for _, k := range keys {
		f.Put("bucket", k, []byte(k))
	}
	b := openGCS(t, blob.DefaultURLMux(), "gs://bucket")
	for _, tc := range []struct {
		name string
		opts blob.ListOptions
		want []string
	}{
		{"everything", blob.ListOptions{}, keys},
		{"a prefix", blob.ListOptions{Prefix: "day/"}, keys[:5]},
		{"a delimiter", blob.ListOptions{Prefix: "day/", Delimiter: "/"}, []string{"day/a.jsonl", "day/b/ (dir)", "day/e f+g.jsonl", "day/z.jsonl"}},
		{"a prefix with nothing", blob.ListOptions{Prefix: "night/"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			it := b.List(&tc.opts)
			for {
				o, err := it.Next(context.Background())
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if o.IsDir {
					got = append(got, o.Key+" (dir)")
					continue
				}
				sum := md5.Sum([]byte(o.Key))
				if o.Size != int64(len(o.Key)) || !bytes.Equal(o.MD5, sum[:]) || o.ModTime.IsZero() {
					t.Errorf("%s: size %d, MD5 %x, modified %v", o.Key, o.Size, o.MD5, o.ModTime)
				}
				got = append(got, o.Key)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("listing (-want +got):\n%s", diff)
			}
			if reqs := requestsTo(f.Requests(), "/o"); len(tc.want) > 2 && len(reqs) < 2 {
				t.Error("the listing was not paged")
			}
		})
	}
	objs, next, err := b.ListPage(context.Background(), blob.FirstPageToken, 1, &blob.ListOptions{Prefix: "day/"})
	if err != nil || len(objs) != 1 || objs[0].Key != "day/a.jsonl" || len(next) == 0 {
		t.Errorf("a page of one: %v, next %q, %v", objs, next, err)
	}
	if q := requestsTo(f.Requests(), "/o")[0].Query; q.Get("maxResults") != "1" || q.Get("prefix") != "day/" {
		t.Errorf("a page of one asked %v", q)
	}
	f.Put("bucket", "x", nil)
	if _, err := openGCS(t, blob.DefaultURLMux(), "gs://nowhere").List(nil).Next(context.Background()); gcerrors.Code(err) != gcerrors.NotFound {
		t.Errorf("a bucket that does not exist: %v", err)
	}
}

func TestGCSAttributes(t *testing.T) {
	f := startGCS(t)
	f.Put("bucket", "day/run.jsonl", []byte("0123456789"))
	b := openGCS(t, blob.DefaultURLMux(), "gs://bucket")
	ctx := context.Background()
	a, err := b.Attributes(ctx, "day/run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum([]byte("0123456789"))
	if a.Size != 10 || !bytes.Equal(a.MD5, sum[:]) || a.ModTime.IsZero() || a.ContentType != "application/octet-stream" || a.ETag == "" {
		t.Errorf("attributes: %+v", a)
	}
	if p := requestsTo(f.Requests(), "/o/")[0].Path; p != "/storage/v1/b/bucket/o/day%2Frun.jsonl" {
		t.Errorf("asked for %s", p)
	}
	if _, err := b.Attributes(ctx, "day/none.jsonl"); gcerrors.Code(err) != gcerrors.NotFound {
		t.Errorf("a missing object: %v", err)
	}
	for key, want := range map[string]bool{"day/run.jsonl": true, "day/none.jsonl": false, "day": false} {
		if ok, err := b.Exists(ctx, key); ok != want || err != nil {
			t.Errorf("Exists(%q) = %v, %v", key, ok, err)
		}
	}
}

func TestGCSRead(t *testing.T) {
	f := startGCS(t)
	f.Put("bucket", "run", []byte("0123456789"))
	f.Put("bucket", "empty", nil)
	f.Put("bucket", "dir/a b+c&d=e.jsonl", []byte("escaped"))
	b := openGCS(t, blob.DefaultURLMux(), "gs://bucket")
	for _, tc := range []struct {
		name           string
		key            string
		offset, length int64
		want, rng      string
		size           int64
	}{
		{"whole", "run", 0, -1, "0123456789", "", 10},
		{"head", "run", 0, 4, "0123", "bytes=0-3", 10},
		{"middle", "run", 3, 4, "3456", "bytes=3-6", 10},
		{"tail", "run", 7, -1, "789", "bytes=7-", 10},
		{"past the end", "run", 10, -1, "", "bytes=10-", 10},
		{"longer than the object", "run", 8, 100, "89", "bytes=8-107", 10},
		{"nothing", "run", 2, 0, "", "", 10},
		{"the head of an empty object", "empty", 0, 512, "", "bytes=0-511", 0},
		{"a name to escape", "dir/a b+c&d=e.jsonl", 0, -1, "escaped", "", 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := b.NewRangeReader(context.Background(), tc.key, tc.offset, tc.length, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			r.Close()
			if err != nil || string(got) != tc.want {
				t.Errorf("read %q, %v; want %q", got, err, tc.want)
			}
			if r.Size() != tc.size || r.ContentType() != "application/octet-stream" {
				t.Errorf("size %d, type %q", r.Size(), r.ContentType())
			}
			var media []gcsfake.Request
			for _, r := range requestsTo(f.Requests(), "/o/") {
				if r.Query.Get("alt") == "media" {
					media = append(media, r)
				}
			}
			if tc.length == 0 {
				return
			}
			if len(media) != 1 || media[0].Range != tc.rng {
				t.Fatalf("requests %+v, want one with Range %q", media, tc.rng)
			}
			if want := "/storage/v1/b/bucket/o/" + gcsEscape(tc.key); media[0].Path != want {
				t.Errorf("asked for %s, want %s", media[0].Path, want)
			}
		})
	}
	if _, err := b.NewReader(context.Background(), "none", nil); gcerrors.Code(err) != gcerrors.NotFound {
		t.Errorf("a missing object: %v", err)
	}
}

// Transient failures are retried, a body that breaks off is taken up
// where it stopped, and a checksum that does not match fails the read.
func TestGCSFaults(t *testing.T) {
	f := startGCS(t)
	data := []byte("0123456789abcdefghij")
	b := openGCS(t, blob.DefaultURLMux(), "gs://bucket")
	for _, tc := range []struct {
		name           string
		fault          gcsfake.Fault
		offset, length int64
		code           gcerrors.ErrorCode // of the failure, or OK
		requests       []string           // the media reads' ranges
	}{
		{"unavailable twice", gcsfake.Fault{Status: 503, Times: 2}, 0, -1, gcerrors.OK, []string{"", "", ""}},
		{"too many requests", gcsfake.Fault{Status: 429, Times: 1}, 5, 3, gcerrors.OK, []string{"bytes=5-7", "bytes=5-7"}},
		{"unavailable throughout", gcsfake.Fault{Status: 503, Times: 100}, 0, -1, gcerrors.Internal, []string{"", "", "", ""}},
		{"forbidden", gcsfake.Fault{Status: 403, Times: 1}, 0, -1, gcerrors.PermissionDenied, []string{""}},
		{"unauthenticated", gcsfake.Fault{Status: 401, Times: 1}, 0, -1, gcerrors.PermissionDenied, []string{""}},
		{"a body broken off", gcsfake.Fault{CutAfter: 3, Times: 1}, 0, -1, gcerrors.OK, []string{"", "bytes=3-"}},
		{"a range broken off twice", gcsfake.Fault{CutAfter: 2, Times: 2}, 4, 10, gcerrors.OK, []string{"bytes=4-13", "bytes=6-13", "bytes=8-13"}},
		{"a body that always breaks off", gcsfake.Fault{CutAfter: 1, Times: 100}, 0, -1, gcerrors.Unknown, nil},
		{"a wrong checksum", gcsfake.Fault{BadHash: true, Times: 1}, 0, -1, gcerrors.Unknown, []string{""}},
		{"a wrong checksum on a range, which is not checked", gcsfake.Fault{BadHash: true, Times: 1}, 0, 4, gcerrors.OK, []string{"bytes=0-3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := strings.ReplaceAll(tc.name, " ", "-")
			f.Put("bucket", key, data)
			tc.fault.Match = "/o/" + gcsEscape(key)
			f.Inject(tc.fault)
			f.Requests()
			var got []byte
			r, err := b.NewRangeReader(context.Background(), key, tc.offset, tc.length, nil)
			if err == nil {
				got, err = io.ReadAll(r)
				r.Close()
			}
			if code := gcerrors.Code(err); err != nil && code != tc.code || err == nil && tc.code != gcerrors.OK {
				t.Fatalf("error %v (%v), want %v", err, code, tc.code)
			}
			end := int64(len(data))
			if tc.length >= 0 {
				end = min(end, tc.offset+tc.length)
			}
			if err == nil && string(got) != string(data[tc.offset:end]) {
				t.Errorf("read %q", got)
			}
			reqs := requestsTo(f.Requests(), tc.fault.Match)
			if tc.requests == nil {
				if len(reqs) != 1+gcsResumes {
					t.Errorf("%d requests, want %d", len(reqs), 1+gcsResumes)
				}
				return
			}
			var ranges []string
			for i, r := range reqs {
				ranges = append(ranges, r.Range)
				// A read taken up again asks for the same generation.
				if i > 0 && r.Range != reqs[0].Range && r.Query.Get("generation") == "" {
					t.Errorf("request %d is not pinned to the generation read", i)
				}
			}
			if diff := cmp.Diff(tc.requests, ranges); diff != "" {
				t.Errorf("requests' ranges (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := b.Attributes(context.Background(), "none"); gcerrors.Code(err) != gcerrors.NotFound || len(requestsTo(f.Requests(), "/o/none")) != 1 {
		t.Errorf("a missing object is retried, or not found: %v", err)
	}
}

func TestGCSReadOnly(t *testing.T) {
	startGCS(t)
	b := openGCS(t, blob.DefaultURLMux(), "gs://bucket")
	ctx := context.Background()
	_, signErr := b.SignedURL(ctx, "k", nil)
	for what, err := range map[string]error{
		"write":  b.WriteAll(ctx, "k", []byte("x"), nil),
		"copy":   b.Copy(ctx, "k", "j", nil),
		"delete": b.Delete(ctx, "k"),
		"sign":   signErr,
	} {
		if gcerrors.Code(err) != gcerrors.Unimplemented {
			t.Errorf("%s: %v", what, err)
		}
	}
}

// The URL's parameters are read as gcsblob reads those that mean
// something on a read, and any other is refused.
func TestGCSOpen(t *testing.T) {
	f := startGCS(t)
	f.Put("bucket", "day/run.jsonl", []byte("x"))
	for _, tc := range []struct{ url, err string }{
		{"gs://bucket", ""},
		{"gs://bucket?anonymous=true", ""},
		{"gs://bucket?anonymous=false", ""},
		{"gs://bucket?access_id=-", ""},
		{"gs://bucket?access_id=me@example.com&private_key_path=/none", ""},
		{"gs://bucket?prefix=day/", ""},
		{"gs://bucket?anonymous=maybe", `invalid value "maybe" for query parameter "anonymous"`},
		{"gs://bucket?grpc=true&zonal=true", `invalid query parameter "grpc" (a gs:// URL takes anonymous=true, access_id and private_key_path)`},
		{"gs://bucket?universe_domain=example.com", `invalid query parameter "universe_domain"`},
	} {
		b, err := blob.OpenBucket(context.Background(), tc.url)
		if tc.err == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.url, err)
				continue
			}
			if ok, err := b.Exists(context.Background(), "run.jsonl"); err != nil || ok != strings.Contains(tc.url, "prefix=day/") {
				t.Errorf("%s: run.jsonl exists %v, %v", tc.url, ok, err)
			}
			b.Close()
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want %q", tc.url, err, tc.err)
		}
	}
}

// Without an emulator, requests carry a token from the application
// default credentials, unless the URL asks for none; credentials that
// cannot be found are said where the bucket is named.
func TestGCSCredentials(t *testing.T) {
	f := gcsfake.New(t)
	noBackoff(t)
	f.Token = "fpcheck-test-token"
	f.Put("bucket", "day/run.jsonl", []byte("x"))
	saved := gcsEndpoint
	gcsEndpoint = f.URL
	t.Cleanup(func() { gcsEndpoint = saved })
	t.Setenv("STORAGE_EMULATOR_HOST", "")
	dir := t.TempDir()
	creds := filepath.Join(dir, "adc.json")
	if err := os.WriteFile(creds, []byte(`{"type": "authorized_user", "client_id": "id", "client_secret": "secret", "refresh_token": "refresh", "token_uri": "`+f.URL+`/token"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, url, creds string
		openErr          string
		code             gcerrors.ErrorCode
		auth             string
	}{
		{"found", "gs://bucket", creds, "", gcerrors.OK, "Bearer fpcheck-test-token"},
		{"anonymous", "gs://bucket?anonymous=true", creds, "", gcerrors.PermissionDenied, ""},
		{"not found", "gs://bucket", filepath.Join(dir, "none.json"), "reading gs:// takes Google application default credentials", 0, ""},
		{"not found, and not needed", "gs://bucket?anonymous=true", filepath.Join(dir, "none.json"), "", gcerrors.PermissionDenied, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", tc.creds)
			mux := new(blob.URLMux)
			mux.RegisterBucket("gs", new(gcsOpener))
			b, err := mux.OpenBucket(context.Background(), tc.url)
			if tc.openErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.openErr) || !strings.Contains(err.Error(), tc.creds) {
					t.Fatalf("opened with %v, want %q naming %s", err, tc.openErr, tc.creds)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			_, err = b.ReadAll(context.Background(), "day/run.jsonl")
			if gcerrors.Code(err) != tc.code && !(err == nil && tc.code == gcerrors.OK) {
				t.Errorf("read: %v, want %v", err, tc.code)
			}
			for _, r := range requestsTo(f.Requests(), "/storage/") {
				if r.Authorization != tc.auth {
					t.Errorf("%s sent Authorization %q, want %q", r.Path, r.Authorization, tc.auth)
				}
			}
		})
	}
	// Through the store, the credentials' absence is an error of the URL.
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(dir, "none.json"))
	_, err := New().List(context.Background(), "gs://bucket/day/")
	var oe *Error
	if !errors.As(err, &oe) || oe.URL != "gs://bucket/day/" || !strings.Contains(err.Error(), "application default credentials") {
		t.Errorf("listing without credentials: %v", err)
	}
}

func init() {
	stallFixtures["gs"] = stallFixture{
		start: func(t *testing.T, wrap func(http.Handler) http.Handler) string {
			f := gcsfake.New(t)
			f.Put("bucket", "day/a.jsonl", stallObject)
			srv := serve(t, wrap(f))
			t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(srv.URL, "http://"))
			noBackoff(t)
			return "gs://bucket/day/"
		},
		isRead: func(r *http.Request) bool { return r.URL.Query().Get("alt") == "media" },
	}
}
