package jsonfast

import (
	"bytes"
	"encoding/json"
	"sync"
	"testing"

	"github.com/fpcheck/fpcheck/internal/benchcpu"
	"github.com/fpcheck/fpcheck/internal/synth"
)

// Benchmark data: event lines of the reference corpus (when present) and of
// a small generated stream, and a generated recording document.
type benchSet struct {
	name  string
	lines [][]byte
	size  int64
}

var benchData = sync.OnceValues(func() ([]benchSet, []byte) {
	var sets []benchSet
	if lines := corpusLines(0); len(lines) > 0 {
		sets = append(sets, newSet("corpus", lines))
	}
	var buf bytes.Buffer
	c := synth.Config{Runs: 2, Iterations: 20, ToolResultBytes: 4608, LongResultEvery: 25, Evictions: true, Findings: true, Interleave: true, Seed: 7}
	if _, err := synth.WriteNDJSON(&buf, c); err != nil {
		panic(err)
	}
	sets = append(sets, newSet("synth", bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))))
	var rec bytes.Buffer
	if _, err := synth.WriteRecordingJSON(&rec, synth.Config{Iterations: 24, ToolResultBytes: 4608, Evictions: true, Findings: true, Seed: 3}); err != nil {
		panic(err)
	}
	return sets, rec.Bytes()
})

func newSet(name string, lines [][]byte) benchSet {
	s := benchSet{name: name, lines: lines}
	for _, l := range lines {
		s.size += int64(len(l))
	}
	return s
}

// eachSet runs body as a sub-benchmark per data set and implementation.
func eachSet(b *testing.B, impls map[string]func(b *testing.B, line []byte)) {
	sets, _ := benchData()
	for _, set := range sets {
		for _, name := range []string{"encoding-json", "jsonfast"} {
			f := impls[name]
			b.Run(set.name+"/"+name, func(b *testing.B) {
				benchcpu.Loop(b, set.size, func() {
					for _, l := range set.lines {
						f(b, l)
					}
				})
			})
		}
	}
}

func BenchmarkValid(b *testing.B) {
	eachSet(b, map[string]func(*testing.B, []byte){
		"encoding-json": func(b *testing.B, l []byte) {
			if !json.Valid(l) {
				b.Fatal("invalid")
			}
		},
		"jsonfast": func(b *testing.B, l []byte) {
			if !Valid(l) {
				b.Fatal("invalid")
			}
		},
	})
}

var envelopeNames = []string{"type", "payload", "meta"}

// BenchmarkEnvelope picks type (decoded), payload and meta (raw) out of
// each event line.
func BenchmarkEnvelope(b *testing.B) {
	eachSet(b, map[string]func(*testing.B, []byte){
		"encoding-json": func(b *testing.B, l []byte) {
			var e struct {
				Type    string
				Payload json.RawMessage
				Meta    json.RawMessage
			}
			if err := json.Unmarshal(l, &e); err != nil || e.Type == "" {
				b.Fatal(err)
			}
		},
		"jsonfast": func(b *testing.B, l []byte) {
			var out [3][]byte
			if _, err := Fields(l, envelopeNames, out[:]); err != nil {
				b.Fatal(err)
			}
			if t, err := String(out[0]); err != nil || t == "" {
				b.Fatal(err)
			}
		},
	})
}

// wireEvent and wireMeta are the shapes the loader decodes each event
// into today.
type wireEvent struct {
	Type    *string         `json:"type"`
	Payload json.RawMessage `json:"payload"`
	Meta    *wireMeta       `json:"meta"`
}

type wireMeta struct {
	WallClockMs     float64  `json:"wallClockMs"`
	RunOffsetMs     float64  `json:"runOffsetMs"`
	RuntimeStageID  string   `json:"runtimeStageId"`
	SubflowPath     []string `json:"subflowPath"`
	CompositionPath []string `json:"compositionPath"`
	RunID           string   `json:"runId"`
	SessionID       string   `json:"sessionId"`
	Principal       string   `json:"principal"`
	Tenant          string   `json:"tenant"`
	TraceID         string   `json:"traceId"`
	CorrelationID   string   `json:"correlationId"`
	TurnIndex       *float64 `json:"turnIndex"`
	IterIndex       *float64 `json:"iterIndex"`
}

var (
	eventPicker = Picker{Names: envelopeNames, Fold: true}
	metaPicker  = Picker{
		Names: []string{"wallClockMs", "runOffsetMs", "runtimeStageId", "subflowPath", "compositionPath", "runId",
			"sessionId", "principal", "tenant", "traceId", "correlationId", "turnIndex", "iterIndex"},
		Fold:     true,
		SkipNull: []bool{true, true, true, false, false, true, true, true, true, true, true, false, false},
	}
)

