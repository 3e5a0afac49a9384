// Package azfake serves the part of the Azure Blob Storage REST API that
// fpcheck's azblob:// reads use, in memory on the loopback, for its tests:
// container listings with prefixes, delimiters and pages, blob properties,
// and blob reads with ranges. It answers at the local emulator's
// addresses (http://HOST/ACCOUNT/CONTAINER/BLOB, as Azurite does) and
// verifies every request's Shared Key signature against the account key,
// so a test sees the credentials the driver really sends. Nothing here is
// linked into fpcheck itself.
package azfake

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fpcheck/fpcheck/internal/objstore/byterange"
	"github.com/fpcheck/fpcheck/internal/objstore/listpage"
)

// Server is a fake Blob Storage account. Its fields may be set before
// the first request.
type Server struct {
	// Host is the server's host:port, the domain an azblob:// URL names
	// with localemu=true and protocol=http.
	Host string
	// Account and Key are the storage account's name and its key
	// (base64), which every request must be signed with.
	Account, Key string
	// PageSize, when above zero, caps the entries of a listing page
	// whatever maxresults asks, so that short listings span pages.
	PageSize int
	// Refusal, when set, answers every request, signed or not.
	Refusal *Refusal

	srv        *httptest.Server
	mu         sync.Mutex
	containers map[string]map[string]*blob
	requests   []Request
}

type blob struct {
	data     []byte
	modified time.Time
	etag     string
}

// Refusal is an error answer: its status, error code and message. A raw
// message is written into the XML body as it is, not escaped, as a
// careless or hostile server may write it.
type Refusal struct {
	Status        int
	Code, Message string
	Raw           bool
}

// Request is one request the server received.
type Request struct {
	Method string
	// Path is the request's path as sent, percent-encoding included.
	Path string
	// Query is its query, decoded.
	Query url.Values
	// Range is its x-ms-range header, or its Range header without one.
	Range string
	// Signed says its Shared Key signature was the account key's.
	Signed bool
}

// New starts a server for an account and its key (base64); it is closed
// when the test ends.
func New(t interface{ Cleanup(func()) }, account, key string) *Server {
	s := &Server{Account: account, Key: key, containers: map[string]map[string]*blob{}}
	s.srv = httptest.NewServer(s)
	t.Cleanup(s.srv.Close)
	s.Host = strings.TrimPrefix(s.srv.URL, "http://")
	return s
}

// Put stores a blob, creating its container.
func (s *Server) Put(container, name string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.containers[container] == nil {
		s.containers[container] = map[string]*blob{}
	}
	sum := md5.Sum(data)
	s.containers[container][name] = &blob{
		data:     data,
		modified: time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC),
		etag:     fmt.Sprintf(`"0x8D%X"`, sum[:6]),
	}
}

// Requests returns the requests received so far, and forgets them.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.requests
	s.requests = nil
	return r
}

// fail answers with Blob Storage's error shape: the code in a header
// (all a HEAD answer can carry) and in an XML body.
func fail(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	failRaw(w, r, status, code, xmlText(msg))
}

// failRaw is fail with a message already in XML, written as it is.
func failRaw(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	h := w.Header()
	h.Set("x-ms-error-code", code)
	h.Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	fmt.Fprintf(w, "%s<Error><Code>%s</Code><Message>%s</Message></Error>", xml.Header, xmlText(code), msg)
}

// xmlText is s escaped as XML character data.
func xmlText(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.EscapedPath()
	rg := r.Header.Get("x-ms-range")
	if rg == "" {
		rg = r.Header.Get("Range")
	}
	signed := s.signedBy(r)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: path, Query: r.URL.Query(), Range: rg, Signed: signed})
	s.mu.Unlock()
	w.Header().Set("x-ms-version", r.Header.Get("x-ms-version"))
	w.Header().Set("x-ms-request-id", "fpcheck-azfake")
	if f := s.Refusal; f != nil {
		if f.Raw {
			failRaw(w, r, f.Status, f.Code, f.Message)
		} else {
			fail(w, r, f.Status, f.Code, f.Message)
		}
		return
	}
	if !signed {
		fail(w, r, http.StatusForbidden, "AuthenticationFailed", "Server failed to authenticate the request. Make sure the value of Authorization header is formed correctly including the signature.")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		fail(w, r, http.StatusMethodNotAllowed, "UnsupportedHttpVerb", "The resource doesn't support the specified HTTP verb.")
		return
	}
	parts := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 3)
	if len(parts) < 2 || parts[0] != s.Account {
		fail(w, r, http.StatusBadRequest, "InvalidUri", "The requested URI does not represent any resource on the server.")
		return
	}
	s.mu.Lock()
	blobs, ok := s.containers[parts[1]]
	s.mu.Unlock()
	if !ok {
		fail(w, r, http.StatusNotFound, "ContainerNotFound", "The specified container does not exist.")
		return
	}
	q := r.URL.Query()
	if len(parts) == 2 {
		if q.Get("restype") != "container" || q.Get("comp") != "list" {
			fail(w, r, http.StatusBadRequest, "InvalidQueryParameterValue", "Only container listings are served.")
			return
		}
		s.list(w, r, q, parts[1], blobs)
		return
	}
	name, err := url.PathUnescape(parts[2])
	s.mu.Lock()
	b := blobs[name]
	s.mu.Unlock()
	if err != nil || b == nil {
		fail(w, r, http.StatusNotFound, "BlobNotFound", "The specified blob does not exist.")
		return
	}
	serveBlob(w, r, b, rg)
}

