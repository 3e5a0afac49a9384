package recording

import (
	"io"
	"runtime"
	"sync"

	"github.com/fpcheck/fpcheck/internal/relay"
)

// Decoding is nearly all the cost of reading a stream, and lines decode
// independently, so a stream is read by a pipeline: one goroutine splits
// lines into batches, decoder goroutines decode batches, and the loader's
// own goroutine counts the results batch by batch in input order, exactly
// as the serial loop does. Every Stats field, problem and run is therefore
// the same with any number of decoders. At most three batches per decoder
// are in flight, and at most Options.inFlightBytes of them unless a single
// batch is larger, so memory stays flat: batches are bounded in lines and
// bytes, except that a line longer than a batch travels alone, and a
// stream of very long lines holds one or two of them at a time. (Two
// batches per decoder were too few: a batch holding one of a stream's
// long tool results keeps the loader waiting while the reader, its queue
// full, waits on the loader, and the other decoders run out of work.)
//
// The reading goroutine (decompression included) is the pipeline's one
// serial stage, and it and the loader block and wake many times a second.
// So that no core idles meanwhile, there is one decoder more than
// Options.Workers, and a decoder yields its core after each batch: left
// to the scheduler's time slice, two decoders could hold both cores while
// the reader waits to refill a queue they are draining.

// Batch bounds (Options.batchLines and batchBytes).
const (
	defaultBatchLines = 256
	defaultBatchBytes = 1 << 20
	// maxKeptBatchBytes is the largest batch buffer kept for reuse, so
	// one huge line does not pin its memory for the rest of the stream.
	maxKeptBatchBytes = 2 << 20
	// defaultInFlightBytes is Options.inFlightBytes by default: about
	// twice what full batches fill the queues with.
	defaultInFlightBytes = 16 << 20
)

// batchGate bounds the batches in flight, in number and in buffer bytes:
// the reader takes before it hands a batch over, the loader gives back
// when it is done with one.
//
// A reader that had to wait resumes only once the loader has taken the
// queue down to low batches, and then fills it again in one go. Let go at
// every batch given back, as a full channel lets a blocked sender go, it
// would be woken once per batch whenever the loader is the slow stage (a
// replay with every check armed): each wake-up took the loader's thread
// into the kernel to start another, and the woken one spun looking for
// work before it slept again, a few percent of the run's CPU.
type batchGate struct {
	mu      sync.Mutex
	cond    sync.Cond
	limit   int // bytes
	most    int // batches
	low     int // batches a waiting reader waits for
	used    int
	batches int
	want    int // the bytes a waiting take asks for; -1 when none waits
	halted  bool
}

func newBatchGate(limit, most, low int) *batchGate {
	g := &batchGate{limit: limit, most: most, low: min(low, most-1), want: -1}
	g.cond.L = &g.mu
	return g
}

// fits reports whether n more bytes may go while fewer than most batches
// are in flight; with nothing in flight anything goes (a batch larger than
// the whole budget goes alone).
func (g *batchGate) fits(n, most int) bool {
	return g.used == 0 || g.used+n <= g.limit && g.batches < most
}

// take waits until a batch of n bytes fits (see batchGate). It reports
// false once the loader has stopped.
func (g *batchGate) take(n int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.fits(n, g.most) {
		g.want = n
		for !g.halted && !g.fits(n, g.low+1) {
			g.cond.Wait()
		}
		g.want = -1
	}
	if g.halted {
		return false
	}
	g.used += n
	g.batches++
	return true
}

// give returns a batch of n bytes, waking a waiting reader once its take
// may go; it reports whether it woke one.
func (g *batchGate) give(n int) (woke bool) {
	g.mu.Lock()
	g.used -= n
	g.batches--
	woke = g.want >= 0 && g.fits(g.want, g.low+1)
	g.mu.Unlock()
	if woke {
		g.cond.Signal()
	}
	return woke
}

// halt wakes a waiting take for good: the loader will give nothing back.
func (g *batchGate) halt() {
	g.mu.Lock()
	g.halted = true
	g.mu.Unlock()
	g.cond.Signal()
}

// lineBatch is consecutive lines of a stream with their decoded results.
type lineBatch struct {
	first    int64  // line number of the first line
	buf      []byte // the lines, without newlines, back to back
	ends     []int  // end of each line in buf
	lastNoNL bool   // the last line had no newline (the end of the input)
	charged  int    // what the batch took from the byte budget
	res      []lineResult
	// err is a failure to read the line after the batch's lines, line
	// errLine; it ends the stream.
	err     error
	errLine int64
	done    chan struct{} // closed when res is filled
}

func (b *lineBatch) reset(first int64) {
	b.first = first
	if cap(b.buf) > maxKeptBatchBytes {
		b.buf = nil
	}
	b.buf = b.buf[:0]
	b.ends = b.ends[:0]
	b.lastNoNL = false
	b.res = b.res[:0]
	b.err = nil
	b.errLine = 0
	b.done = make(chan struct{})
}

