package recording

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The loader reads events with internal/jsonfast and, for NDJSON, on
// several goroutines. The tests here hold it to what the encoding/json
// decoder and the byte-at-a-time walker it replaced (still reachable
// through legacyCodec) give on the same input, one goroutine or several:
// the same Stats, problems and error, and the same runs, event by event.

// fullLoad is everything a load hands back.
type fullLoad struct {
	Err   string
	Stats *Stats
	Runs  []*Run
}

// rawEqual compares payloads as bytes (nil apart from empty): cmp would
// otherwise walk them byte by byte through reflection.
var rawEqual = cmp.Comparer(func(a, b json.RawMessage) bool {
	return bytes.Equal(a, b) && (a == nil) == (b == nil)
})

// withLegacy runs fn with legacyCodec set to legacy.
func withLegacy(legacy bool, fn func()) {
	saved := legacyCodec
	legacyCodec = legacy
	defer func() { legacyCodec = saved }()
	fn()
}

// errStopHere is the callback error of the loads that stop early.
var errStopHere = errors.New("the callback stops here")

// loadAll loads with a callback that keeps every run; with stopAt > 0 it
// fails on the stopAt-th run.
func loadAll(stopAt int, load func(fn func(*Run) error) (*Stats, error)) fullLoad {
	var res fullLoad
	st, err := load(func(r *Run) error {
		res.Runs = append(res.Runs, r)
		if len(res.Runs) == stopAt {
			return errStopHere
		}
		return nil
	})
	res.Stats = st
	if err != nil {
		res.Err = err.Error()
	}
	return res
}

// loadModes loads the same input with the legacy codec on one goroutine
// (the reference) and with the jsonfast codec on one and on several
// goroutines, and reports any difference.
func loadModes(t *testing.T, name string, load func(opts Options, fn func(*Run) error) (*Stats, error), opts Options) {
	t.Helper()
	loadModesStop(t, name, load, opts, 0)
}

func loadModesStop(t *testing.T, name string, load func(opts Options, fn func(*Run) error) (*Stats, error), opts Options, stopAt int) {
	t.Helper()
	var want fullLoad
	withLegacy(true, func() {
		o := opts
		o.Workers = 1
		want = loadAll(stopAt, func(fn func(*Run) error) (*Stats, error) { return load(o, fn) })
	})
	for _, mode := range []struct {
		workers, lines, bytes, inFlight int
		// lend, when set, is Options.Spare's answers in turn: a stream
		// read on one core turns into the pipeline part-way.
		spareLines int
		lend       []int
		eager      bool
	}{
		{1, 0, 0, 0, 0, nil, false},
		// Small batches, so that small inputs cross several; tiny ones,
		// so that most lines are longer than a batch and travel alone;
		// and a byte budget that lets one batch at a time be in flight.
		{2, 3, 0, 0, 0, nil, false}, {3, 3, 0, 0, 0, nil, false}, {2, 100, 200, 0, 0, nil, false}, {3, 2, 300, 1, 0, nil, false},
		// Cores lent after the first line, and after the sixth.
		{1, 3, 0, 0, 1, []int{1}, false}, {1, 2, 300, 1, 2, []int{0, 0, 2}, false},
		// Payloads repeated take the verdicts of their first copies from
		// the first line on.
		{1, 0, 0, 0, 0, nil, true}, {3, 3, 0, 0, 0, nil, true},
	} {
		o := opts
		o.Workers, o.batchLines, o.batchBytes, o.inFlightBytes = mode.workers, mode.lines, mode.bytes, mode.inFlight
		o.eagerVerdicts = mode.eager
		o.spareLines = mode.spareLines
		got := loadAll(stopAt, func(fn func(*Run) error) (*Stats, error) {
			if mode.lend != nil {
				asked := 0
				o.Spare = func() int {
					asked++
					if asked <= len(mode.lend) {
						return mode.lend[asked-1]
					}
					return 0
				}
			}
			return load(o, fn)
		})
		if diff := cmp.Diff(want, got, rawEqual); diff != "" {
			t.Errorf("%s, %+v: differs from the legacy codec (-legacy +jsonfast):\n%s", name, mode, diff)
		}
	}
}

