// Package objstore reads recordings (and saved reports) straight from
// object storage through gocloud.dev/blob: s3://, gs://, azblob:// and
// file:// URLs. A URL naming a prefix is listed like a directory, and each
// object is streamed to the loader as it is read, never downloaded whole
// first. Credentials come from each cloud's usual environment: the AWS
// default chain, Google application default credentials (none for a
// gs:// URL with anonymous=true, or with STORAGE_EMULATOR_HOST naming an
// emulator), the AZURE_STORAGE_* variables.
package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/gcerrors"

	"github.com/fpcheck/fpcheck/recording"
)

// Schemes are the URL schemes fpcheck reads. A build may leave a cloud
// driver out (see drivers.go); its URLs are still told from paths, and
// refused by name.
var Schemes = []string{"s3", "gs", "azblob", "file"}

// driverTags are the build tags that leave each cloud driver out.
var driverTags = map[string]string{"s3": "fpcheck_nos3", "gs": "fpcheck_nogcs", "azblob": "fpcheck_noazure"}

// compiled holds the schemes whose driver this build carries; each
// driver's file adds its own (file:// is always there).
var compiled = map[string]bool{fileblob.Scheme: true}

// openers open the buckets of the schemes fpcheck opens itself rather than
// through the driver's registered URL opener (see driver_s3.go).
var openers = map[string]func(context.Context, *url.URL) (*blob.Bucket, error){}

// Drivers lists the schemes this build reads, in Schemes order.
func Drivers() []string {
	var out []string
	for _, s := range Schemes {
		if compiled[s] {
			out = append(out, s)
		}
	}
	return out
}

// IsURL reports whether arg names object storage rather than a local path.
func IsURL(arg string) bool {
	scheme, _, ok := strings.Cut(arg, "://")
	return ok && slices.Contains(Schemes, scheme)
}

// Store opens buckets once and remembers, for every object it listed,
// where it lives. It is safe for concurrent use.
type Store struct {
	// Exclude are the --exclude patterns a file:// directory is walked
	// with, as a directory argument is: what they keep out is not entered,
	// so a link out of it or a pipe in it is never met.
	Exclude []string

	mu      sync.Mutex
	buckets map[string]*blob.Bucket
	objects map[string]ref
}

// ref is where a listed object lives: a key in a bucket, or a local file.
type ref struct {
	bucket, key string
	file        *localFile
}

// New returns an empty store; Close releases its buckets.
func New() *Store {
	return &Store{buckets: map[string]*blob.Bucket{}, objects: map[string]ref{}}
}

// Close closes every bucket opened.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, b := range s.buckets {
		errs = append(errs, b.Close())
	}
	s.buckets = map[string]*blob.Bucket{}
	return errors.Join(errs...)
}

// Object is one listed object: its name (the URL without query, as the
// report shows it) and the URL of the prefix it was listed under. Why,
// when set, says what a directory walk found at a file:// path it passes
// over rather than reads (a named pipe, a link to nothing), as
// recording.Excluded.Why does: the caller says so in the report, and Open
// refuses it.
type Object struct {
	Name, Root string
	Why        string
	// Pattern is the --exclude pattern (Store.Exclude) that keeps a
	// file:// path out, as a directory walk keeps it out; such an object
	// is not opened.
	Pattern string
}

// Error is a failure to list or open object storage; URL names what.
type Error struct {
	URL string
	Err error
}

func (e *Error) Error() string { return e.URL + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// split turns a bucket's URL into the bucket's URL (scheme, host and the
// driver's query parameters) and the key or prefix within it.
func split(arg string) (bucketURL, key, display string, err error) {
	u, err := url.Parse(arg)
	if err != nil {
		return "", "", "", err
	}
	if u.Host == "" {
		return "", "", "", errors.New("no bucket named (write " + u.Scheme + "://BUCKET/PREFIX)")
	}
	key = strings.TrimPrefix(u.Path, "/")
	b := url.URL{Scheme: u.Scheme, Host: u.Host, RawQuery: u.RawQuery}
	return b.String(), key, u.Scheme + "://" + u.Host + "/" + key, nil
}

func (s *Store) bucket(ctx context.Context, bucketURL string) (*blob.Bucket, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.buckets[bucketURL]; ok {
		return b, nil
	}
	scheme, _, _ := strings.Cut(bucketURL, "://")
	if !compiled[scheme] {
		return nil, fmt.Errorf("this fpcheck was built without the %s:// driver (-tags %s); a build without that tag reads it", scheme, driverTags[scheme])
	}
	var b *blob.Bucket
	var err error
	if open := openers[scheme]; open != nil {
		var u *url.URL
		if u, err = url.Parse(bucketURL); err == nil {
			b, err = open(ctx, u)
		}
	} else {
		b, err = blob.OpenBucket(ctx, bucketURL)
	}
	if err != nil {
		return nil, err
	}
	s.buckets[bucketURL] = b
	return b, nil
}

// List expands a URL: the one object it names, or every object under the
// prefix it names (a trailing slash, or a key that is no object), in key
// order, skipping what a directory walk skips. A prefix holding no object
// is an error, as an empty directory is. A file:// URL is walked as a
// directory is (see file.go).
func (s *Store) List(ctx context.Context, arg string) ([]Object, error) {
	if strings.HasPrefix(arg, fileblob.Scheme+"://") {
		return s.listFile(arg)
	}
	bucketURL, key, display, err := split(arg)
	if err != nil {
		// The query may carry what a report should not: left out.
		name, _, _ := strings.Cut(arg, "?")
		return nil, &Error{URL: name, Err: err}
	}
	b, err := s.bucket(ctx, bucketURL)
	if err != nil {
		return nil, &Error{URL: display, Err: describe(err)}
	}
	if key != "" && !strings.HasSuffix(key, "/") {
		ok, err := b.Exists(ctx, key)
		if err != nil {
			return nil, &Error{URL: display, Err: describe(err)}
		}
		if ok {
			s.remember(display, bucketURL, key)
			return []Object{{Name: display}}, nil
		}
		key += "/"
	}
	root := strings.TrimSuffix(display, "/")
	var out []Object
	it := b.List(&blob.ListOptions{Prefix: key})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &Error{URL: display, Err: describe(err)}
		}
		if obj.IsDir || skipped(strings.TrimPrefix(obj.Key, key)) {
			continue
		}
		name := root + "/" + strings.TrimPrefix(obj.Key, key)
		s.remember(name, bucketURL, obj.Key)
		out = append(out, Object{Name: name, Root: root})
	}
	if len(out) == 0 {
		return nil, &Error{URL: display, Err: errors.New("no recording objects under this prefix (hidden, .tmp, .txt, .md, .yaml, .yml, scenario.* and variants.* objects are skipped)")}
	}
	return out, nil
}

