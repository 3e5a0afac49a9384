package recording

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// readBufSize is the line reader's buffer: lines up to this size are read
// without copying; longer ones are assembled. A stream's lines are handed
// to the decoding workers in batches of what the buffer holds, so it is
// large enough for a full batch.
const readBufSize = 256 << 10

// maxReadCall bounds each read of the input itself. The Go runtime hands
// the core of a goroutine it finds still inside a system call (its monitor
// looks every 20 µs while it keeps finding some) to another thread, and the
// reader has to win a core back when the call returns. A 512 KiB copy out
// of the page cache lasted long enough to be caught often; with several
// inputs read at once (-j) that churn cost about a tenth of the wall time.
// Reads of 128 KiB are rarely caught, and the extra calls cost nothing
// measurable.
const maxReadCall = 128 << 10

// sniffWindow is how much of the (decompressed) input the format sniffer
// looks at.
const sniffWindow = 64 << 10

// source is one input stream, decompressed, with the accounting the error
// messages need: compressed bytes consumed, decompressed bytes produced,
// newlines seen.
type source struct {
	name        string
	compression string
	format      Format
	br          *bufio.Reader
	close       func()
	in          *countReader // compressed (or raw) bytes consumed
	out         *guardReader // decompressed bytes produced
	bom         bool         // a UTF-8 byte-order mark was skipped
	// zstdWindow is the window the first zstd frame's header asks for; 0
	// when the header does not say (a frame sized to its content, a
	// skippable frame first, a header cut short). The decoder's "window
	// size exceeded" is also its word for a block larger than its frame's
	// window, which is corrupt data: this tells the two apart.
	zstdWindow uint64
	// file is the input when it is a regular file, whose reads never wait
	// on a writer (a pipe's or a terminal's may, and any other reader's
	// might); nil otherwise. start is the file's offset where the input
	// starts.
	file  *os.File
	start int64

	// A stream's lines are read on a goroutine of their own (see
	// readNDJSONParallel), which the loader does not wait for when it
	// stops early: the source is then closed by whichever of the two lets
	// go of it last.
	mu          sync.Mutex
	readers     int  // goroutines reading br
	closeWanted bool // the loader is done with the source
}

// acquire registers a goroutine that reads br until it calls
// releaseReader.
func (s *source) acquire() {
	s.mu.Lock()
	s.readers++
	s.mu.Unlock()
}

// releaseReader ends acquire, closing the source if the loader is already
// done with it.
func (s *source) releaseReader() {
	s.mu.Lock()
	s.readers--
	closeNow := s.readers == 0 && s.closeWanted
	s.mu.Unlock()
	if closeNow {
		s.close()
	}
}

// release is the loader letting go of the source: it is closed now, or by
// its last reader when that one ends.
func (s *source) release() {
	s.mu.Lock()
	if s.readers > 0 {
		s.closeWanted = true
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	s.close()
}

// countReader counts the bytes read through it, reading at most
// maxReadCall bytes at a time.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	if len(p) > maxReadCall {
		p = p[:maxReadCall]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// guardReader sits on the decompressed stream. It enforces the
// decompressed-size limit, counts newlines and remembers the last byte (so
// a document's line count needs no second pass), and turns decoder and
// read failures into *InputError with offsets.
type guardReader struct {
	src      *source
	r        io.Reader
	limit    int64 // 0: no limit (uncompressed input)
	n        int64
	newlines int64
	// noLines stops the newline count: a stream counts its lines as it
	// splits them, and only a document needs this count.
	noLines bool
	last    byte
}

func (g *guardReader) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if n > 0 {
		g.n += int64(n)
		if !g.noLines {
			g.newlines += int64(bytes.Count(p[:n], []byte{'\n'}))
		}
		g.last = p[n-1]
	}
	if g.limit > 0 && g.n > g.limit {
		return n, &InputError{Path: g.src.name, Offset: g.src.in.n, Err: fmt.Errorf(
			"decompresses to more than %s (limit set by --max-decompressed-bytes); stopped near compressed byte offset %d — the input may be a decompression bomb",
			humanBytes(g.limit), g.src.in.n)}
	}
	if err != nil && err != io.EOF {
		return n, g.src.readError(err, g.n)
	}
	return n, err
}

// readError describes a failure of the underlying stream: corrupt or
// truncated compressed data, or an I/O error.
func (s *source) readError(err error, decompressed int64) error {
	var ie *InputError
	if errors.As(err, &ie) {
		return err
	}
	if s.compression == "none" {
		return &InputError{Path: s.name, Offset: s.in.n, Err: fmt.Errorf("read failed at byte offset %d: %w", s.in.n, err)}
	}
	what := "corrupt " + s.compression + " data"
	if errors.Is(err, io.ErrUnexpectedEOF) {
		what = "the " + s.compression + " stream ends early (truncated)"
	}
	if errors.Is(err, zstd.ErrWindowSizeExceeded) {
		if s.zstdWindow > MaxZstdWindow {
			return &InputError{Path: s.name, Offset: s.in.n, Err: fmt.Errorf(
				"the zstd stream asks for a window of %s, larger than the %s this reader allows; recompress with a smaller window (e.g. without --long=31): %w",
				humanBytes(int64(min(s.zstdWindow, math.MaxInt64))), humanBytes(MaxZstdWindow), err)}
		}
		what = fmt.Sprintf("corrupt zstd data (a block larger than its frame's window, or a later frame asking for a window larger than %s)", humanBytes(MaxZstdWindow))
	}
	return &InputError{Path: s.name, Offset: s.in.n, Err: fmt.Errorf(
		"%s near compressed byte offset %d (decompressed byte offset %d): %w", what, s.in.n, decompressed, err)}
}

