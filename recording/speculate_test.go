package recording

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
	"github.com/fpcheck/fpcheck/internal/synth"
)

// loadOutcome is everything a load returns, for comparing two loads.
type loadOutcome struct {
	Stats *Stats
	Runs  []*Run
	Err   string
}

func loadOutcomeOf(t *testing.T, path string, opts Options) loadOutcome {
	t.Helper()
	var o loadOutcome
	st, err := Load(path, opts, func(r *Run) error {
		o.Runs = append(o.Runs, r)
		return nil
	})
	o.Stats = st
	if err != nil {
		o.Err = err.Error()
	}
	return o
}

// TestSpeculationLoadsAsPlain loads recording documents, whole and
// damaged in the part the speculator reads, with speculation on (small
// chunks, many of them) and off, and requires the same outcome: runs,
// accounting, problems and errors.
func TestSpeculationLoadsAsPlain(t *testing.T) {
	var rec bytes.Buffer
	if _, err := synth.WriteRecordingJSON(&rec, synth.Config{Iterations: 12, ToolResultBytes: 2048, Evictions: true, Findings: true, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	// With a line break between elements, and indented throughout as a
	// format C envelope is, so that line numbers after skipped chunks
	// count.
	var indented bytes.Buffer
	if err := json.Indent(&indented, rec.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	docs := [][]byte{rec.Bytes(), linedJSON(rec.Bytes()), indented.Bytes()}
	kinds := []string{"", "lined, ", "indented, "}
	dir := t.TempDir()
	spec := Options{Workers: 2, specMinSize: 1, specChunk: 4 << 10}
	plain := Options{Workers: 1}
	// A document read on one core that is lent one after its k-th
	// question, k of 0 to 3, so that its speculator starts at different
	// points of the walk.
	lateAfter := func(k int) Options {
		return Options{Workers: 1, specMinSize: 1, specChunk: 4 << 10, spareBytes: 16 << 10, Spare: lentAfter(k)}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	taken := 0
	for n := range 40 * len(docs) {
		k := n % 40
		base := docs[n/40]
		b := bytes.Clone(base)
		name := "whole"
		if k > 0 {
			// Damage the second half, where the speculator starts.
			i := len(b)/3 + rng.IntN(len(b)*2/3-1)
			switch k % 4 {
			case 0:
				b[i] = "{}[],:\"\\x\x01"[rng.IntN(10)]
			case 1:
				b = append(b[:i], b[i+1:]...)
			case 2:
				b = append(b[:i], append([]byte("]}"), b[i:]...)...)
			case 3:
				b = append(bytes.Clone(b[:i]), append([]byte(`{"a":[{"b":1}]}`), b[i:]...)...)
			}
			name = fmt.Sprintf("damaged %d at %d", k, i)
		}
		name = kinds[n/40] + name
		path := filepath.Join(dir, fmt.Sprintf("rec-%d.json", n))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		want := loadOutcomeOf(t, path, plain)
		for _, mode := range []struct {
			name string
			opts Options
		}{{"speculating", spec}, {"speculating once lent a core", lateAfter(n % 4)}} {
			got := loadOutcomeOf(t, path, mode.opts)
			// cmp.Diff says how they differ; DeepEqual is much faster at
			// telling whether they do.
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("%s: %s changes the load (-plain +%s):\n%s", name, mode.name, mode.name, cmp.Diff(want, got))
			}
		}
		taken++
	}
	if taken == 0 {
		t.Fatal("nothing compared")
	}
}

// lentAfter is an Options.Spare that lends no core to its first k
// questions and one to each after.
func lentAfter(k int) func() int {
	asked := 0
	return func() int {
		asked++
		if asked > k {
			return 1
		}
		return 0
	}
}

// linedJSON breaks the line between the elements of every array of
// objects in compact JSON.
func linedJSON(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte("},{"), []byte("},\n{"))
}

// TestSpeculationSkipsChunks walks a lined recording whose chunks the
// speculator has all summarized: the walker takes them over and skips
// them unread, and its offset and line count, and the source's, come out
// as reading every byte gives them.
func TestSpeculationSkipsChunks(t *testing.T) {
	var rec, doc bytes.Buffer
	if _, err := synth.WriteRecordingJSON(&rec, synth.Config{Iterations: 30, ToolResultBytes: 2048, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	doc.Write(linedJSON(rec.Bytes()))
	doc.WriteByte('\n')
	if n := bytes.Count(doc.Bytes(), newline); n < 1000 {
		t.Fatalf("the document has %d lines; the test wants many", n)
	}
	f, src := openDocument(t, doc.Bytes())
	size := int64(doc.Len())
	// Chunks about as long as a read, so that most of each is not read
	// yet when the walker comes to it.
	sp := newSpeculator(f, 0, size, 96<<10)
	defer sp.close()
	<-sp.done // every chunk is summarized before the walker starts
	s := newScanner(src.br, defaultMaxNesting)
	var skipped int64
	s.spec, s.skip = sp, func(n, newlines int64) error {
		skipped += n
		return src.skip(n, newlines)
	}
	if err := s.skipValue(); err != nil {
		t.Fatal(err)
	}
	if sp.next == 0 || skipped < size/4 {
		t.Fatalf("%d chunks taken over, %d of %d bytes skipped unread", sp.next, skipped, size)
	}
	end := int64(bytes.LastIndexByte(doc.Bytes(), '}') + 1)
	if s.offset() != end || s.lines != int64(bytes.Count(doc.Bytes()[:end], newline)) {
		t.Errorf("after the document: offset %d, %d lines; want %d, %d", s.offset(), s.lines, end, bytes.Count(doc.Bytes()[:end], newline))
	}
	if _, err := io.Copy(io.Discard, src.br); err != nil {
		t.Fatal(err)
	}
	if got, want := src.documentLines(), int64(bytes.Count(doc.Bytes(), newline)); got != want || src.out.n != size {
		t.Errorf("the source read %d bytes in %d lines; want %d in %d", src.out.n, got, size, want)
	}
}

// openDocument writes doc to a file and opens it as a source, the file
// closed when the test ends.
func openDocument(t *testing.T, doc []byte) (*os.File, *source) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rec.json")
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	src, err := openSource(path, f, Options{}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	return f, src
}

// TestSpeculatorChunksAreTheFiles requires each chunk the speculator
// summarized to be the summary of the file's own bytes at its offset, its
// line count theirs, and the chunks to follow each other without a gap:
// the speculator carries the bytes it read past one chunk over to the
// next instead of reading them again, and an offset off by those bytes
// would summarize the wrong ones.
func TestSpeculatorChunksAreTheFiles(t *testing.T) {
	var rec bytes.Buffer
	if _, err := synth.WriteRecordingJSON(&rec, synth.Config{Iterations: 30, ToolResultBytes: 2048, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	doc := linedJSON(rec.Bytes())
	for _, chunk := range []int{4 << 10, 96 << 10} {
		sp := newSpeculator(bytes.NewReader(doc), 0, int64(len(doc)), chunk)
		<-sp.done
		sp.close()
		if len(sp.chunks) < 4 {
			t.Fatalf("chunk %d: %d chunks summarized; the test wants several", chunk, len(sp.chunks))
		}
		for i, c := range sp.chunks {
			n := int64(c.sum.Len())
			if i+1 < len(sp.chunks) && c.start+n != sp.chunks[i+1].start {
				t.Fatalf("chunk %d: chunk %d ends at %d, the next starts at %d", chunk, i, c.start+n, sp.chunks[i+1].start)
			}
			w := doc[c.start:min(int64(len(doc)), c.start+int64(chunk+specLookAhead))]
			want, ok := jsonfast.Speculate(w, int(n))
			if !ok || !reflect.DeepEqual(want, c.sum) {
				t.Fatalf("chunk %d: chunk %d at %d is not the summary of the file's bytes there", chunk, i, c.start)
			}
			if lines := int64(bytes.Count(w[:n], newline)); lines != c.lines {
				t.Fatalf("chunk %d: chunk %d at %d counts %d lines, its bytes hold %d", chunk, i, c.start, c.lines, lines)
			}
		}
	}
}

// FuzzSpeculatedLoad holds a load with speculation (tiny chunks, so that
// even a small document is cut into many) to a load without it, on mutated
// recording documents: the same runs, accounting, problems and error. (A
// small document is read whole before the walker reaches a chunk, so the
// chunks here are dropped from the read buffer; skipping past unread ones
// is the large documents' case, in the tests above.)
func FuzzSpeculatedLoad(f *testing.F) {
	fuzzSeeds(f, func(name string) bool { return filepath.Ext(name) == ".json" })
	if rec, err := os.ReadFile(filepath.Join(recordingsDir, "loader", "recording.json")); err == nil {
		f.Add(linedJSON(rec))
		var indented bytes.Buffer
		if json.Indent(&indented, rec, "", "  ") == nil {
			f.Add(indented.Bytes())
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "rec.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		plain := loadOutcomeOf(t, path, Options{Workers: 1, MaxNesting: 2000})
		speculated := loadOutcomeOf(t, path, Options{Workers: 2, MaxNesting: 2000, specMinSize: 1, specChunk: 64})
		if !reflect.DeepEqual(plain, speculated) {
			t.Fatalf("speculating changes the load (-plain +speculating):\n%s", cmp.Diff(plain, speculated))
		}
		// Lent a core at a question the input picks: a speculator that
		// starts in the middle of the walk.
		late := loadOutcomeOf(t, path, Options{Workers: 1, MaxNesting: 2000, specMinSize: 1, specChunk: 64, spareBytes: 256,
			Spare: lentAfter(len(data) % 7)})
		if !reflect.DeepEqual(plain, late) {
			t.Fatalf("speculating once lent a core changes the load (-plain +late):\n%s", cmp.Diff(plain, late))
		}
	})
}

// TestLateSpeculatorTakesChunksOver walks a recording on one core that is
// lent one at its second question: the speculator then starts a third of
// the way into what is left, the walker takes its chunks over, and its
// offset and line count come out as reading every byte gives them.
func TestLateSpeculatorTakesChunksOver(t *testing.T) {
	var rec bytes.Buffer
	if _, err := synth.WriteRecordingJSON(&rec, synth.Config{Iterations: 30, ToolResultBytes: 2048, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	doc := append(linedJSON(rec.Bytes()), '\n')
	f, src := openDocument(t, doc)
	size := int64(len(doc))
	var sp *speculator
	var askedAt []int64
	s := newScanner(src.br, defaultMaxNesting)
	var skipped int64
	s.askEvery = 64 << 10
	s.lend = func(at int64) *speculator {
		askedAt = append(askedAt, at)
		if len(askedAt) < 2 {
			return nil
		}
		sp = speculateFrom(f, 0, size, 16<<10, lateFrom(at, size))
		<-sp.done // every chunk is summarized before the walker goes on
		return sp
	}
	s.skip = func(n, newlines int64) error {
		skipped += n
		return src.skip(n, newlines)
	}
	if err := s.skipValue(); err != nil {
		t.Fatal(err)
	}
	if sp == nil {
		t.Fatalf("asked for a core at %v, never lent one", askedAt)
	}
	defer sp.close()
	if askedAt[1]-askedAt[0] < s.askEvery {
		t.Errorf("asked at %v, want questions %d bytes apart", askedAt, s.askEvery)
	}
	if s.lend != nil || len(askedAt) != 2 {
		t.Errorf("asked %d times; want no question once a speculator runs", len(askedAt))
	}
	if sp.next == 0 || skipped < size/4 {
		t.Fatalf("%d chunks taken over, %d of %d bytes skipped unread", sp.next, skipped, size)
	}
	end := int64(bytes.LastIndexByte(doc, '}') + 1)
	if s.offset() != end || s.lines != int64(bytes.Count(doc[:end], newline)) {
		t.Errorf("after the document: offset %d, %d lines; want %d, %d", s.offset(), s.lines, end, bytes.Count(doc[:end], newline))
	}
}
