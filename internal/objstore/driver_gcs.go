//go:build !fpcheck_nogcs

package objstore

// gs:// is read over the Cloud Storage JSON API by the driver below rather
// than by gocloud's gcsblob. gcsblob links Google's storage client, and
// with it the rest of gRPC, envoy's protos and OpenTelemetry's exporters,
// whose package initialisation alone made every fpcheck process about
// 13 MB bigger in memory, a third of what `fpcheck checks` holds, whether
// it read gs:// or not. fpcheck only lists and reads, which takes three
// kinds of GET; the driver does those and refuses the rest.

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
)

// init registers the driver on the mux blob.OpenBucket uses, in gcsblob's
// place.
func init() {
	compiled["gs"] = true
	blob.DefaultURLMux().RegisterBucket("gs", new(gcsOpener))
}

// gcsEndpoint serves Cloud Storage's JSON API. STORAGE_EMULATOR_HOST
// takes its place, as it does for Google's own clients; the tests set it
// to reach a fake server with credentials in play.
var gcsEndpoint = "https://storage.googleapis.com"

// gcsScope is all fpcheck asks of the credentials it finds: reading.
const gcsScope = "https://www.googleapis.com/auth/devstorage.read_only"

// gcsAttempts bounds the requests one GET, or one resumption of a read,
// makes when Cloud Storage answers with a transient failure.
const gcsAttempts = 4

// gcsBackoff is the wait before retry number attempt (from 1), growing
// and jittered as Cloud Storage's retry guidance asks; tests shorten it.
var gcsBackoff = func(attempt int) time.Duration {
	d := 250 * time.Millisecond << (attempt - 1)
	return d/2 + rand.N(d/2+1)
}

// gcsResumes bounds how often one reader takes up a body that broke off.
const gcsResumes = 8

// errGCSReadOnly answers every write: fpcheck never writes to a bucket.
var errGCSReadOnly = errors.New("fpcheck reads gs:// buckets and never writes to them")

// gcsOpener opens gs:// URLs. Application default credentials are looked
// up when the first bucket that needs them is opened, not when the program
// starts, so that a run reading no gs:// bucket never looks, and one that
// finds none is told so where the bucket is named.
type gcsOpener struct {
	mu    sync.Mutex
	creds oauth2.TokenSource
}

// OpenBucketURL opens the bucket named by the URL's host. It takes
// gcsblob's parameters that make sense on a read: anonymous=true reads a
// public bucket without credentials (as does access_id=-); access_id and
// private_key_path otherwise only sign URLs, which fpcheck never does.
// The mux has already taken prefix= and key= out.
func (o *gcsOpener) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	anonymous := false
	q := u.Query()
	for _, k := range slices.Sorted(maps.Keys(q)) {
		v := q[k]
		switch k {
		case "anonymous":
			b, err := strconv.ParseBool(v[0])
			if err != nil {
				return nil, fmt.Errorf("invalid value %q for query parameter \"anonymous\": %w", v[0], err)
			}
			anonymous = anonymous || b
		case "access_id":
			anonymous = anonymous || v[0] == "-"
		case "private_key_path":
		default:
			return nil, fmt.Errorf("invalid query parameter %q (a gs:// URL takes anonymous=true, access_id and private_key_path)", k)
		}
	}
	if u.Host == "" {
		return nil, errors.New("no bucket named (write gs://BUCKET/PREFIX)")
	}
	base, emulated, err := gcsBase()
	if err != nil {
		return nil, err
	}
	client := netClient()
	if !emulated && !anonymous {
		ts, err := o.credentials(ctx)
		if err != nil {
			return nil, err
		}
		client.Transport = &oauth2.Transport{Source: ts, Base: client.Transport}
	}
	return blob.NewBucket(&gcsBucket{name: u.Host, base: base, client: client}), nil
}

// credentials finds the application default credentials once and keeps
// them; a failure is not kept, so that a later bucket looks again.
func (o *gcsOpener) credentials(ctx context.Context) (oauth2.TokenSource, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.creds != nil {
		return o.creds, nil
	}
	// The token source keeps the context for every refresh to come, long
	// after this open's context may have ended; it fetches tokens with the
	// context's client, held to the same stall timeout as the API.
	ctx = context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, netClient())
	creds, err := google.FindDefaultCredentials(ctx, gcsScope)
	if err != nil {
		return nil, fmt.Errorf("reading gs:// takes Google application default credentials (GOOGLE_APPLICATION_CREDENTIALS, `gcloud auth application-default login`, or a metadata server), or anonymous=true for a public bucket: %w", err)
	}
	o.creds = creds.TokenSource
	return o.creds, nil
}