// equivFiles is every recording fixture of the repository and every file
// of the reference corpus.
func equivFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{recordingsDir, corpusDir} {
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if dir == corpusDir && !strings.Contains(d.Name(), ".json") {
				return nil
			}
			files = append(files, p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) == 0 {
		t.Fatal("no inputs found")
	}
	return files
}

func TestCodecMatchesLegacy(t *testing.T) {
	for _, path := range equivFiles(t) {
		load := func(opts Options, fn func(*Run) error) (*Stats, error) {
			return Load(path, opts, fn)
		}
		loadModes(t, path, load, Options{})
		if fi, err := os.Stat(path); err == nil && fi.Size() < 256<<10 {
			// Loads that stop part-way, on a limit or on the caller's
			// error, stop at the same event with the same accounting.
			loadModes(t, path+" (5 events per run)", load, Options{MaxEventsPerRun: 5})
			loadModesStop(t, path+" (callback error)", load, Options{}, 1)
		}
	}
}

// TestCodecMatchesLegacyOddLines covers the lines the fast path hands
// back to encoding/json: repeated keys (a repeated meta is merged member
// by member), wrong types, nulls, escapes, case-folded keys.
func TestCodecMatchesLegacyOddLines(t *testing.T) {
	const m = `"meta":{"runId":"r"}`
	lines := []string{
		`{"type":"agentfootprint.agent.turn_start","payload":{},` + m + `}`,
		`{"type":"agentfootprint.agent.turn_start","payload":{},"meta":{"runId":"a","wallClockMs":1},"meta":{"runtimeStageId":"s"}}`,
		`{"type":"agentfootprint.agent.turn_start","meta":{"runId":"a","subflowPath":["x"]},"meta":null,"meta":{"runId":"b"}}`,
		`{"type":"agentfootprint.agent.turn_start","meta":{"runId":"a","subflowPath":["x","y"]},"meta":{"subflowPath":[null]}}`,
		`{"type":"agentfootprint.agent.turn_start","meta":{"runId":"a","runId":null}}`,
		`{"type":"agentfootprint.agent.turn_start","meta":{"runId":"a","RUNID":"b"}}`,
		`{"TYPE":"agentfootprint.agent.turn_start","Type":"agentfootprint.agent.turn_end",` + m + `}`,
		`{"type":"agentfootprint.agent.turn_start","type":null,` + m + `}`,
		`{"type":null,` + m + `}`,
		`{"type":"",` + m + `}`,
		`{"type":7,` + m + `}`,
		`{"t\u0079pe":"agentfootprint.agent.turn_\u0073tart",` + m + `}`,
		`{"type":"agentfootprint.agent.turn_start","payload":null,` + m + `}`,
		`{"type":"agentfootprint.agent.turn_start","payload":[1],"payload":{"userPrompt":5},` + m + `}`,
		`{"type":"agentfootprint.agent.turn_start","meta":{"runId":5}}`,
		`{"type":"agentfootprint.agent.turn_start","meta":{"runId":"r","wallClockMs":1e999}}`,
		`{"type":"agentfootprint.agent.turn_start","meta":{"runId":"r","wallClockMs":"1"}}`,
		`{"type":"agentfootprint.agent.turn_start","meta":{"runId":"r","wallClockMs":null,"turnIndex":null,"iterIndex":2.5}}`,
		`{"type":"agentfootprint.agent.turn_start","meta":{"runId":"r","subflowPath":[],"compositionPath":null}}`,
		`{"type":"agentfootprint.agent.turn_start","meta":{"runId":"r","subflowPath":["a",1]}}`,
		`{"type":"agentfootprint.agent.turn_start","meta":{"runId":"r\u00e9\ud800","sessionId":"caf\xff"}}`,
		`{"type":"agentfootprint.agent.turn_start","meta":{"runId":"r","wallclockms":3,"ſessionId":"s","ſessionid":"t"}}`,
		`{"type":"agentfootprint.agent.turn_start","meta":[]}`,
		`{"type":"agentfootprint.agent.turn_start","meta":"x"}`,
		`{"type":"agentfootprint.x.unknown","payload":{"a":1},` + m + `}`,
		`{"type":"agentfootprint.integrity.disposition","payload":{"rows":[1,{"checked":"x"},{"checked":2,"check":3}],"rows":[{"seam":4}]},` + m + `}`,
		`{"type":"agentfootprint.integrity.context_error","payload":{"kind":1,"subjects":[{"kind":2},"s",null],"epoch":"e"},` + m + `}`,
		`{"type":"agentfootprint.agent.turn_start","payload":{},` + m + `} trailing`,
		`[{"type":"agentfootprint.agent.turn_start"}]`,
		`{"type":"agentfootprint.agent.turn_start","payload":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `,` + m + `}`,
		`{"type":"agentfootprint.agent.turn_start","payload":` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `,` + m + `}`,
		`not json`,
		"\x00\x00\x00",
		``,
		`   `,
		`{"type":"agentfootprint.integrity.disposition","payload":{},` + m + `}`,
		`{"type":"agentfootprint.agent.turn_end","payload":{},` + m + `}`,
		`{"type":"agentfootprint.agent.turn_start","payload":{},"meta":{"runId":"consumer-scope"}}`,
		`{"type":"agentfootprint.agent.turn_start","payload":{}}`,
		`{"type":"agentfootprint.agent.turn_start","payload":{},` + m,
	}
	var all bytes.Buffer
	for _, l := range lines {
		all.WriteString(l + "\n")
	}
	inputs := map[string][]byte{"all lines": all.Bytes(), "no final newline": bytes.TrimSuffix(all.Bytes(), []byte("\n"))}
	for i, l := range lines {
		inputs["line "+string(rune('A'+i))] = []byte(l + "\n")
		inputs["events array "+string(rune('A'+i))] = []byte(`{"events":[` + l + `]}`)
	}
	for name, data := range inputs {
		loadModes(t, name, func(opts Options, fn func(*Run) error) (*Stats, error) {
			return LoadReader(name, bytes.NewReader(data), opts, fn)
		}, Options{})
	}
}

// FuzzCodecMatchesLegacy feeds the same bytes to the legacy and the
// jsonfast loaders, on one goroutine and on several.
func FuzzCodecMatchesLegacy(f *testing.F) {
	// Small seeds only: every execution loads the input four times.
	for _, p := range smallSeedFiles(f, 16<<10) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"type":"agentfootprint.agent.turn_start","meta":{"runId":"a"},"meta":{"runtimeStageId":"s"}}` + "\n"))
	f.Add([]byte(`{"type":"agentfootprint.integrity.disposition","payload":{"rows":[1,{"checked":"x"}]},"meta":{"runId":"r"}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		loadModes(t, "fuzz", func(opts Options, fn func(*Run) error) (*Stats, error) {
			return LoadReader("fuzz", bytes.NewReader(data), opts, fn)
		}, Options{MaxNesting: 2000, MaxDecompressedBytes: 1 << 20, MaxLineBytes: 256 << 10})
	})
}

// smallSeedFiles lists the recordings under testdata/recordings (golden
// outputs left out) of at most max bytes.
func smallSeedFiles(f *testing.F, max int64) []string {
	var files []string
	filepath.WalkDir(recordingsDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(p, string(filepath.Separator)+"golden"+string(filepath.Separator)) {
			return err
		}
		if fi, err := d.Info(); err == nil && fi.Size() <= max {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// FuzzDecodeEventMatchesLegacy decodes one event both ways: the fast path
// must give what encoding/json gives, or hand the line back to it.
func FuzzDecodeEventMatchesLegacy(f *testing.F) {
	for _, p := range append(smallSeedFiles(f, 256<<10), equivCorpusNDJSON()...) {
		if !isNDJSONName(filepath.Base(p)) {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for i, line := range bytes.Split(data, []byte("\n")) {
			if i < 40 && len(line) <= 8<<10 {
				f.Add(line)
			}
		}
	}
	// A key count that is looked at but shows no repeat.
	f.Add([]byte(`{"tYpe":"0","":{"runId":"","runId":""}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		compareDecode(t, line)
	})
}