// skipped applies the directory walk's rules to a key relative to the
// prefix: a hidden path component, or a skipped file name.
func skipped(rel string) bool {
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		if strings.HasPrefix(p, ".") {
			return true
		}
	}
	return recording.SkippedName(path.Base(rel))
}

func (s *Store) remember(name, bucketURL, key string) {
	s.mu.Lock()
	s.objects[name] = ref{bucket: bucketURL, key: key}
	s.mu.Unlock()
}

// Open streams a listed object from its start; first, when above zero,
// reads only that many bytes (for sniffing).
func (s *Store) Open(ctx context.Context, name string, first int64) (io.ReadCloser, error) {
	s.mu.Lock()
	r, ok := s.objects[name]
	s.mu.Unlock()
	if !ok {
		return nil, &Error{URL: name, Err: errors.New("not listed")}
	}
	if r.file != nil {
		rc, err := openFile(r.file, first)
		if err != nil {
			return nil, &Error{URL: name, Err: err}
		}
		return rc, nil
	}
	b, err := s.bucket(ctx, r.bucket)
	if err != nil {
		return nil, &Error{URL: name, Err: describe(err)}
	}
	length := int64(-1)
	if first > 0 {
		length = first
	}
	rd, err := b.NewRangeReader(ctx, r.key, 0, length, nil)
	if err != nil {
		return nil, &Error{URL: name, Err: describe(err)}
	}
	return rd, nil
}

// describe words a driver error by its kind, keeping the driver's detail.
// A network failure is told as one before anything else: a driver may
// take a name that does not resolve for a bucket that does not exist, and
// its words around a timeout or a refused connection repeat the request
// (with its query, where a SAS token travels) for every attempt.
func describe(err error) error {
	if msg := networkFailure(err); msg != "" {
		return &worded{msg: msg, err: err}
	}
	err = shortened(err)
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return fmt.Errorf("not found: %w", err)
	case gcerrors.PermissionDenied:
		return fmt.Errorf("permission denied (credentials come from the cloud's usual environment): %w", err)
	}
	return err
}

// networkFailure words a failure of the network, not of the store, or "".
func networkFailure(err error) string {
	if se, ok := errors.AsType[*StallError](err); ok {
		return se.Error()
	}
	if de, ok := errors.AsType[*net.DNSError](err); ok {
		return fmt.Sprintf("network failure: looking up %s failed (%s); the store was never reached, so this says nothing of the bucket", de.Name, de.Err)
	}
	if oe, ok := errors.AsType[*net.OpError](err); ok && oe.Op == "dial" {
		addr := ""
		if oe.Addr != nil {
			addr = " " + oe.Addr.String()
		}
		return fmt.Sprintf("network failure: connecting to%s failed (%v); the store was never reached, so this says nothing of the bucket", addr, oe.Err)
	}
	return ""
}

// shorteners word a driver SDK's error on one line where the SDK writes
// several: each returns the SDK's text within err and the line to put in
// its place. A driver's file adds its own.
var shorteners []func(err error) (long, short string, ok bool)

// shortened is err with the first shortener's line in place of its SDK
// text; the error chain stays as it was.
func shortened(err error) error {
	for _, f := range shorteners {
		if long, short, ok := f(err); ok && long != "" {
			return &worded{msg: strings.Replace(err.Error(), long, short, 1), err: err}
		}
	}
	return err
}

// worded is an error told in other words than its own.
type worded struct {
	msg string
	err error
}

func (w *worded) Error() string { return w.msg }
func (w *worded) Unwrap() error { return w.err }