// decodeEventFast is what the loader's decodeEvent would do with this
// package: the same values as json.Unmarshal into wireEvent, with one pass
// over the line. ok false sends the caller to its encoding/json path.
func decodeEventFast(l []byte, w *wireEvent) (ok bool) {
	var top [3][]byte
	if _, err := eventPicker.Pick(l, top[:], nil); err != nil || top[0] == nil || IsNull(top[0]) {
		return false
	}
	t, err := String(top[0])
	if err != nil {
		return false
	}
	w.Type, w.Payload = &t, top[1]
	if top[2] == nil || IsNull(top[2]) {
		return true
	}
	var f [13][]byte
	if _, err := metaPicker.Pick(top[2], f[:], nil); err != nil {
		return false
	}
	m := &wireMeta{}
	w.Meta = m
	ok = true
	num := func(raw []byte, dst *float64) {
		if raw != nil {
			v, good := Number(raw)
			ok = ok && good
			*dst = v
		}
	}
	str := func(raw []byte, dst *string) {
		if raw != nil {
			v, err := String(raw)
			ok = ok && err == nil
			*dst = v
		}
	}
	strs := func(raw []byte, dst *[]string) {
		if raw == nil || IsNull(raw) {
			return
		}
		list := []string{}
		err := Elements(raw, func(_ int, v []byte) bool {
			s, err := String(v)
			list = append(list, s)
			return err == nil
		})
		ok = ok && err == nil
		*dst = list
	}
	ptr := func(raw []byte, dst **float64) {
		if raw != nil && !IsNull(raw) {
			v, good := Number(raw)
			ok = ok && good
			*dst = &v
		}
	}
	num(f[0], &m.WallClockMs)
	num(f[1], &m.RunOffsetMs)
	str(f[2], &m.RuntimeStageID)
	strs(f[3], &m.SubflowPath)
	strs(f[4], &m.CompositionPath)
	str(f[5], &m.RunID)
	str(f[6], &m.SessionID)
	str(f[7], &m.Principal)
	str(f[8], &m.Tenant)
	str(f[9], &m.TraceID)
	str(f[10], &m.CorrelationID)
	ptr(f[11], &m.TurnIndex)
	ptr(f[12], &m.IterIndex)
	return ok
}

// BenchmarkEvent decodes each line into the loader's event shape.
func BenchmarkEvent(b *testing.B) {
	eachSet(b, map[string]func(*testing.B, []byte){
		"encoding-json": func(b *testing.B, l []byte) {
			var w wireEvent
			if err := json.Unmarshal(l, &w); err != nil {
				b.Fatal(err)
			}
		},
		"jsonfast": func(b *testing.B, l []byte) {
			var w wireEvent
			if !decodeEventFast(l, &w) {
				b.Fatal("not decoded")
			}
		},
	})
}

func TestDecodeEventFastAgrees(t *testing.T) {
	sets, _ := benchData()
	for _, set := range sets {
		for _, l := range set.lines {
			var want, got wireEvent
			if err := json.Unmarshal(l, &want); err != nil {
				t.Fatal(err)
			}
			if !decodeEventFast(l, &got) {
				t.Fatalf("%s: not decoded: %s", set.name, l)
			}
			wj, _ := json.Marshal(want)
			gj, _ := json.Marshal(got)
			if !bytes.Equal(wj, gj) {
				t.Fatalf("%s: decoded\n%s\nencoding/json gives\n%s", set.name, gj, wj)
			}
		}
	}
}

// injected is replay's context.injected payload shape.
type injected struct {
	ContentHash string   `json:"contentHash"`
	Slot        string   `json:"slot"`
	Source      string   `json:"source"`
	SourceID    string   `json:"sourceId"`
	RawContent  *string  `json:"rawContent"`
	AsRole      string   `json:"asRole"`
	Position    *float64 `json:"position"`
}

var injectedPicker = Picker{Names: []string{"contentHash", "slot", "source", "sourceId", "rawContent", "asRole", "position"}, Fold: true}

