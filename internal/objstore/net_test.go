package objstore

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A stall fixture stores one object, day/a.jsonl, in a fake store of its
// driver served through wrap, points the driver at it, and returns the
// prefix URL holding it; isRead tells a request for the object's bytes
// from a listing. Each driver's test file adds its own, so that a build
// without a driver has none.
type stallFixture struct {
	start  func(t *testing.T, wrap func(http.Handler) http.Handler) (prefix string)
	isRead func(*http.Request) bool
}

var stallFixtures = map[string]stallFixture{}

// stallObject is the object every fixture stores.
var stallObject = []byte(strings.Repeat(`{"type":"x","payload":{},"meta":{}}`+"\n", 40))

// shortStall makes a step that makes no progress for d fail, for one test.
func shortStall(t *testing.T, d time.Duration) {
	saved := stallTimeout
	stallTimeout = d
	t.Cleanup(func() { stallTimeout = saved })
}

// stalling serves h, except that the requests stall picks get an answer
// that stops: before its headers when keep is negative, else after its
// headers and keep bytes of its body. A stopped answer waits for the
// client to go.
func stalling(h http.Handler, stall func(*http.Request) bool, keep int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !stall(r) {
			h.ServeHTTP(w, r)
			return
		}
		if keep >= 0 {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			body := rec.Body.Bytes()
			w.Write(body[:min(keep, len(body))])
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	})
}

// serve starts a server for h, closed when the test ends, the
// connections of answers still stopped first.
func serve(t *testing.T, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv
}

// A store that stops answering fails the step it stopped in, naming it and
// the timeout, within a few timeouts (each driver tries a request that got
// no answer again, a few times), and never hangs: before any answer,
// partway through a listing, and partway through an object, from its first
// byte or later.
func TestStall(t *testing.T) {
	const d = 300 * time.Millisecond
	for _, scheme := range Schemes {
		fixture, ok := stallFixtures[scheme]
		if !ok {
			continue
		}
		t.Run(scheme, func(t *testing.T) {
			for _, tc := range []struct {
				name string
				list bool // the listing stalls, not the object's read
				keep int
				step string
			}{
				{"no answer", true, -1, `waiting for 127\.0\.0\.1:\d+ to answer`},
				{"listing stops", true, 20, `reading the answer from 127\.0\.0\.1:\d+`},
				{"object stops at its start", false, 0, `reading the answer from 127\.0\.0\.1:\d+`},
				{"object stops partway", false, 10, `reading the answer from 127\.0\.0\.1:\d+`},
			} {
				t.Run(tc.name, func(t *testing.T) {
					shortStall(t, d)
					prefix := fixture.start(t, func(h http.Handler) http.Handler {
						return stalling(h, func(r *http.Request) bool { return fixture.isRead(r) != tc.list }, tc.keep)
					})
					name, _, _ := strings.Cut(prefix, "?")
					name += "a.jsonl"
					start := time.Now()
					err := within(t, 30*time.Second, func() error {
						s := New()
						defer s.Close()
						objs, err := s.List(context.Background(), prefix)
						if err != nil || tc.list {
							return err
						}
						if len(objs) != 1 || objs[0].Name != name {
							t.Fatalf("listed %v, want %s", objs, name)
						}
						rc, err := s.Open(context.Background(), name, 0)
						if err != nil {
							return err
						}
						defer rc.Close()
						_, err = io.ReadAll(rc)
						return err
					})
					took := time.Since(start)
					want := regexp.MustCompile(`network timeout: no progress for 300ms while ` + tc.step)
					if err == nil || !want.MatchString(err.Error()) {
						t.Fatalf("got %v, want an error matching %q", err, want)
					}
					if _, ok := errors.AsType[*StallError](err); !ok {
						t.Errorf("%v holds no *StallError", err)
					}
					if oe, ok := errors.AsType[*Error](err); tc.list && (!ok || oe.URL != name[:len(name)-len("a.jsonl")]) {
						t.Errorf("%v does not name the prefix", err)
					}
					if took > 20*d {
						t.Errorf("failed after %v, more than %v", took, 20*d)
					}
				})
			}
		})
	}
}

// within runs f, failing the test if it has not returned after limit:
// what a hang looks like.
func within(t *testing.T, limit time.Duration, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("still waiting after %v", limit)
		return nil
	}
}