// gcsBase is the scheme and host requests go to, and whether that is an
// emulator, to which Google's clients send no credentials. Like them, it
// takes STORAGE_EMULATOR_HOST as host[:port], spoken to over plain HTTP,
// or as a URL whose path is ignored.
func gcsBase() (base string, emulated bool, err error) {
	host := os.Getenv("STORAGE_EMULATOR_HOST")
	if host == "" {
		return gcsEndpoint, false, nil
	}
	if !strings.Contains(host, "://") {
		return "http://" + host, true, nil
	}
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		return "", true, fmt.Errorf("STORAGE_EMULATOR_HOST=%q is neither host[:port] nor a URL", host)
	}
	return u.Scheme + "://" + u.Host, true, nil
}

// gcsBucket is a driver.Bucket reading one bucket through the JSON API.
type gcsBucket struct {
	name   string
	base   string // scheme://host, without the API's path
	client *http.Client
}

// gcsEscape percent-encodes a bucket or object name as one path segment.
// An object name's '/' must be %2F for the API to see one name, and
// url.PathEscape leaves characters such as '+', '&', '=', ':' and '@'
// that Google's clients encode; everything outside RFC 3986's unreserved
// set is encoded here, as they do.
func gcsEscape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// objectsURL is the bucket's collection of objects, which lists them.
func (b *gcsBucket) objectsURL() string {
	return b.base + "/storage/v1/b/" + gcsEscape(b.name) + "/o"
}

// objectURL is one object's metadata; with alt=media, its bytes.
func (b *gcsBucket) objectURL(key string) string {
	return b.objectsURL() + "/" + gcsEscape(key)
}

// gcsError is Cloud Storage's answer to a request that failed.
type gcsError struct {
	status  int
	message string
}

// Error says what Cloud Storage answered, in its own words.
func (e *gcsError) Error() string {
	msg := strconv.Itoa(e.status) + " " + http.StatusText(e.status)
	if e.message != "" {
		msg += ": " + e.message
	}
	return "Cloud Storage answered " + msg
}

// newGCSError reads the message out of a failed response's JSON error
// body, or keeps the start of whatever body it had.
func newGCSError(resp *http.Response) *gcsError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := ""
	if json.Unmarshal(body, &e) == nil {
		msg = e.Error.Message
	}
	if msg == "" {
		msg = strings.TrimSpace(string(body[:min(len(body), 512)]))
	}
	return &gcsError{status: resp.StatusCode, message: msg}
}

// get sends a GET, retrying transient failures, and returns a response
// whose status is 2xx or 416 (which only a range read can earn, and which
// the reader turns into an empty read past the end).
func (b *gcsBucket) get(ctx context.Context, rawURL, rangeHeader string) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
		if err != nil {
			return nil, err
		}
		if rangeHeader != "" {
			req.Header.Set("Range", rangeHeader)
		}
		resp, err := b.client.Do(req)
		if err == nil {
			if resp.StatusCode/100 == 2 || resp.StatusCode == http.StatusRequestedRangeNotSatisfiable {
				return resp, nil
			}
			err = newGCSError(resp)
			resp.Body.Close()
		}
		if attempt == gcsAttempts || !gcsTransient(ctx, err) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(gcsBackoff(attempt)):
		}
	}
}

// gcsTransient reports a failure worth another try: the statuses Cloud
// Storage's retry guidance names, and a connection that failed, but not a
// refused token, a certificate that does not verify, or a context ended.
func gcsTransient(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var ge *gcsError
	if errors.As(err, &ge) {
		return ge.status == http.StatusRequestTimeout || ge.status == http.StatusTooManyRequests || ge.status >= 500
	}
	var re *oauth2.RetrieveError
	var ce *tls.CertificateVerificationError
	return !errors.As(err, &re) && !errors.As(err, &ce)
}

// gcsObject is the part of an object's metadata the driver reads.
type gcsObject struct {
	Name               string            `json:"name"`
	Size               json.Number       `json:"size"`
	Updated            time.Time         `json:"updated"`
	TimeCreated        time.Time         `json:"timeCreated"`
	MD5Hash            string            `json:"md5Hash"`
	ETag               string            `json:"etag"`
	ContentType        string            `json:"contentType"`
	ContentEncoding    string            `json:"contentEncoding"`
	ContentLanguage    string            `json:"contentLanguage"`
	ContentDisposition string            `json:"contentDisposition"`
	CacheControl       string            `json:"cacheControl"`
	Metadata           map[string]string `json:"metadata"`
}