// gzipMembers reads a gzip file member by member. A file may hold several
// members, decompressed as one stream; read as one by the decoder, bytes
// after the last member that are no member read as a member cut off
// ("unexpected EOF") or one with a bad header. Here, where a member ends is
// known, and what follows is either another member or an error saying that
// a complete stream is followed by other data, and where.
type gzipMembers struct {
	src *source
	br  *bufio.Reader // the compressed bytes
	zr  *gzip.Reader
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if err != io.EOF {
		return n, err
	}
	next, perr := g.br.Peek(describedBytes)
	switch {
	case len(next) == 0 && perr == io.EOF:
		return n, io.EOF
	case len(next) == 0:
		return n, perr
	case bytes.HasPrefix(next, magicGzip) || bytes.HasPrefix(magicGzip, next):
		// Another member, or the start of one cut off, which the
		// decoder reports as such.
		if err := g.zr.Reset(g.br); err != nil {
			return n, err
		}
		g.zr.Multistream(false)
		return n, nil
	}
	at := g.src.in.n - int64(g.br.Buffered())
	return n, &InputError{Path: g.src.name, Offset: at, Err: fmt.Errorf(
		"a complete gzip member ends at compressed byte offset %d, and the data after it is not another gzip member: %s", at, describeStart(next))}
}

// zstdMaxHeader is the longest zstd frame header: magic number, frame
// header descriptor, window descriptor, dictionary id and content size.
const zstdMaxHeader = 4 + 1 + 1 + 4 + 8

// Magic numbers, checked before any parsing.
var (
	magicZstd  = []byte{0x28, 0xB5, 0x2F, 0xFD}
	magicGzip  = []byte{0x1F, 0x8B}
	magicXz    = []byte{0xFD, '7', 'z', 'X', 'Z', 0x00}
	magicBzip2 = []byte("BZh")
	magicZip   = []byte("PK\x03\x04")
)

// isZstdSkippable reports a zstd skippable frame (magic 0x184D2A5?), which
// may precede the first data frame.
// newZstdReader is a zstd decoder as the loader reads with it: one
// goroutine, and no window past MaxZstdWindow.
func newZstdReader(r io.Reader) (*zstd.Decoder, error) {
	return zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(MaxZstdWindow))
}

// Compressed reports whether head, the first bytes of an input, starts
// as gzip or zstd, the compressions the loader reads.
func Compressed(head []byte) bool {
	return bytes.HasPrefix(head, magicGzip) || bytes.HasPrefix(head, magicZstd)
}

// Decompressor is r decompressed, for a reader of something other than a
// recording kept compressed as recordings are (a saved report): gzip or
// zstd by head, r's first bytes, as the loader takes them. ok is false for
// anything else, and for a stream whose header does not decode. done
// releases the decoder.
func Decompressor(head []byte, r io.Reader) (dec io.Reader, done func(), ok bool) {
	switch {
	case bytes.HasPrefix(head, magicGzip):
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, false
		}
		return zr, func() { zr.Close() }, true
	case bytes.HasPrefix(head, magicZstd):
		zr, err := newZstdReader(r)
		if err != nil {
			return nil, nil, false
		}
		return zr, zr.Close, true
	}
	return nil, nil, false
}

func isZstdSkippable(b []byte) bool {
	return len(b) >= 4 && b[0]&0xF0 == 0x50 && b[1] == 0x2A && b[2] == 0x4D && b[3] == 0x18
}

// openSource detects compression by magic bytes, sets up decompression and
// sniffs the format of the decompressed bytes. When it fails after the
// compression is known, it still returns the (closed) source alongside the
// error, so that the input's accounting can say it was compressed.
func openSource(name string, r io.Reader, opts Options) (*source, error) {
	s, err := openStream(name, r, opts)
	if err != nil {
		return s, err
	}
	window, err := s.br.Peek(sniffWindow)
	atEOF := false
	switch {
	case err == nil || err == bufio.ErrBufferFull:
	case err == io.EOF:
		atEOF = true
	case len(window) > 0 && s.compression != "none":
		// A compressed input that breaks within the sniff window: what
		// came out before the break is sniffed and read as any input read
		// up to an error is (its runs read whole are judged), and the
		// error comes after it. bufio hands a read error over once.
		kept := append([]byte(nil), window...)
		s.br = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(kept), errorReader{err}), readBufSize)
		window, atEOF = kept, true
	default:
		s.close()
		return s, err
	}
	f, serr := sniffFormat(window, atEOF)
	if ue, ok := errors.AsType[*undecidedError](serr); ok {
		f, serr = s.sniffFurther(ue, opts)
	}
	if serr != nil {
		s.close()
		var ie *InputError
		if errors.As(serr, &ie) {
			return s, serr
		}
		return s, &InputError{Path: name, Err: serr}
	}
	s.format = f
	s.out.noLines = f == FormatNDJSON
	return s, nil
}