// BenchmarkInjected decodes the payloads of context.injected events, the
// most frequent event type.
func BenchmarkInjected(b *testing.B) {
	sets, _ := benchData()
	for _, set := range sets {
		var payloads [][]byte
		var size int64
		for _, l := range set.lines {
			var top [3][]byte
			Fields(l, envelopeNames, top[:])
			if string(top[0]) == `"agentfootprint.context.injected"` {
				payloads = append(payloads, top[1])
				size += int64(len(top[1]))
			}
		}
		b.Run(set.name+"/encoding-json", func(b *testing.B) {
			benchcpu.Loop(b, size, func() {
				for _, p := range payloads {
					var v injected
					if err := json.Unmarshal(p, &v); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
		b.Run(set.name+"/jsonfast", func(b *testing.B) {
			benchcpu.Loop(b, size, func() {
				for _, p := range payloads {
					var f [7][]byte
					if _, err := injectedPicker.Pick(p, f[:], nil); err != nil {
						b.Fatal(err)
					}
					var v injected
					v.ContentHash, _ = String(f[0])
					v.Slot, _ = String(f[1])
					v.Source, _ = String(f[2])
					v.SourceID, _ = String(f[3])
					if f[4] != nil && !IsNull(f[4]) {
						s, _ := String(f[4])
						v.RawContent = &s
					}
					v.AsRole, _ = String(f[5])
					if f[6] != nil && !IsNull(f[6]) {
						n, _ := Number(f[6])
						v.Position = &n
					}
				}
			})
		})
	}
}

// stringTokens collects every string value in v, at any depth.
func stringTokens(v []byte, out *[][]byte) {
	switch KindOf(v) {
	case KindString:
		*out = append(*out, v)
	case KindObject:
		Members(v, func(_ []byte, _ bool, m []byte) bool { stringTokens(m, out); return true })
	case KindArray:
		Elements(v, func(_ int, e []byte) bool { stringTokens(e, out); return true })
	}
}

func BenchmarkString(b *testing.B) {
	sets, _ := benchData()
	for _, set := range sets {
		var toks [][]byte
		var size int64
		for _, l := range set.lines {
			stringTokens(l, &toks)
		}
		for _, t := range toks {
			size += int64(len(t))
		}
		b.Run(set.name+"/encoding-json", func(b *testing.B) {
			benchcpu.Loop(b, size, func() {
				for _, t := range toks {
					var s string
					if err := json.Unmarshal(t, &s); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
		b.Run(set.name+"/jsonfast", func(b *testing.B) {
			benchcpu.Loop(b, size, func() {
				for _, t := range toks {
					if _, err := String(t); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkRecording skips a whole recording document (deeply nested
// snapshot included): encoding/json's validation, SkipValue over the bytes
// in memory, and a Scanner fed 64 KiB pieces as a streaming reader would.
func BenchmarkRecording(b *testing.B) {
	_, rec := benchData()
	size := int64(len(rec))
	b.Run("encoding-json-Valid", func(b *testing.B) {
		benchcpu.Loop(b, size, func() {
			if !json.Valid(rec) {
				b.Fatal("invalid")
			}
		})
	})
	b.Run("SkipValue", func(b *testing.B) {
		benchcpu.Loop(b, size, func() {
			if end, err := SkipValue(rec, 0); err != nil || end != len(rec) {
				b.Fatal(end, err)
			}
		})
	})
	b.Run("Scanner-64KiB", func(b *testing.B) {
		var s Scanner
		benchcpu.Loop(b, size, func() {
			s.Reset(MaxDepth)
			for off := 0; ; {
				n, done, err := s.Scan(rec[off:min(off+64<<10, len(rec))])
				if err != nil {
					b.Fatal(err)
				}
				off += n
				if done {
					break
				}
			}
		})
	})
}

// BenchmarkRecordingStream skips the full-size generated recording (about
// 84 MB, nested about 2,000 levels) the way a streaming reader would: read
// 64 KiB at a time from an io.Reader, feed each piece to a Scanner, count
// the newlines consumed. It is the cost of skipping a snapshot.
func BenchmarkRecordingStream(b *testing.B) {
	var rec bytes.Buffer
	if _, err := synth.WriteRecordingJSON(&rec, synth.DefaultConfig()); err != nil {
		b.Fatal(err)
	}
	data := rec.Bytes()
	buf := make([]byte, 64<<10)
	var s Scanner
	benchcpu.Loop(b, int64(len(data)), func() {
		r := bytes.NewReader(data)
		s.Reset(MaxDepth)
		lines := 0
		for {
			n, _ := r.Read(buf)
			if n == 0 {
				if err := s.End(); err != nil {
					b.Fatal(err)
				}
				break
			}
			k, done, err := s.Scan(buf[:n])
			if err != nil {
				b.Fatal(err)
			}
			lines += bytes.Count(buf[:k], []byte{'\n'})
			if done {
				break
			}
		}
	})
}
