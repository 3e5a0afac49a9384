package recording

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
	"github.com/fpcheck/fpcheck/internal/relay"
)

// A recording document is walked by one goroutine, and most of its bytes
// are the engine snapshot, which it only validates. For a large
// uncompressed file, a speculator validates the file from about a third of
// the way on, on another core, meanwhile: it reads the file at its own
// offset (until the walker catches up with it), cuts it
// into chunks at points where a value must start, and summarizes each
// chunk with jsonfast.Speculate. When the walker, validating a value it
// skips, reaches the start of a summarized chunk, the validator takes the
// summary over if its assumptions hold (jsonfast's Apply) and the walker
// skips the chunk: it drops what it has of it and seeks the file past the
// rest, taking the chunk's line count from the summary. Anything else is
// validated as usual, so every answer, error and position is that of
// validating every byte in order; each byte of the file is validated once,
// as the goroutine that validated it read it.

// Speculation sizes (a loader's Options may shrink them in tests).
const (
	specMinSize   = 16 << 20 // smaller files are not worth a goroutine
	specChunk     = 128 << 10
	specLookAhead = 64 << 10 // read past a chunk, for Speculate's look past a comma
	// spareBytes is how much a document walked on one core validates
	// between asking for a core that may have come free: the question
	// costs an atomic swap, and a megabyte is validated in about a
	// millisecond.
	spareBytes = 1 << 20
)

// specChunkSum is one summarized chunk. start is a scanner offset.
type specChunkSum struct {
	start int64
	sum   jsonfast.ChunkSummary
	lines int64 // newlines in the chunk
}

type speculator struct {
	r     io.ReaderAt
	base  int64 // file offset of the scanner's offset 0 (after a byte-order mark)
	from  int64 // scanner offset where speculation starts
	size  int64 // scanner bytes in all
	chunk int

	mu     sync.Mutex
	chunks []specChunkSum // in offset order
	next   int            // the walker's cursor in chunks

	walker atomic.Int64 // the walker's offset: chunks behind it are useless
	stop   chan struct{}
	done   chan struct{}
	// pan is the goroutine's panic (a bug), raised again on the walker's
	// goroutine when it closes the speculator; see relay.
	pan relay.Panic
}

// newSpeculator starts speculating over r, whose scanner bytes start at
// file offset base and number size, from about a third of the way on:
// the walker validates the first part meanwhile, and takes chunks over
// from there.
func newSpeculator(r io.ReaderAt, base, size int64, chunk int) *speculator {
	return speculateFrom(r, base, size, chunk, lateFrom(0, size))
}

// speculateFrom starts speculating over r from scanner offset from on.
func speculateFrom(r io.ReaderAt, base, size int64, chunk int, from int64) *speculator {
	sp := &speculator{r: r, base: base, from: from, size: size, chunk: chunk,
		stop: make(chan struct{}), done: make(chan struct{})}
	go sp.run()
	return sp
}

// lateFrom is where a speculator started for a walker at offset at goes
// from: 30 % of the way into what is left (into the whole file for a
// speculator started with the walk, newSpeculator).
func lateFrom(at, size int64) int64 {
	return at + (size-at)*30/100
}

// close stops the goroutine and waits for it.
func (sp *speculator) close() {
	select {
	case <-sp.stop:
	default:
		close(sp.stop)
	}
	<-sp.done
	sp.pan.Rethrow()
}

func (sp *speculator) stopped() bool {
	select {
	case <-sp.stop:
		return true
	default:
		return false
	}
}

func (sp *speculator) run() {
	defer close(sp.done)
	defer sp.pan.Catch()
	testHook("speculator")
	buf := make([]byte, sp.chunk+specLookAhead)
	at := sp.from // the next chunk starts at or after at
	// buf[:have] holds the file from at on. The bytes read past a chunk
	// for the look ahead are the next chunk's first ones: they are kept
	// rather than read again, which would copy half as much again as the
	// chunks hold (the look ahead is half a chunk).
	have := 0
	advance := func(k int) {
		have = copy(buf, buf[min(k, have):have])
		at += int64(k)
	}
	first := true
	for !sp.stopped() && at < sp.size && sp.walker.Load() < at {
		if want := int(min(int64(len(buf)), sp.size-at)); have < want {
			n, err := sp.r.ReadAt(buf[have:want], sp.base+at+int64(have))
			have += n
			if err != nil && err != io.EOF {
				return
			}
		}
		w := buf[:have]
		if first {
			// Find where the first chunk can start.
			p := jsonfast.SafePoint(w, 0)
			if p < 0 {
				advance(max(have-2, 1))
				continue
			}
			advance(p)
			first = false
			continue
		}
		end := jsonfast.SafePoint(w, sp.chunk)
		if end < 0 {
			return // the end of the file, or no point to cut at
		}
		if sum, ok := jsonfast.Speculate(w, end); ok {
			c := specChunkSum{start: at, sum: sum, lines: int64(bytes.Count(w[:end], newline))}
			sp.mu.Lock()
			sp.chunks = append(sp.chunks, c)
			sp.mu.Unlock()
		}
		advance(end)
	}
}

// at returns the chunk that starts first at or after off, if one is
// ready.
func (sp *speculator) at(off int64) (specChunkSum, bool) {
	sp.walker.Store(off)
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for sp.next < len(sp.chunks) && sp.chunks[sp.next].start < off {
		sp.next++
	}
	if sp.next < len(sp.chunks) {
		return sp.chunks[sp.next], true
	}
	return specChunkSum{}, false
}

// advance moves the cursor past the chunk at returned last.
func (sp *speculator) advance() {
	sp.mu.Lock()
	sp.next++
	sp.mu.Unlock()
}

// pass moves the scanner past the chunk c, whose summary its validator
// has just taken over: the part of it already read is dropped, and the
// source skips the rest unread.
func (s *scanner) pass(c *specChunkSum) error {
	n := int64(c.sum.Len())
	held := min(int64(s.end-s.pos), n)
	rest := n - held
	if rest > 0 {
		unread := c.lines - int64(bytes.Count(s.buf[s.pos:s.end], newline))
		if err := s.skip(rest, unread); err != nil {
			return err
		}
		s.base += int64(s.end) + rest
		s.pos, s.end = 0, 0
	} else {
		s.pos += int(held)
	}
	s.lines += c.lines
	return nil
}
