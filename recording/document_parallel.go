package recording

import (
	"sync"

	"github.com/fpcheck/fpcheck/internal/relay"
)

// eventPipe decodes the elements of a document's events array on worker
// goroutines while the walker reads on. The walker captures elements into
// batches; the results are accounted for on the walker's goroutine, batch
// by batch in document order, before the walker leaves the array, so
// problems, Stats and runs come out as reading one element at a time
// gives them. At most two batches per worker are in flight.
type eventPipe struct {
	l        *loader
	inFlight int
	cur      *eventBatch
	queue    []*eventBatch // handed to the workers, not yet accounted for
	free     []*eventBatch
	work     chan *eventBatch
	wg       sync.WaitGroup
	err      error // the accounting failed: nothing more is accounted for
	// pan is a worker's panic (a bug), raised again on the walker's
	// goroutine; see relay.
	pan relay.Panic
}

// eventBatch is consecutive elements of an events array.
type eventBatch struct {
	buf  []byte  // the elements, back to back
	ends []int   // end of each element in buf
	at   []where // where each element is
	// lines is the line of the document each element ends on: a load
	// that stops at an element has read that many lines.
	lines []int64
	res   []decodedEvent
	done  chan struct{} // closed when res is filled
}

func newEventPipe(l *loader) *eventPipe {
	p := &eventPipe{l: l, inFlight: 2 * l.opts.Workers}
	p.work = make(chan *eventBatch, p.inFlight)
	p.cur = p.newBatch()
	for range l.opts.Workers {
		p.wg.Go(func() {
			d := l.workerDecoder()
			for b := range p.work {
				guarded(&p.pan, b.done, "document decoder", func() { b.decode(&d) })
			}
		})
	}
	return p
}

func (p *eventPipe) newBatch() *eventBatch {
	var b *eventBatch
	if n := len(p.free); n > 0 {
		b, p.free = p.free[n-1], p.free[:n-1]
	} else {
		b = &eventBatch{}
	}
	if cap(b.buf) > maxKeptBatchBytes {
		b.buf = nil
	}
	if b.buf == nil {
		// A batch fills to batchBytes and one element more: start it
		// near that size instead of growing it by copying.
		b.buf = make([]byte, 0, p.l.opts.batchBytes+64<<10)
	}
	b.buf, b.ends, b.at, b.lines = b.buf[:0], b.ends[:0], b.at[:0], b.lines[:0]
	b.res = b.res[:0]
	b.done = make(chan struct{})
	return b
}

func (b *eventBatch) decode(d *eventDecoder) {
	if cap(b.res) < len(b.ends) {
		b.res = make([]decodedEvent, len(b.ends))
	}
	b.res = b.res[:len(b.ends)]
	start := 0
	for i, end := range b.ends {
		d.decode(b.buf[start:end], &b.res[i])
		start = end
	}
	close(b.done)
}

// add captures the element at the scanner (found at wh) into the current
// batch; outer is the document's own scanner, which s is or is inside of.
// tooLong words a capture failure.
func (p *eventPipe) add(s, outer *scanner, wh where, tooLong func(error, where) error) error {
	if p.err != nil {
		return p.err
	}
	b := p.cur
	buf, err := s.appendValue(b.buf, p.l.opts.MaxLineBytes)
	if err != nil {
		return tooLong(err, wh)
	}
	b.buf = buf
	b.ends = append(b.ends, len(buf))
	b.at = append(b.at, wh)
	b.lines = append(b.lines, outer.line())
	if len(b.ends) >= p.l.opts.batchLines || len(b.buf) >= p.l.opts.batchBytes {
		return p.send()
	}
	return nil
}

// send hands the current batch to the workers, then accounts for the
// batches already decoded, waiting for the oldest when too many are out.
func (p *eventPipe) send() error {
	b := p.cur
	p.cur = p.newBatch()
	p.queue = append(p.queue, b)
	p.work <- b // never blocks: the queue is shorter than the channel
	for len(p.queue) > 0 {
		h := p.queue[0]
		if len(p.queue) < p.inFlight {
			select {
			case <-h.done:
			default:
				return nil
			}
		} else {
			<-h.done
		}
		p.raise()
		p.queue = p.queue[1:]
		if err := p.account(h); err != nil {
			return err
		}
		clear(h.res) // the runs own the events now
		p.free = append(p.free, h)
	}
	return nil
}

// raise stops the workers and panics again with a worker's panic, if one
// panicked.
func (p *eventPipe) raise() {
	if p.pan.Caught() {
		close(p.work)
		p.pan.Rethrow()
	}
}

// account states the results of one batch, in order.
func (p *eventPipe) account(b *eventBatch) error {
	start := 0
	for i, end := range b.ends {
		raw := b.buf[start:end]
		start = end
		if err := p.l.documentEvent(&b.res[i], raw, b.at[i]); err != nil {
			p.err = err
			p.l.stopLines = b.lines[i]
			return err
		}
	}
	return nil
}

// finish accounts for every element captured (unless the accounting
// already failed), stops the workers and returns the accounting's error.
func (p *eventPipe) finish() error {
	if p.err == nil && len(p.cur.ends) > 0 {
		b := p.cur
		p.queue = append(p.queue, b)
		p.work <- b
	}
	for _, b := range p.queue {
		<-b.done
		p.raise()
		if p.err == nil {
			p.account(b)
		}
	}
	p.queue = nil
	close(p.work)
	p.wg.Wait()
	return p.err
}