func equivCorpusNDJSON() []string {
	m, _ := filepath.Glob(filepath.Join(corpusDir, "*", "events*.jsonl"))
	return m
}

// compareDecode decodes lines with the legacy and the fast decoder, one
// decoder of each for all of them, as a decoding goroutine does: the fast
// decoder's caches carry from line to line. The lines are decoded twice,
// so that the second reading of each payload takes the first one's
// verdict.
func compareDecode(t *testing.T, lines ...[]byte) {
	t.Helper()
	type outcome struct {
		Ev          Event
		Err         string
		InvalidUTF8 bool
		Dups        *keyCounts
		WrongTypes  []string
	}
	run := func(d *eventDecoder, line []byte) outcome {
		var r decodedEvent
		d.decode(line, &r)
		o := outcome{Ev: r.ev, InvalidUTF8: r.invalidUTF8, Dups: r.dups, WrongTypes: r.notes.WrongTypes}
		if r.err != nil {
			o.Err = r.err.Error()
		}
		return o
	}
	legacy, fast := eventDecoder{legacy: true}, eventDecoder{verdicts: verdicts{eager: true}}
	for i, line := range append(lines[:len(lines):len(lines)], lines...) {
		want, got := run(&legacy, line), run(&fast, line)
		if diff := cmp.Diff(want, got, rawEqual, cmp.AllowUnexported(keyCounts{})); diff != "" {
			t.Errorf("decoding line %d %q differs (-legacy +jsonfast):\n%s", i+1, line, diff)
		}
	}
}

