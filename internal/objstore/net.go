package objstore

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"
)

// stallTimeout is how long a request to object storage may go without
// progress: a name lookup, a connection, a TLS handshake, the wait for an
// answer, and every read of an answer's body. It bounds each step, never
// the whole request, since a large recording takes as long to stream as it
// takes; a store that stops answering fails the step with a *StallError
// instead of holding fpcheck forever. It is the one setting for every
// driver; the tests shorten it.
var stallTimeout = 30 * time.Second

// dial opens the drivers' connections; the tests replace it.
var dial = (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext

// StallError says which step of a request made no progress for how long.
type StallError struct {
	Step  string // "waiting for HOST to answer", …
	After time.Duration
}

func (e *StallError) Error() string {
	return fmt.Sprintf("network timeout: no progress for %s while %s", e.After, e.Step)
}

// Timeout and Temporary make a stall the network timeout it is to the
// SDKs' retry policies, which try such a request again.
func (e *StallError) Timeout() bool   { return true }
func (e *StallError) Temporary() bool { return true }

// newTransport is the transport every driver's requests go through: the
// default transport's settings, dialling through dial.
func newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return dial(ctx, network, addr)
	}
	return t
}

// sharedTransport pools the connections of every bucket opened.
var sharedTransport = sync.OnceValue(func() http.RoundTripper { return &stallTransport{base: newTransport()} })

// netClient is the HTTP client the drivers are given.
func netClient() *http.Client { return &http.Client{Transport: sharedTransport()} }

// stallTransport fails a request whose current step makes no progress
// for stallTimeout.
type stallTransport struct{ base http.RoundTripper }

func (s *stallTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return watched(req, s.base.RoundTrip)
}

// watched sends req through send, failing it at a step that makes no
// progress for stallTimeout.
func watched(req *http.Request, send func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	w := newWatch(req.Context(), req.URL.Host)
	resp, err := send(req.WithContext(httptrace.WithClientTrace(w.ctx, w.trace())))
	if err != nil {
		return nil, w.end(err)
	}
	w.progress("reading the answer from " + w.host)
	w.pause()
	resp.Body = &stallBody{ReadCloser: resp.Body, w: w}
	return resp, nil
}

// watch times the steps of one request. Each sign of progress restarts
// the clock; when it runs out, the request's context is cancelled and the
// step it stopped in is kept for the error.
type watch struct {
	ctx    context.Context
	cancel context.CancelFunc
	host   string
	after  time.Duration
	timer  *time.Timer

	mu      sync.Mutex
	step    string
	stalled string // the step that ran out of time
}

func newWatch(parent context.Context, host string) *watch {
	ctx, cancel := context.WithCancel(parent)
	w := &watch{ctx: ctx, cancel: cancel, host: host, after: stallTimeout, step: "connecting to " + host}
	w.timer = time.AfterFunc(w.after, w.expire)
	return w
}

func (w *watch) expire() {
	w.mu.Lock()
	if w.stalled == "" {
		w.stalled = w.step
	}
	w.mu.Unlock()
	w.cancel()
}

// progress restarts the clock for the next step.
func (w *watch) progress(step string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stalled == "" {
		w.step = step
		w.timer.Reset(w.after)
	}
}

// pause stops the clock until the next read (resume): the time between
// reads is the reader's, not the network's.
func (w *watch) pause() { w.timer.Stop() }

func (w *watch) resume() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stalled == "" {
		w.timer.Reset(w.after)
	}
}

// stall is the error for a step that ran out of time, or nil.
func (w *watch) stall() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stalled == "" {
		return nil
	}
	return &StallError{Step: w.stalled, After: w.after}
}

// end finishes a request that failed, naming the stall that failed it.
func (w *watch) end(err error) error {
	w.timer.Stop()
	if serr := w.stall(); serr != nil {
		err = serr
	}
	w.cancel()
	return err
}

func (w *watch) trace() *httptrace.ClientTrace {
	host := w.host
	return &httptrace.ClientTrace{
		DNSStart:          func(httptrace.DNSStartInfo) { w.progress("looking up " + host) },
		DNSDone:           func(httptrace.DNSDoneInfo) { w.progress("connecting to " + host) },
		ConnectStart:      func(string, string) { w.progress("connecting to " + host) },
		TLSHandshakeStart: func() { w.progress("in the TLS handshake with " + host) },
		TLSHandshakeDone:  func(tls.ConnectionState, error) { w.progress("sending the request to " + host) },
		GotConn:           func(httptrace.GotConnInfo) { w.progress("sending the request to " + host) },
		WroteRequest:      func(httptrace.WroteRequestInfo) { w.progress("waiting for " + host + " to answer") },
		GotFirstResponseByte: func() {
			w.progress("reading the answer's headers from " + host)
		},
	}
}

// stallBody times each read of an answer's body.
type stallBody struct {
	io.ReadCloser
	w *watch
}

func (b *stallBody) Read(p []byte) (int, error) {
	b.w.resume()
	n, err := b.ReadCloser.Read(p)
	b.w.pause()
	if err != nil && err != io.EOF {
		if serr := b.w.stall(); serr != nil {
			return n, serr
		}
	}
	return n, err
}

func (b *stallBody) Close() error {
	err := b.ReadCloser.Close()
	b.w.end(nil)
	return err
}