// size is the object's size, which the API gives as a string.
func (o *gcsObject) size() int64 {
	n, _ := o.Size.Int64()
	return n
}

// md5 is the object's MD5, or nil for one that has none (a composite
// object).
func (o *gcsObject) md5() []byte {
	sum, err := base64.StdEncoding.DecodeString(o.MD5Hash)
	if err != nil || len(sum) == 0 {
		return nil
	}
	return sum
}

// getJSON GETs rawURL and decodes its JSON body into v.
func (b *gcsBucket) getJSON(ctx context.Context, rawURL string, v any) error {
	resp, err := b.get(ctx, rawURL, "")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("Cloud Storage's answer to %s does not decode: %w", rawURL, err)
	}
	return nil
}

// ListPaged lists one page. Only the fields a listing uses are asked for:
// a page of a thousand full entries is ten times the size.
func (b *gcsBucket) ListPaged(ctx context.Context, opts *driver.ListOptions) (*driver.ListPage, error) {
	if opts.BeforeList != nil {
		if err := opts.BeforeList(func(any) bool { return false }); err != nil {
			return nil, err
		}
	}
	q := url.Values{"fields": {"items(name,size,updated,md5Hash),prefixes,nextPageToken"}}
	if opts.Prefix != "" {
		q.Set("prefix", opts.Prefix)
	}
	if opts.Delimiter != "" {
		q.Set("delimiter", opts.Delimiter)
	}
	if len(opts.PageToken) > 0 {
		q.Set("pageToken", string(opts.PageToken))
	}
	if opts.PageSize > 0 {
		q.Set("maxResults", strconv.Itoa(opts.PageSize))
	}
	var list struct {
		Items         []gcsObject `json:"items"`
		Prefixes      []string    `json:"prefixes"`
		NextPageToken string      `json:"nextPageToken"`
	}
	if err := b.getJSON(ctx, b.objectsURL()+"?"+q.Encode(), &list); err != nil {
		return nil, err
	}
	page := &driver.ListPage{Objects: make([]*driver.ListObject, 0, len(list.Items)+len(list.Prefixes))}
	if list.NextPageToken != "" {
		page.NextPageToken = []byte(list.NextPageToken)
	}
	for i := range list.Items {
		it := &list.Items[i]
		page.Objects = append(page.Objects, &driver.ListObject{Key: it.Name, ModTime: it.Updated, Size: it.size(), MD5: it.md5()})
	}
	for _, p := range list.Prefixes {
		page.Objects = append(page.Objects, &driver.ListObject{Key: p, IsDir: true})
	}
	// The API gives a page's objects and its prefixes apart; a listing is
	// one sequence in key order.
	slices.SortFunc(page.Objects, func(a, b *driver.ListObject) int { return strings.Compare(a.Key, b.Key) })
	return page, nil
}

// Attributes reads an object's metadata.
func (b *gcsBucket) Attributes(ctx context.Context, key string) (*driver.Attributes, error) {
	var o gcsObject
	if err := b.getJSON(ctx, b.objectURL(key), &o); err != nil {
		return nil, err
	}
	return &driver.Attributes{
		CacheControl:       o.CacheControl,
		ContentDisposition: o.ContentDisposition,
		ContentEncoding:    o.ContentEncoding,
		ContentLanguage:    o.ContentLanguage,
		ContentType:        gcsContentType(o.ContentType),
		Metadata:           o.Metadata,
		CreateTime:         o.TimeCreated,
		ModTime:            o.Updated,
		Size:               o.size(),
		MD5:                o.md5(),
		ETag:               o.ETag,
	}, nil
}

// gcsContentType fills in the type gocloud requires of every object, for
// one stored without any.
func gcsContentType(t string) string {
	if t == "" {
		return "application/octet-stream"
	}
	return t
}

// NewRangeReader streams length bytes of an object from offset (to its end
// when length is negative).
func (b *gcsBucket) NewRangeReader(ctx context.Context, key string, offset, length int64, opts *driver.ReaderOptions) (driver.Reader, error) {
	r := &gcsReader{ctx: ctx, bucket: b, key: key, url: b.objectURL(key) + "?alt=media", offset: offset, length: length, remain: length}
	if length == 0 {
		a, err := b.Attributes(ctx, key)
		if err != nil {
			return nil, err
		}
		r.attrs = driver.ReaderAttributes{ContentType: a.ContentType, ModTime: a.ModTime, Size: a.Size}
		r.body = http.NoBody
	} else if err := r.open(); err != nil {
		return nil, err
	}
	if opts.BeforeRead != nil {
		if err := opts.BeforeRead(func(any) bool { return false }); err != nil {
			r.Close()
			return nil, err
		}
	}
	return r, nil
}