// FuzzPayloadFieldsMatchLegacy holds the jsonfast payload checker to the
// scanner-based one on arbitrary payloads of every type with a schema.
func FuzzPayloadFieldsMatchLegacy(f *testing.F) {
	f.Add([]byte(`{"kind":"dangling-reference","seam":"compose","subjects":[{"kind":"tool","id":"x"}],"witnesses":[],"message":"m","epoch":4}`))
	f.Add([]byte(`{"posture":"observe","workExisted":true,"rows":[{"check":"a","seam":"b","checked":1,"findings":0,"notApplicable":0,"unreachable":0,"synthetic":0}]}`))
	f.Add([]byte(`{"kind":5,"subjects":"x","rows":[null,"r",{"checked":"9"},{"checked":"9","seam":1},7],"k\u0069nd":true}`))
	f.Add([]byte(`{"iteration":"1","tools":{},"history":7,"args":[],"toolName":null}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		if !json.Valid(payload) {
			return
		}
		for typ := range payloadSchemas {
			var old, got decodeNotes
			checkPayloadFieldsLegacy(typ, bytes.TrimSpace(payload), &old)
			checkPayloadFields(typ, bytes.TrimSpace(payload), &got)
			if diff := cmp.Diff(old.WrongTypes, got.WrongTypes); diff != "" {
				t.Errorf("%s: %s (-legacy +jsonfast):\n%s", typ, payload, diff)
			}
		}
	})
}

// TestCodecMatchesLegacyStoppedDocument stops a load inside a long,
// pretty-printed events array: the walker reads ahead of the accounting
// when workers decode, and the line count must still be the one reading
// up to the stopping event gives.
func TestCodecMatchesLegacyStoppedDocument(t *testing.T) {
	type event struct {
		Type    string         `json:"type"`
		Payload map[string]any `json:"payload"`
		Meta    map[string]any `json:"meta"`
	}
	var doc struct {
		Events []event `json:"events"`
	}
	for i := range 60 {
		doc.Events = append(doc.Events, event{
			Type:    TypeToolEnd,
			Payload: map[string]any{"toolCallId": fmt.Sprint("c", i), "result": strings.Repeat("x", 40<<10)},
			Meta:    map[string]any{"runId": "run-1"},
		})
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	load := func(opts Options, fn func(*Run) error) (*Stats, error) {
		return LoadReader("stopped.json", bytes.NewReader(data), opts, fn)
	}
	loadModes(t, "5 events per run", load, Options{MaxEventsPerRun: 5})
	loadModes(t, "whole", load, Options{})
}

// TestParallelStopDoesNotWaitForTheWriter stops a load (the caller's error)
// while the writer of the stream is still connected and silent: the load
// returns at once, as reading one line at a time does, and does not wait
// for the line reader, which is blocked on the writer.
func TestParallelStopDoesNotWaitForTheWriter(t *testing.T) {
	data := readFixture(t, "ndjson-two-runs.jsonl")
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() {
		// Both runs, padded to the sniffer's window, then silence.
		pw.Write(data)
		pw.Write(bytes.Repeat([]byte("\n"), sniffWindow))
	}()
	done := make(chan error, 1)
	go func() {
		_, err := LoadReader("pipe", pr, Options{Workers: 2}, func(*Run) error { return errStopHere })
		done <- err
	}()
	select {
	case err := <-done:
		if err != errStopHere {
			t.Errorf("err = %v, want the callback's error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the load did not return while the writer stayed connected")
	}
}

// TestCodecMatchesLegacyLongDocument reads a document many times the
// scanner's buffer, whose events differ in every member: an element read
// on one core is decoded out of the scanner's own buffer, which later
// reads overwrite, so an event that kept any of those bytes (its payload,
// a run id, a cached meta layout) would differ from the legacy codec's.
func TestCodecMatchesLegacyLongDocument(t *testing.T) {
	data := longDocument(t)
	loadModes(t, "long document", func(opts Options, fn func(*Run) error) (*Stats, error) {
		return LoadReader("long.json", bytes.NewReader(data), opts, fn)
	}, Options{})
}

// TestDocumentFilterKeepsPayloadsOfTheirOwn reads the long document with a
// DocumentPayloadFilter: the decoders then hand payloads over in the
// buffers they read, and a payload kept must be a copy, whole after later
// reads overwrite those buffers, equal to the one an unfiltered load keeps.
func TestDocumentFilterKeepsPayloadsOfTheirOwn(t *testing.T) {
	data := longDocument(t)
	load := func(opts Options) []Event {
		var evs []Event
		if _, err := LoadReader("long.json", bytes.NewReader(data), opts, func(r *Run) error {
			evs = append(evs, r.Events...)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return evs
	}
	whole := load(Options{Workers: 1})
	onlyResults := func(*Event) func(string) bool {
		return func(typ string) bool { return typ == TypeToolEnd }
	}
	for _, workers := range []int{1, 2} {
		got := load(Options{Workers: workers, DocumentPayloadFilter: onlyResults})
		if len(got) != len(whole) {
			t.Fatalf("workers %d: %d events, want %d", workers, len(got), len(whole))
		}
		kept := 0
		for i := range got {
			switch {
			case got[i].Type != TypeToolEnd:
				if !got[i].PayloadDropped || got[i].Payload != nil {
					t.Fatalf("workers %d, event %d (%s): payload kept", workers, i, got[i].Type)
				}
			case !bytes.Equal(got[i].Payload, whole[i].Payload):
				t.Fatalf("workers %d, event %d: payload %.60q, want %.60q", workers, i, got[i].Payload, whole[i].Payload)
			default:
				kept++
			}
		}
		if kept == 0 {
			t.Fatalf("workers %d: no payload kept", workers)
		}
	}
}

// longDocument is a document many times the scanner's buffer whose events
// differ in every member.
func longDocument(t *testing.T) []byte {
	t.Helper()
	var doc bytes.Buffer
	doc.WriteString(`{"format":"agentfootprint.recording.v1","events":[`)
	for i := range 4000 {
		if i > 0 {
			doc.WriteByte(',')
		}
		typ := []string{TypeToolStart, TypeToolEnd, TypeLLMStart}[i%3]
		payload := fmt.Sprintf(`{"toolCallId":"c%d","result":%q}`, i, strings.Repeat(string(rune('a'+i%26)), 50+(i*7919)%3000))
		meta := fmt.Sprintf(`{"runId":"run-%d","runtimeStageId":"stage-%d","subflowPath":["sf-%d","x"],"wallClockMs":%d}`, i%3, i/5, i/40, i)
		fmt.Fprintf(&doc, `{"type":%q,"payload":%s,"meta":%s}`, typ, payload, meta)
	}
	doc.WriteString(`]}`)
	if doc.Len() < 8*scanBufSize {
		t.Fatalf("the document is %d bytes, fewer than eight scanner buffers", doc.Len())
	}
	return doc.Bytes()
}
