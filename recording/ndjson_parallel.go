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

// byteBudget counts the buffer bytes of the batches in flight: the reader
// takes before it hands a batch over, the loader gives back when it is
// done with one.
type byteBudget struct {
	mu     sync.Mutex
	cond   sync.Cond
	limit  int
	used   int
	halted bool
}

func newByteBudget(limit int) *byteBudget {
	b := &byteBudget{limit: limit}
	b.cond.L = &b.mu
	return b
}

// take waits until n more bytes fit, or nothing is in flight (a batch
// larger than the whole budget goes alone). It reports false once the
// loader has stopped.
func (b *byteBudget) take(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.used > 0 && b.used+n > b.limit && !b.halted {
		b.cond.Wait()
	}
	if b.halted {
		return false
	}
	b.used += n
	return true
}

func (b *byteBudget) give(n int) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	b.cond.Signal()
}

// halt wakes a waiting take for good: the loader will give nothing back.
func (b *byteBudget) halt() {
	b.mu.Lock()
	b.halted = true
	b.mu.Unlock()
	b.cond.Signal()
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
	order := make(chan *lineBatch, inFlight) // batches in input order
	work := make(chan *lineBatch, inFlight)  // batches to decode
	free := make(chan *lineBatch, inFlight+2)
	stop := make(chan struct{})
	budget := newByteBudget(l.opts.inFlightBytes)
	// halt tells the reader to stop, wherever it waits.
	halt := func() {
		close(stop)
		budget.halt()
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
			if !budget.take(b.charged) {
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
		budget.give(b.charged)
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