// openStream detects compression by magic bytes, sets up decompression and
// steps over a UTF-8 byte-order mark; see openSource.
func openStream(name string, r io.Reader, opts Options) (*source, error) {
	s := &source{name: name, compression: "none", close: func() {}}
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if start, err := f.Seek(0, io.SeekCurrent); err == nil {
				s.file, s.start = f, start
			}
		}
	}
	s.in = &countReader{r: r}
	// Enough for a whole zstd frame header (see zstdWindow); every magic
	// number is shorter.
	var magic [zstdMaxHeader]byte
	n, err := io.ReadFull(s.in, magic[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, &InputError{Path: name, Err: fmt.Errorf("read failed: %w", err)}
	}
	head := io.MultiReader(bytes.NewReader(magic[:n]), s.in)
	m := magic[:n]
	var dec io.Reader = head
	var limit int64
	switch {
	case bytes.HasPrefix(m, magicZstd) || isZstdSkippable(m):
		zr, err := newZstdReader(head)
		if err != nil {
			return s, s.withCompression("zstd").readError(err, 0)
		}
		s.compression = "zstd"
		s.close = zr.Close
		var h zstd.Header
		if h.Decode(m) == nil && !h.Skippable && !h.SingleSegment {
			s.zstdWindow = h.WindowSize
		}
		dec, limit = zr, opts.MaxDecompressedBytes
	case bytes.HasPrefix(m, magicGzip):
		s.compression = "gzip"
		// A byte reader, so that the decoder reads no further than a
		// member's end (see gzipMembers).
		br := bufio.NewReader(head)
		zr, err := gzip.NewReader(br)
		if err != nil {
			return s, s.readError(err, 0)
		}
		zr.Multistream(false)
		s.close = func() { zr.Close() }
		dec, limit = &gzipMembers{src: s, br: br, zr: zr}, opts.MaxDecompressedBytes
	case bytes.HasPrefix(m, magicXz):
		return nil, &InputError{Path: name, Err: errors.New("xz-compressed data; this build reads zstd and gzip compression only")}
	case bytes.HasPrefix(m, magicBzip2):
		return nil, &InputError{Path: name, Err: errors.New("bzip2-compressed data; this build reads zstd and gzip compression only")}
	case bytes.HasPrefix(m, magicZip):
		return nil, &InputError{Path: name, Err: fmt.Errorf("%w: a zip archive (an agentfootprint bug report?); unpack it and pass the envelope.json or recording.json inside", ErrNotRecording)}
	}
	s.out = &guardReader{src: s, r: dec, limit: limit}
	s.br = bufio.NewReaderSize(s.out, readBufSize)

	// A UTF-8 byte-order mark is not JSON; step over it (and say so).
	if b, err := s.br.Peek(3); err == nil && bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
		s.br.Discard(3)
		s.bom = true
	}
	return s, nil
}

// again opens the input a second time, from its start, with a reading of
// its own: ReadAt leaves the file's offset, and so the first reading, where
// it is. It is nil for an input that is not a regular file, which cannot
// be read twice.
func (s *source) again(opts Options) (*source, error) {
	if s.file == nil {
		return nil, nil
	}
	return openStream(s.name, io.NewSectionReader(s.file, s.start, math.MaxInt64-s.start), opts)
}

// skip moves an uncompressed regular file n bytes on without reading them,
// as if they had been read, newlines of them being newlines: the bytes the
// read buffer holds are dropped and the file is sought past the rest.
func (s *source) skip(n, newlines int64) error {
	if s.file == nil || s.compression != "none" {
		return &InputError{Path: s.name, Err: errors.New("internal: only an uncompressed file can be skipped through")}
	}
	held := min(n, int64(s.br.Buffered()))
	b, _ := s.br.Peek(int(held))
	newlines -= int64(bytes.Count(b, newline)) // counted as they were read
	s.br.Discard(int(held))
	rest := n - held
	if rest == 0 {
		return nil
	}
	if _, err := s.file.Seek(rest, io.SeekCurrent); err != nil {
		return s.readError(err, s.out.n)
	}
	s.in.n += rest
	s.out.n += rest
	s.out.newlines += newlines
	return nil
}

func (s *source) withCompression(c string) *source {
	s.compression = c
	return s
}

// documentLines is the line count of a fully read document: its newlines,
// plus a last line without one.
func (s *source) documentLines() int64 {
	n := s.out.newlines
	if s.out.n > 0 && s.out.last != '\n' {
		n++
	}
	return n
}

// errorReader is a reader that has nothing but its error to give.
type errorReader struct{ err error }

func (r errorReader) Read([]byte) (int, error) { return 0, r.err }
