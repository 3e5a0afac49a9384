// Package gcsfake serves the part of the Cloud Storage JSON API that
// fpcheck's gs:// driver reads, in memory on the loopback, for its tests:
// listings with prefixes, delimiters and pages, object metadata, and media
// reads with ranges. Faults can be injected (failed requests, bodies that
// break off, wrong checksums), and every request is recorded. Nothing here
// is linked into fpcheck itself.
package gcsfake

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fpcheck/fpcheck/internal/objstore/byterange"
	"github.com/fpcheck/fpcheck/internal/objstore/listpage"
)

// Server is a fake Cloud Storage. Its fields may be set before the first
// request.
type Server struct {
	// URL is the server's base URL, and Host its host:port, as
	// STORAGE_EMULATOR_HOST takes it.
	URL, Host string
	// PageSize, when above zero, caps the entries of a listing page
	// whatever maxResults asks, so that short listings span pages.
	PageSize int
	// Token, when set, is the bearer token every API request must carry;
	// POST /token hands it out as an OAuth2 token endpoint does.
	Token string

	srv      *httptest.Server
	mu       sync.Mutex
	buckets  map[string]map[string]*object
	faults   []*Fault
	requests []Request
	gen      int64
}

type object struct {
	data       []byte
	updated    time.Time
	generation int64
}

// Request is one request the server received.
type Request struct {
	// Path is the request's path as sent, percent-encoding included.
	Path string
	// Query is its query, decoded.
	Query url.Values
	// Range and Authorization are its headers of those names.
	Range, Authorization string
}

// Fault is a failure served instead of, or within, a matching answer.
type Fault struct {
	// Match is a substring of the escaped path of the requests the fault
	// applies to: any request for a Status, media reads for the others.
	Match string
	// Status, when set, is answered instead, with a JSON error body.
	Status int
	// CutAfter, when above zero, breaks a media body off after that many
	// bytes, as a reset connection does.
	CutAfter int64
	// BadHash sends a media body with a CRC32C that is not its own.
	BadHash bool
	// Times is how many requests the fault applies to.
	Times int
}

// New starts a server; it is closed when the test ends.
func New(t interface{ Cleanup(func()) }) *Server {
	s := &Server{buckets: map[string]map[string]*object{}}
	s.srv = httptest.NewServer(s)
	t.Cleanup(s.srv.Close)
	s.URL = s.srv.URL
	s.Host = strings.TrimPrefix(s.srv.URL, "http://")
	return s
}

// Put stores an object, creating its bucket; each Put is a new
// generation.
func (s *Server) Put(bucket, name string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.buckets[bucket] == nil {
		s.buckets[bucket] = map[string]*object{}
	}
	s.gen++
	s.buckets[bucket][name] = &object{data: data, updated: time.Now().UTC().Truncate(time.Millisecond), generation: s.gen}
}

// Inject adds a fault.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// Requests returns the requests received so far, and forgets them.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.requests
	s.requests = nil
	return r
}

// fault takes the first fault that applies to a request, if any.
func (s *Server) fault(path string, media bool) Fault {
	for _, f := range s.faults {
		if f.Times > 0 && strings.Contains(path, f.Match) && (f.Status != 0 || media) {
			f.Times--
			return *f
		}
	}
	return Fault{}
}

func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": status, "message": msg}})
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.EscapedPath()
	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: path, Query: r.URL.Query(), Range: r.Header.Get("Range"), Authorization: r.Header.Get("Authorization")})
	f := s.fault(path, r.URL.Query().Get("alt") == "media")
	s.mu.Unlock()
	if path == "/token" && r.Method == http.MethodPost {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": s.Token, "token_type": "Bearer", "expires_in": 3600})
		return
	}
	if s.Token != "" && r.Header.Get("Authorization") != "Bearer "+s.Token {
		fail(w, http.StatusUnauthorized, "Anonymous caller does not have storage.objects.get access.")
		return
	}
	if r.Method != http.MethodGet {
		fail(w, http.StatusMethodNotAllowed, "read only")
		return
	}
	if f.Status != 0 {
		fail(w, f.Status, "injected failure")
		return
	}
	rest, ok := strings.CutPrefix(path, "/storage/v1/b/")
	bucketPart, objectPart, _ := strings.Cut(rest, "/o")
	bucket, err := url.PathUnescape(bucketPart)
	if !ok || err != nil {
		fail(w, http.StatusNotFound, "Not Found")
		return
	}
	s.mu.Lock()
	objects, ok := s.buckets[bucket]
	s.mu.Unlock()
	if !ok {
		fail(w, http.StatusNotFound, "The specified bucket does not exist.")
		return
	}
	switch {
	case objectPart == "":
		s.list(w, r, bucket, objects)
	case strings.HasPrefix(objectPart, "/") && !strings.Contains(objectPart[1:], "/"):
		// An object name is one path segment: a '/' in it must have
		// been sent as %2F.
		name, err := url.PathUnescape(objectPart[1:])
		s.mu.Lock()
		o := objects[name]
		s.mu.Unlock()
		if err != nil || o == nil || (r.URL.Query().Has("generation") && r.URL.Query().Get("generation") != strconv.FormatInt(o.generation, 10)) {
			fail(w, http.StatusNotFound, "No such object: "+bucket+"/"+name)
			return
		}
		if r.URL.Query().Get("alt") == "media" {
			serveMedia(w, r, o, f)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		json.NewEncoder(w).Encode(resource(bucket, name, o))
	default:
		fail(w, http.StatusNotFound, "Not Found")
	}
}

