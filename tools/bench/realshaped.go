package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/klauspost/compress/zstd"
)

// corpusSeeds are the reference corpus's NDJSON streams, in a fixed order.
func corpusSeeds(dir string) ([][]byte, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "events.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no */events.jsonl under %s (set -corpus)", dir)
	}
	slices.Sort(paths)
	var seeds [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
		seeds = append(seeds, b)
	}
	return seeds, nil
}

var (
	runIDKey = []byte(`"runId":"`)
	clockKey = []byte(`"wallClockMs":`)
)

// writeCopy writes seed as copy k: every run id gets the suffix -cK and
// every wall clock moves on by k times a prime number of milliseconds, as
// the same agent run again later would write it. Everything else is the
// recording's own bytes.
func writeCopy(w *bufio.Writer, seed []byte, k int) error {
	suffix := "-c" + strconv.Itoa(k)
	shift := int64(k) * 1_000_003
	var num []byte
	for len(seed) > 0 {
		i, j := bytes.Index(seed, runIDKey), bytes.Index(seed, clockKey)
		switch {
		case i < 0 && j < 0:
			_, err := w.Write(seed)
			return err
		case j < 0 || (i >= 0 && i < j):
			end := i + len(runIDKey) + bytes.IndexByte(seed[i+len(runIDKey):], '"')
			w.Write(seed[:end])
			w.WriteString(suffix)
			seed = seed[end:]
		default:
			start := j + len(clockKey)
			end := start
			for end < len(seed) && seed[end] >= '0' && seed[end] <= '9' {
				end++
			}
			n, err := strconv.ParseInt(string(seed[start:end]), 10, 64)
			w.Write(seed[:start])
			if err != nil {
				w.Write(seed[start:end])
			} else {
				num = strconv.AppendInt(num[:0], n+shift, 10)
				w.Write(num)
			}
			seed = seed[end:]
		}
	}
	return nil
}

// writeRealShaped writes the corpus's runs again and again, each copy with
// renamed run ids, until size bytes are written (whole copies), into out
// compressed at zstd's level 3. It returns the uncompressed and
// compressed sizes and the number of copies.
func writeRealShaped(out io.Writer, seeds [][]byte, size int64) (plain, packed int64, copies int, err error) {
	cw := &countWriter{w: out}
	zw, err := zstd.NewWriter(cw, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return 0, 0, 0, err
	}
	pw := &countWriter{w: zw}
	bw := bufio.NewWriterSize(pw, 1<<20)
	for k := 0; pw.n+int64(bw.Buffered()) < size; k++ {
		if err = writeCopy(bw, seeds[k%len(seeds)], k/len(seeds)); err != nil {
			return 0, 0, 0, err
		}
		copies++
	}
	if err = bw.Flush(); err == nil {
		err = zw.Close()
	}
	return pw.n, cw.n, copies, err
}

// corpusRatio is the corpus's own compression ratio at zstd level 3: its
// streams' bytes over their sizes compressed one by one.
func corpusRatio(seeds [][]byte) float64 {
	var plain, packed int64
	for _, s := range seeds {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return 0
		}
		plain += int64(len(s))
		packed += int64(len(enc.EncodeAll(s, nil)))
	}
	if packed == 0 {
		return 0
	}
	return float64(plain) / float64(packed)
}

// seedTools are the tool names the seeds' runs offered or called.
func seedTools(seeds [][]byte) []string {
	seen := map[string]bool{}
	for _, s := range seeds {
		for line := range bytes.SplitSeq(s, []byte("\n")) {
			var ev struct {
				Payload struct {
					ToolName string `json:"toolName"`
					Tools    []struct {
						Name string `json:"name"`
					} `json:"tools"`
				} `json:"payload"`
			}
			if json.Unmarshal(line, &ev) != nil {
				continue
			}
			if ev.Payload.ToolName != "" {
				seen[ev.Payload.ToolName] = true
			}
			for _, t := range ev.Payload.Tools {
				if t.Name != "" {
					seen[t.Name] = true
				}
			}
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
