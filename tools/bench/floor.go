package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
	"github.com/klauspost/compress/zstd"
)

// floorWork is the floor of (b): the least any Go reader of the stream
// does. One goroutine decompresses (klauspost zstd) and splits lines into
// batches of about 1 MiB; threads goroutines check each line with
// jsonfast.Valid and jsonfast.ValidUTF8, and nothing else. A line that
// fails is an error, so that the floor is known to have read what
// fpcheck reads.
func floorWork(path string, threads int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := zstd.NewReader(bufio.NewReaderSize(f, 128<<10), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return err
	}
	defer zr.Close()
	return validateLines(zr, threads)
}

// validateLines splits r into lines and validates them on threads
// goroutines; it returns the first invalid line's number.
func validateLines(r io.Reader, threads int) error {
	type batch struct {
		buf   []byte
		first int // line number of the batch's first line
	}
	work := make(chan batch, 2*threads)
	var (
		mu  sync.Mutex
		bad = -1
		wg  sync.WaitGroup
	)
	for range threads {
		wg.Go(func() {
			for b := range work {
				n := b.first
				for line := range bytes.SplitSeq(b.buf, []byte("\n")) {
					if len(line) > 0 && !(jsonfast.Valid(line) && jsonfast.ValidUTF8(line)) {
						mu.Lock()
						if bad < 0 || n < bad {
							bad = n
						}
						mu.Unlock()
					}
					n++
				}
			}
		})
	}
	br := bufio.NewReaderSize(r, 256<<10)
	line, cur := 1, batch{first: 1}
	var err error
	for {
		var chunk []byte
		chunk, err = br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			cur.buf = append(cur.buf, chunk...)
			continue
		}
		cur.buf = append(cur.buf, chunk...)
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			line++
		}
		if len(cur.buf) >= 1<<20 || err != nil {
			cur.buf = bytes.TrimSuffix(cur.buf, []byte("\n"))
			work <- cur
			cur = batch{first: line, buf: make([]byte, 0, 1<<20+64<<10)}
		}
		if err != nil {
			break
		}
	}
	close(work)
	wg.Wait()
	if err != io.EOF {
		return err
	}
	if bad >= 0 {
		return fmt.Errorf("line %d is not valid JSON or not UTF-8", bad)
	}
	return nil
}