// gcsReader reads one range of an object. Should the body break off, it
// asks again for the rest of the same generation, as Google's client does:
// a long stream over the network is otherwise lost to one reset connection.
type gcsReader struct {
	ctx            context.Context
	bucket         *gcsBucket
	key, url       string
	offset, length int64
	attrs          driver.ReaderAttributes

	body       io.ReadCloser
	seen       int64 // bytes returned so far
	bodyFrom   int64 // seen when body was opened
	remain     int64 // bytes still asked for; negative for all there is
	generation string
	resumable  bool
	resumes    int
	err        error // the read's end, once it failed

	// The CRC32C of the whole object, when the whole object is read as
	// stored, to be checked at its end.
	checkCRC bool
	wantCRC  uint32
	gotCRC   uint32
}

// gcsCRC32C is the Castagnoli table Cloud Storage's checksums use.
var gcsCRC32C = crc32.MakeTable(crc32.Castagnoli)

// open sends the request for what is still to read: the whole range the
// first time, the rest of it after a break.
func (r *gcsReader) open() error {
	start := r.offset + r.seen
	rangeHeader := ""
	switch {
	case r.length > 0 && r.offset <= math.MaxInt64-r.length:
		rangeHeader = fmt.Sprintf("bytes=%d-%d", start, r.offset+r.length-1)
	case start > 0:
		rangeHeader = fmt.Sprintf("bytes=%d-", start)
	}
	u := r.url
	if r.generation != "" {
		u += "&generation=" + url.QueryEscape(r.generation)
	}
	resp, err := r.bucket.get(r.ctx, u, rangeHeader)
	if err != nil {
		return err
	}
	first := r.body == nil
	if resp.StatusCode == http.StatusRequestedRangeNotSatisfiable {
		// The range starts at or past the end: an empty read, as reading
		// past the end of a file is. The answer is an error's, so the
		// object's attributes are asked for apart.
		resp.Body.Close()
		r.body = http.NoBody
		if first {
			a, err := r.bucket.Attributes(r.ctx, r.key)
			if err != nil {
				return err
			}
			r.attrs = driver.ReaderAttributes{ContentType: a.ContentType, ModTime: a.ModTime, Size: a.Size}
		}
		return nil
	}
	h := resp.Header
	// Served decompressed, a gzip-encoded object ignores the range asked
	// for, and its stored checksum is not of the bytes that arrive.
	transcoded := resp.Uncompressed || h.Get("Content-Encoding") == "gzip" || h.Get("X-Goog-Stored-Content-Encoding") == "gzip"
	size := resp.ContentLength
	if resp.StatusCode == http.StatusPartialContent {
		size = gcsTotal(h.Get("Content-Range"))
	} else {
		if n, err := strconv.ParseInt(h.Get("X-Goog-Stored-Content-Length"), 10, 64); err == nil {
			size = n
		}
		if start > 0 {
			// The whole object came back: skip to where the range starts.
			if _, err := io.CopyN(io.Discard, resp.Body, start); err != nil {
				resp.Body.Close()
				return fmt.Errorf("skipping to byte %d: %w", start, err)
			}
		}
	}
	if first {
		r.generation = h.Get("X-Goog-Generation")
		r.resumable = r.generation != "" && !transcoded
		var lm time.Time
		if t, err := http.ParseTime(h.Get("Last-Modified")); err == nil {
			lm = t
		}
		r.attrs = driver.ReaderAttributes{ContentType: gcsContentType(h.Get("Content-Type")), ModTime: lm, Size: max(size, 0)}
		if r.offset == 0 && r.length < 0 && resp.StatusCode == http.StatusOK && !transcoded {
			r.wantCRC, r.checkCRC = gcsCRC(h.Values("X-Goog-Hash"))
		}
	}
	r.body = resp.Body
	r.bodyFrom = r.seen
	return nil
}

// gcsTotal is the object's size from a Content-Range header
// ("bytes 0-99/1234", or "bytes */1234" on a 416), or -1.
func gcsTotal(cr string) int64 {
	_, total, ok := strings.Cut(cr, "/")
	if !ok {
		return -1
	}
	n, err := strconv.ParseInt(total, 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// gcsCRC finds the crc32c among X-Goog-Hash values ("crc32c=…,md5=…").
func gcsCRC(values []string) (uint32, bool) {
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			enc, ok := strings.CutPrefix(strings.TrimSpace(part), "crc32c=")
			if !ok {
				continue
			}
			sum, err := base64.StdEncoding.DecodeString(enc)
			if err != nil || len(sum) != 4 {
				return 0, false
			}
			return binary.BigEndian.Uint32(sum), true
		}
	}
	return 0, false
}