func crc32c(data []byte) []byte {
	return binary.BigEndian.AppendUint32(nil, crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli)))
}

// resource is an object's metadata as the API gives it.
func resource(bucket, name string, o *object) map[string]any {
	sum := md5.Sum(o.data)
	return map[string]any{
		"kind":        "storage#object",
		"bucket":      bucket,
		"name":        name,
		"size":        strconv.Itoa(len(o.data)),
		"generation":  strconv.FormatInt(o.generation, 10),
		"contentType": "application/octet-stream",
		"timeCreated": o.updated.Format(time.RFC3339Nano),
		"updated":     o.updated.Format(time.RFC3339Nano),
		"md5Hash":     base64.StdEncoding.EncodeToString(sum[:]),
		"crc32c":      base64.StdEncoding.EncodeToString(crc32c(o.data)),
		"etag":        fmt.Sprintf("CP%dEAE=", o.generation),
	}
}

// list answers a listing (see listpage). The page token names the last
// entry served.
func (s *Server) list(w http.ResponseWriter, r *http.Request, bucket string, objects map[string]*object) {
	q := r.URL.Query()
	prefix, delim := q.Get("prefix"), q.Get("delimiter")
	limit := 1000
	if n, err := strconv.Atoi(q.Get("maxResults")); err == nil && n > 0 {
		limit = n
	}
	if s.PageSize > 0 {
		limit = min(limit, s.PageSize)
	}
	var after string
	if t := q.Get("pageToken"); t != "" {
		b, err := base64.RawURLEncoding.DecodeString(t)
		if err != nil {
			fail(w, http.StatusBadRequest, "Invalid page token")
			return
		}
		after = string(b)
	}
	s.mu.Lock()
	names := listpage.Under(objects, prefix)
	s.mu.Unlock()
	page, left := listpage.Page(names, prefix, delim, limit, func(name, _ string) bool {
		return after != "" && (name <= after || strings.HasSuffix(after, delim) && delim != "" && strings.HasPrefix(name, after))
	})
	items := []map[string]any{}
	prefixes := []string{}
	for _, e := range page {
		if e.Prefix {
			prefixes = append(prefixes, e.Name)
			continue
		}
		s.mu.Lock()
		items = append(items, resource(bucket, e.Name, objects[e.Name]))
		s.mu.Unlock()
	}
	out := map[string]any{"kind": "storage#objects", "items": items, "prefixes": prefixes}
	if left != "" {
		out["nextPageToken"] = base64.RawURLEncoding.EncodeToString([]byte(page[len(page)-1].Name))
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	json.NewEncoder(w).Encode(out)
}

// serveMedia answers a media read, whole or of the one range asked for.
func serveMedia(w http.ResponseWriter, r *http.Request, o *object, f Fault) {
	size := int64(len(o.data))
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Last-Modified", o.updated.Format(http.TimeFormat))
	h.Set("X-Goog-Generation", strconv.FormatInt(o.generation, 10))
	h.Set("X-Goog-Stored-Content-Length", strconv.FormatInt(size, 10))
	h.Set("X-Goog-Stored-Content-Encoding", "identity")
	sum := md5.Sum(o.data)
	crc := crc32c(o.data)
	if f.BadHash {
		crc[0] ^= 0xff
	}
	h.Set("X-Goog-Hash", "crc32c="+base64.StdEncoding.EncodeToString(crc)+",md5="+base64.StdEncoding.EncodeToString(sum[:]))
	start, end, status, err := byterange.Answer(h, r.Header.Get("Range"), size)
	if err != nil {
		fail(w, status, err.Error())
		return
	}
	body := o.data[start : end+1]
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if f.CutAfter > 0 && f.CutAfter < int64(len(body)) {
		w.Write(body[:f.CutAfter])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
	w.Write(body)
}