// signedBy checks the request's Authorization header against a Shared
// Key signature made with the account key, by the rule Azure documents
// for the Blob service ("Authorize with Shared Key").
func (s *Server) signedBy(r *http.Request) bool {
	sig, ok := strings.CutPrefix(r.Header.Get("Authorization"), "SharedKey "+s.Account+":")
	if !ok {
		return false
	}
	key, err := base64.StdEncoding.DecodeString(s.Key)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(stringToSign(r, s.Account)))
	want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(sig), []byte(want))
}

func stringToSign(r *http.Request, account string) string {
	var b strings.Builder
	b.WriteString(r.Method + "\n")
	for _, h := range []string{"Content-Encoding", "Content-Language", "Content-Length", "Content-MD5", "Content-Type", "Date", "If-Modified-Since", "If-Match", "If-None-Match", "If-Unmodified-Since", "Range"} {
		v := r.Header.Get(h)
		if h == "Content-Length" && v == "0" {
			v = ""
		}
		b.WriteString(v + "\n")
	}
	var names []string
	for name := range r.Header {
		if n := strings.ToLower(name); strings.HasPrefix(n, "x-ms-") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		b.WriteString(n + ":" + strings.TrimSpace(r.Header.Get(n)) + "\n")
	}
	b.WriteString("/" + account + r.URL.EscapedPath())
	q := r.URL.Query()
	var params []string
	for p := range q {
		params = append(params, p)
	}
	slices.Sort(params)
	for _, p := range params {
		vs := slices.Clone(q[p])
		slices.Sort(vs)
		b.WriteString("\n" + strings.ToLower(p) + ":" + strings.Join(vs, ","))
	}
	return b.String()
}

type enumeration struct {
	XMLName      xml.Name    `xml:"EnumerationResults"`
	Endpoint     string      `xml:"ServiceEndpoint,attr"`
	Container    string      `xml:"ContainerName,attr"`
	Prefix       string      `xml:"Prefix"`
	Marker       string      `xml:"Marker"`
	MaxResults   int         `xml:"MaxResults"`
	Delimiter    string      `xml:"Delimiter,omitempty"`
	Blobs        []blobEntry `xml:"Blobs>Blob"`
	BlobPrefixes []prefix    `xml:"Blobs>BlobPrefix"`
	NextMarker   string      `xml:"NextMarker"`
}

type blobEntry struct {
	Name       string     `xml:"Name"`
	Properties properties `xml:"Properties"`
}

type properties struct {
	LastModified  string `xml:"Last-Modified"`
	Etag          string `xml:"Etag"`
	ContentLength int    `xml:"Content-Length"`
	ContentType   string `xml:"Content-Type"`
	ContentMD5    string `xml:"Content-MD5"`
	BlobType      string `xml:"BlobType"`
}

type prefix struct {
	Name string `xml:"Name"`
}

// list answers a container listing (see listpage), q being its query.
func (s *Server) list(w http.ResponseWriter, r *http.Request, q url.Values, container string, blobs map[string]*blob) {
	pre, delim, marker := q.Get("prefix"), q.Get("delimiter"), q.Get("marker")
	limit := 5000
	if n, err := strconv.Atoi(q.Get("maxresults")); err == nil && n > 0 {
		limit = min(limit, n)
	}
	if s.PageSize > 0 {
		limit = min(limit, s.PageSize)
	}
	s.mu.Lock()
	names := listpage.Under(blobs, pre)
	s.mu.Unlock()
	out := enumeration{Endpoint: "http://" + r.Host + "/" + s.Account + "/", Container: container, Prefix: pre, Marker: marker, MaxResults: limit, Delimiter: delim}
	// The marker names the first entry of the next page.
	page, next := listpage.Page(names, pre, delim, limit, func(_, entry string) bool { return entry < marker })
	out.NextMarker = next
	for _, e := range page {
		if e.Prefix {
			out.BlobPrefixes = append(out.BlobPrefixes, prefix{Name: e.Name})
			continue
		}
		s.mu.Lock()
		b := blobs[e.Name]
		s.mu.Unlock()
		sum := md5.Sum(b.data)
		out.Blobs = append(out.Blobs, blobEntry{Name: e.Name, Properties: properties{
			LastModified:  b.modified.Format(http.TimeFormat),
			Etag:          b.etag,
			ContentLength: len(b.data),
			ContentType:   "application/octet-stream",
			ContentMD5:    base64.StdEncoding.EncodeToString(sum[:]),
			BlobType:      "BlockBlob",
		}})
	}
	body, err := xml.Marshal(out)
	if err != nil {
		fail(w, r, http.StatusInternalServerError, "InternalError", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/xml")
	w.Write(append([]byte(xml.Header), body...))
}

// serveBlob answers a blob's properties (HEAD) or its bytes, whole or
// of the one range asked for.
func serveBlob(w http.ResponseWriter, r *http.Request, b *blob, rg string) {
	size := int64(len(b.data))
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Last-Modified", b.modified.Format(http.TimeFormat))
	h.Set("ETag", b.etag)
	h.Set("x-ms-blob-type", "BlockBlob")
	h.Set("x-ms-creation-time", b.modified.Format(http.TimeFormat))
	h.Set("Accept-Ranges", "bytes")
	if r.Method != http.MethodGet {
		rg = ""
	}
	start, end, status, err := byterange.Answer(h, rg, size)
	if err != nil {
		fail(w, r, status, "InvalidRange", err.Error())
		return
	}
	body := b.data[start : end+1]
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if status == http.StatusOK {
		sum := md5.Sum(b.data)
		h.Set("Content-MD5", base64.StdEncoding.EncodeToString(sum[:]))
	}
	w.WriteHeader(status)
	if r.Method == http.MethodGet {
		w.Write(body)
	}
}