// guarded runs a batch's decode (stage names it for testHook), keeping a
// panic in pan and closing the batch's done all the same, so that the
// goroutine waiting on done wakes to raise it.
func guarded(pan *relay.Panic, done chan struct{}, stage string, decode func()) {
	defer func() {
		if v := recover(); v != nil {
			pan.Keep(v)
			close(done)
		}
	}()
	testHook(stage)
	decode()
}

// decode fills b.res.
func (b *lineBatch) decode(d *eventDecoder, w where) {
	if cap(b.res) < len(b.ends) {
		b.res = make([]lineResult, len(b.ends))
	}
	b.res = b.res[:len(b.ends)]
	start := 0
	for i, end := range b.ends {
		w.line = b.first + int64(i)
		nl := !b.lastNoNL || i < len(b.ends)-1
		decodeLine(d, b.buf[start:end], nl, w, &b.res[i])
		start = end
	}
	close(b.done)
}

// readNDJSONParallel reads the rest of a stream, of which lines lines were
// already read and counted, through the pipeline above.
func (l *loader) readNDJSONParallel(src *source, lr *lineReader, w where, lines int64) error {
	decoders := l.opts.Workers + 1
	maxLines, maxBytes := l.opts.batchLines, l.opts.batchBytes
	inFlight := 3 * decoders
	// The gate lets at most inFlight+1 batches go (the loader's and a
	// full queue), so sends on the channels never wait.
	gate := newBatchGate(l.opts.inFlightBytes, inFlight+1, decoders)
	order := make(chan *lineBatch, inFlight+1) // batches in input order
	work := make(chan *lineBatch, inFlight+1)  // batches to decode
	free := make(chan *lineBatch, inFlight+2)
	stop := make(chan struct{})
	// halt tells the reader to stop, wherever it waits.
	halt := func() {
		close(stop)
		gate.halt()
	}
	// A panic on the pipeline's goroutines (a bug) is raised again here,
	// on the loader's goroutine; see relay.
	var pan relay.Panic

	src.acquire()
	go func() {
		defer src.releaseReader()
		defer close(work)
		defer close(order)
		// Deferred last so it runs first: the panic is kept before the
		// loader sees the channels close.
		defer pan.Catch()
		newBatch := func(first int64) *lineBatch {
			var b *lineBatch
			select {
			case b = <-free:
			default:
				b = &lineBatch{}
			}
			b.reset(first)
			return b
		}
		// send hands b to the loader and the workers; false means stop.
		send := func(b *lineBatch) bool {
			b.charged = cap(b.buf)
			if !gate.take(b.charged) {
				return false
			}
			select {
			case order <- b:
			case <-stop:
				return false
			}
			if len(b.ends) == 0 {
				close(b.done)
				return true
			}
			select {
			case work <- b:
				return true
			case <-stop:
				return false
			}
		}
		lineNo := lines
		cur := newBatch(lineNo + 1)
		testHook("stream reader")
		for {
			// Unless the input is a regular file, a partial batch is
			// handed over rather than wait on a slow writer for the next
			// line: the runs before it are not held back. A file's batches
			// are filled, as handing one over costs the pipeline more
			// than decoding a few lines.
			if len(cur.ends) > 0 && (len(cur.ends) >= maxLines || len(cur.buf) >= maxBytes || src.file == nil && !lr.buffered()) {
				if !send(cur) {
					return
				}
				cur = newBatch(lineNo + 1)
			}
			line, nl, err := lr.next()
			if err == io.EOF {
				if len(cur.ends) > 0 {
					send(cur)
				}
				return
			}
			lineNo++
			if err != nil {
				cur.err, cur.errLine = err, lineNo
				send(cur)
				return
			}
			if nl {
				line = line[:len(line)-1]
			}
			if len(cur.ends) > 0 && len(cur.buf)+len(line) > maxBytes {
				// A long line starts a batch of its own.
				if !send(cur) {
					return
				}
				cur = newBatch(lineNo)
			}
			cur.buf = append(cur.buf, line...)
			cur.ends = append(cur.ends, len(cur.buf))
			cur.lastNoNL = !nl
		}
	}()

	var wg sync.WaitGroup
	base := w // the workers' own copy: the loop below moves w.line
	for range decoders {
		wg.Go(func() {
			d := l.workerDecoder()
			for b := range work {
				guarded(&pan, b.done, "stream decoder", func() { b.decode(&d, base) })
				runtime.Gosched()
			}
		})
	}

	for b := range order {
		<-b.done
		if pan.Caught() {
			halt()
			pan.Rethrow()
		}
		for i := range b.res {
			w.line = b.first + int64(i)
			if err := l.applyLine(&b.res[i], w); err != nil {
				// The reader may be waiting on a slow writer: do not wait
				// for it. It stops at its next batch, and closes the
				// source if the loader has let go of it by then.
				halt()
				return err
			}
		}
		if b.err != nil {
			err := l.lineError(src, b.err, b.errLine)
			halt()
			return err
		}
		clear(b.res) // the runs own the events now
		gate.give(b.charged)
		select {
		case free <- b:
		default:
		}
	}
	wg.Wait()
	// The reader closes its channels when it panics too: what looked like
	// the end of the input was not.
	pan.Rethrow()
	return nil
}