// Read reads on, taking the read up again where a body broke off, and
// checks the whole object's CRC32C at its end.
func (r *gcsReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.remain == 0 {
		return 0, io.EOF
	}
	if r.remain > 0 && int64(len(p)) > r.remain {
		p = p[:r.remain]
	}
	for {
		n, err := r.body.Read(p)
		r.seen += int64(n)
		if r.remain > 0 {
			r.remain -= int64(n)
		}
		if r.checkCRC {
			r.gotCRC = crc32.Update(r.gotCRC, gcsCRC32C, p[:n])
		}
		if err == io.EOF && r.checkCRC && r.gotCRC != r.wantCRC {
			r.err = fmt.Errorf("the object's CRC32C is %08x, its bytes' %08x: corrupted on the way", r.wantCRC, r.gotCRC)
			return n, r.err
		}
		if err == nil || err == io.EOF || !r.resumable || r.resumes == gcsResumes || r.ctx.Err() != nil {
			return n, err
		}
		if _, stalled := errors.AsType[*StallError](err); stalled && r.seen == r.bodyFrom {
			// A body that never moved is not asked for again: each
			// request would wait out the stall timeout once more.
			r.err = err
			return n, err
		}
		r.resumes++
		r.body.Close()
		if oerr := r.open(); oerr != nil {
			r.body = http.NoBody
			r.err = fmt.Errorf("%w (and taking the read up again failed: %w)", err, oerr)
			return n, r.err
		}
		if n > 0 {
			return n, nil
		}
	}
}

// Close ends the read.
func (r *gcsReader) Close() error { return r.body.Close() }

// Attributes are the object's, as the read's response gave them.
func (r *gcsReader) Attributes() *driver.ReaderAttributes { return &r.attrs }

// As exposes nothing of the driver.
func (r *gcsReader) As(any) bool { return false }

// ErrorCode tells gocloud what kind of failure an error is.
func (b *gcsBucket) ErrorCode(err error) gcerrors.ErrorCode {
	var ge *gcsError
	var re *oauth2.RetrieveError
	switch {
	case errors.Is(err, errGCSReadOnly):
		return gcerrors.Unimplemented
	case errors.As(err, &ge):
		switch s := ge.status; {
		case s == http.StatusNotFound:
			return gcerrors.NotFound
		case s == http.StatusUnauthorized || s == http.StatusForbidden:
			return gcerrors.PermissionDenied
		case s == http.StatusBadRequest || s == http.StatusRequestedRangeNotSatisfiable:
			return gcerrors.InvalidArgument
		case s == http.StatusPreconditionFailed:
			return gcerrors.FailedPrecondition
		case s == http.StatusTooManyRequests:
			return gcerrors.ResourceExhausted
		case s == http.StatusNotImplemented:
			return gcerrors.Unimplemented
		case s >= 500:
			return gcerrors.Internal
		}
	case errors.As(err, &re):
		// The credentials found were refused a token.
		return gcerrors.PermissionDenied
	case errors.Is(err, context.Canceled):
		return gcerrors.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return gcerrors.DeadlineExceeded
	}
	return gcerrors.Unknown
}

// As exposes nothing of the driver.
func (b *gcsBucket) As(any) bool { return false }

// ErrorAs exposes nothing of the driver.
func (b *gcsBucket) ErrorAs(error, any) bool { return false }

// NewTypedWriter refuses: the driver only reads.
func (b *gcsBucket) NewTypedWriter(context.Context, string, string, *driver.WriterOptions) (driver.Writer, error) {
	return nil, errGCSReadOnly
}

// Copy refuses: the driver only reads.
func (b *gcsBucket) Copy(context.Context, string, string, *driver.CopyOptions) error {
	return errGCSReadOnly
}

// Delete refuses: the driver only reads.
func (b *gcsBucket) Delete(context.Context, string, *driver.DeleteOptions) error {
	return errGCSReadOnly
}

// SignedURL refuses: signing takes a private key or the IAM API, and
// fpcheck hands no URL to anyone.
func (b *gcsBucket) SignedURL(context.Context, string, *driver.SignedURLOptions) (string, error) {
	return "", errGCSReadOnly
}

// Close has nothing to release: the connections are the drivers' shared
// transport's.
func (b *gcsBucket) Close() error { return nil }

// gcsBucket is a whole driver.Bucket, as blob.NewBucket takes.
var _ driver.Bucket = (*gcsBucket)(nil)
