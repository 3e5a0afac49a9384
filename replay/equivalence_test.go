package replay

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/internal/synth"
	"github.com/fpcheck/fpcheck/recording"
)

// declVariant is one set of declarations the two readings are compared
// under. Each arms a different subset of the checks, so that every
// combination of inputs the engine leaves unread is exercised.
type declVariant struct {
	name string
	yaml string // "" = nothing declared
	dev  bool   // replay in dev posture
	file string // the declarations' file name, when read from one
}

var declVariants = []declVariant{
	{name: "none"},
	{name: "arm-all", yaml: armAll},
	{name: "arm-all-dev", yaml: armAll, dev: true},
	{name: "synth-arm-all", yaml: synthArmAll},
	{name: "maps", yaml: "maps:\n  - { id: skill-map, tools: [get_zone_info, get_zone_map] }\n  - { id: billing, tools: [charge_card, refund] }\n  - { id: incident-map, tools: [ticket_search] }\n"},
	{name: "arguments-from", yaml: "tools:\n  backup_status: { argumentsFrom: [fleet_report] }\n  screen_fire: { argumentsFrom: [whats_here] }\n  get_weather: { argumentsFrom: [get_zone_info] }\n  host_metrics: { argumentsFrom: [fleet_report] }\n"},
	{name: "empty-lookups", yaml: "tools:\n  backup_status: { argumentsFrom: [fleet_report], noticeEmptyLookups: true }\n  screen_fire: { argumentsFrom: [whats_here], noticeEmptyLookups: true }\n"},
	{name: "claims", yaml: "claims:\n  nav_count: { entity: screen2, field: nav }\n  zone: { entity: screen2, field: zone }\n  status: { entity: job-7, field: state }\n  summary.total: { entity: fleet, field: total }\n"},
	{name: "columns", yaml: "tools:\n  host_group_mappings:\n    resultColumns: { logical_unit_number: number, host_group: string, comment: { type: string, nullable: true } }\n  backup_status:\n    resultColumns: { host: string, size_gb: number }\n  array_capacity:\n    resultColumns: { array: string, capacity_gb: number }\ndials:\n  checkColumnTypes: warn\n"},
	{name: "names-and-numbers", yaml: "dials:\n  namesAndNumbers: { minDigits: 2 }\n"},
	{name: "prior-turn", yaml: "dials:\n  noticePriorTurnEvidence: true\n  namesAndNumbers: { minDigits: 4 }\n"},
}

func (v declVariant) decl(t testing.TB) *checks.Declarations {
	t.Helper()
	if v.yaml == "" {
		return nil
	}
	file := v.file
	if file == "" {
		file = v.name + ".yaml"
	}
	d, err := checks.ParseDeclarations(file, []byte(v.yaml))
	if err != nil {
		t.Fatalf("declarations %s are refused: %v", v.name, err)
	}
	return d
}

// outcome is what one replay returned.
type outcome struct {
	Evidence *Evidence
	Err      string
}

func replayOutcome(run *recording.Run, decl *checks.Declarations, opts Options, slow bool) outcome {
	ev, err := replay(checks.Registry, run, decl, opts, slow)
	o := outcome{Evidence: ev}
	if err != nil {
		o.Err = err.Error()
	}
	return o
}

// assertSameReplay replays run with the payload decoders and with
// encoding/json reading every payload in full, and fails on any difference.
func assertSameReplay(t *testing.T, where string, run *recording.Run, decl *checks.Declarations, opts Options) {
	t.Helper()
	slow := replayOutcome(run, decl, opts, true)
	fast := replayOutcome(run, decl, opts, false)
	if diff := cmp.Diff(slow, fast); diff != "" {
		t.Errorf("%s run %s: the fast reading differs from the full one (-full +fast):\n%s", where, run.ID, diff)
	}
	if diff := cmp.Diff(recorded(run.Events, true), recorded(run.Events, false)); diff != "" {
		t.Errorf("%s run %s: the recorded evidence read fast differs from the full reading (-full +fast):\n%s", where, run.ID, diff)
	}
}

// loadAll reads every run of one input with the loader.
func loadAll(t testing.TB, name string, data []byte) []*recording.Run {
	t.Helper()
	var runs []*recording.Run
	recording.LoadReader(name, bytes.NewReader(data), recording.Options{}, func(r *recording.Run) error {
		runs = append(runs, r)
		return nil
	})
	return runs
}

// equivalenceInputs are the fixtures of the replay and claims areas (with
// their own declarations, when they have some) and the reference corpus's
// recordings.
func equivalenceInputs(t *testing.T) (paths []string, own map[string]string) {
	own = map[string]string{}
	for _, root := range []string{fixtureRoot, claimsRoot} {
		found, _ := filepath.Glob(filepath.Join(root, "*", "events.jsonl"))
		for _, p := range found {
			paths = append(paths, p)
			for _, name := range []string{"declarations.yaml", "declarations.json"} {
				if _, err := os.Stat(filepath.Join(filepath.Dir(p), name)); err == nil {
					own[p] = filepath.Join(filepath.Dir(p), name)
				}
			}
		}
	}
	corpus := filepath.Join("..", "..", "shared", "reference-corpus")
	if _, err := os.Stat(corpus); err == nil {
		for _, pattern := range []string{"*/*.jsonl", "*/recording.json"} {
			found, _ := filepath.Glob(filepath.Join(corpus, pattern))
			paths = append(paths, found...)
		}
	} else {
		t.Logf("reference corpus not available (%v): comparing the fixtures only", err)
	}
	if len(paths) == 0 {
		t.Fatal("no recordings to compare")
	}
	return paths, own
}

// TestFastReadingMatchesFullReading holds the payload decoders, and the
// engine's skipping of inputs no armed check reads, to the evidence the
// full encoding/json reading gives, over every fixture and corpus
// recording and a generated stream, under declarations that arm each
// subset of the checks.
func TestFastReadingMatchesFullReading(t *testing.T) {
	forEachEquivalenceCase(t, func(name string, data []byte, runs []*recording.Run, v declVariant, decl *checks.Declarations, opts Options) {
		for _, run := range runs {
			assertSameReplay(t, name+" ("+v.name+")", run, decl, opts)
		}
	})
}

// TestFilteredReadingMatchesFullReading holds the loader's payload filter
// (PayloadFilter) to the same evidence: a stream loaded keeping only the
// payloads the replay reads replays, and reads as recorded, exactly as the
// stream loaded whole and read in full.
func TestFilteredReadingMatchesFullReading(t *testing.T) {
	dropped := 0
	forEachEquivalenceCase(t, func(name string, data []byte, runs []*recording.Run, v declVariant, decl *checks.Declarations, opts Options) {
		if !strings.HasSuffix(name, ".jsonl") {
			return // see TestDocumentFilterMatchesFullReading
		}
		dropped += assertFilteredSame(t, name, v.name, data, runs, decl, opts, recording.Options{})
	})
	if dropped == 0 {
		t.Error("no payload was dropped: the filter was not exercised")
	}
}

// TestDocumentFilterMatchesFullReading holds a document's payload filter
// (DocumentPayloadFilter) to the full reading with nothing given up: where
// a filtered stream may name fewer positions, a filtered document names
// every one, and replays and reads as recorded exactly as when loaded
// whole. The documents (a generated one, and the corpus's where it is
// found) come also with their events moved before the snapshot, and with a
// second, empty snapshot before them, so that a snapshot read after the
// events still arms the compose invariant from the map events kept.
func TestDocumentFilterMatchesFullReading(t *testing.T) {
	dropped := 0
	forEachEquivalenceCase(t, func(name string, data []byte, runs []*recording.Run, v declVariant, decl *checks.Declarations, opts Options) {
		if strings.HasSuffix(name, ".jsonl") {
			return
		}
		// Read on one core, an element's payload is handed over in the
		// scanner's buffer; on several, in a batch's.
		for _, workers := range []int{1, 2} {
			lo := recording.Options{Workers: workers, DocumentPayloadFilter: DocumentPayloadFilter(checks.Registry, decl, opts.Posture)}
			dropped += assertFilteredSame(t, name, v.name, data, runs, decl, opts, lo)
		}
	})
	if dropped == 0 {
		t.Error("no payload of a document was dropped: the filter was not exercised")
	}
}

// assertFilteredSame loads data (named input) again with the payload filter for decl and
// requires every run to replay, and to read as recorded, as the run loaded
// whole (runs) does when every payload is read in full. It returns the
// number of payloads the filter dropped.
func assertFilteredSame(t *testing.T, input, variant string, data []byte, runs []*recording.Run, decl *checks.Declarations, opts Options, lo recording.Options) int {
	t.Helper()
	name := input + " (" + variant + ")"
	var filtered []*recording.Run
	// A document's filter comes in lo, and gives nothing up; a stream's
	// may name fewer positions (samePositionsKnown).
	document := lo.DocumentPayloadFilter != nil
	lo.PayloadFilter = PayloadFilter(checks.Registry, decl, opts.Posture)
	recording.LoadReader(input, bytes.NewReader(data), lo, func(r *recording.Run) error {
		filtered = append(filtered, r)
		return nil
	})
	if len(filtered) != len(runs) {
		t.Fatalf("%s: %d runs filtered, %d whole", name, len(filtered), len(runs))
	}
	dropped := 0
	for i, run := range runs {
		for _, ev := range filtered[i].Events {
			if ev.PayloadDropped {
				dropped++
			}
		}
		full := replayOutcome(run, decl, opts, true)
		got := replayOutcome(filtered[i], decl, opts, false)
		if full.Evidence != nil && got.Evidence != nil && !document {
			samePositionsKnown(t, name+" run "+run.ID+" replayed", full.Evidence, got.Evidence)
		}
		if diff := cmp.Diff(full, got); diff != "" {
			t.Errorf("%s run %s: the filtered reading differs from the full one (-full +filtered):\n%s", name, run.ID, diff)
		}
		whole, part := Recorded(run.Events), Recorded(filtered[i].Events)
		if !document {
			samePositionsKnown(t, name+" run "+run.ID+" recorded", whole, part)
		}
		if diff := cmp.Diff(whole, part); diff != "" {
			t.Errorf("%s run %s: the recorded evidence differs when filtered (-whole +filtered):\n%s", name, run.ID, diff)
		}
	}
	return dropped
}

// samePositionsKnown requires the evidence positions of a filtered reading
// to be positions the whole reading gives too, then takes the whole
// reading's: a result or an eviction is pinned down by payloads (a call
// id, a content hash) the filter drops when no armed check reads them, so
// a filtered reading may name fewer, never others.
func samePositionsKnown(t *testing.T, name string, whole, filtered *Evidence) {
	t.Helper()
	if len(whole.Findings) != len(filtered.Findings) {
		return // the comparison that follows states the difference
	}
	for i := range filtered.Findings {
		known := map[checks.Position]bool{}
		for _, p := range whole.Findings[i].Evidence {
			p.Iteration = nil
			known[p] = true
		}
		for _, p := range filtered.Findings[i].Evidence {
			q := p
			q.Iteration = nil
			if !known[q] {
				t.Errorf("%s: finding %d: the filtered reading names %s (%s) that the whole reading does not", name, i, p.Ref(), p.What)
			}
		}
		filtered.Findings[i].Evidence = whole.Findings[i].Evidence
	}
}

// FuzzFilteredReplay holds the payload filter to the full reading on fuzzed
// streams, under every declaration variant.
func FuzzFilteredReplay(f *testing.F) {
	for _, s := range replaySeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lo := recording.Options{MaxNesting: 2000}
		var runs []*recording.Run
		recording.LoadReader("fuzz.jsonl", bytes.NewReader(data), lo, func(r *recording.Run) error {
			runs = append(runs, r)
			return nil
		})
		for _, v := range declVariants {
			opts := Options{}
			if v.dev {
				opts.Posture = checks.PostureDev
			}
			assertFilteredSame(t, "fuzz.jsonl", v.name, data, runs, v.decl(t), opts, lo)
		}
	})
}

// forEachEquivalenceCase calls fn for every equivalence input, loaded
// whole, under every declaration variant (and the input's own
// declarations, when it has some).
func forEachEquivalenceCase(t *testing.T, fn func(name string, data []byte, runs []*recording.Run, v declVariant, decl *checks.Declarations, opts Options)) {
	t.Helper()
	paths, own := equivalenceInputs(t)
	type input struct {
		name string
		data []byte
	}
	var inputs []input
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{p, data})
	}
	c := synth.Config{Runs: 3, Iterations: 12, ToolResultBytes: 512, LongResultEvery: 0, Evictions: true, Findings: true, Interleave: true, Seed: 7}
	var buf bytes.Buffer
	if _, err := synth.WriteNDJSON(&buf, c); err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, input{"synth.jsonl", buf.Bytes()})
	var doc bytes.Buffer
	if _, err := synth.WriteRecordingJSON(&doc, c); err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, input{"synth.json", doc.Bytes()})
	// Documents whose snapshot comes after their events: agentfootprint
	// writes it first, but nothing in the format says so.
	for _, in := range inputs[:len(inputs):len(inputs)] {
		if strings.HasSuffix(in.name, ".jsonl") {
			continue
		}
		if late, ok := snapshotLast(t, in.data, false); ok {
			inputs = append(inputs, input{in.name + " (events first)", late})
		}
		if late, ok := snapshotLast(t, in.data, true); ok {
			inputs = append(inputs, input{in.name + " (an empty snapshot first)", late})
		}
	}

	for _, in := range inputs {
		runs := loadAll(t, in.name, in.data)
		if len(runs) == 0 {
			// A recording cut before its events array holds no run.
			t.Logf("%s: no run loaded", in.name)
			continue
		}
		variants := declVariants
		if p, ok := own[in.name]; ok {
			yaml, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			variants = append(variants[:len(variants):len(variants)], declVariant{name: "own", yaml: string(yaml), file: p})
		}
		for _, v := range variants {
			decl := v.decl(t)
			opts := Options{}
			if v.dev {
				opts.Posture = checks.PostureDev
			}
			fn(in.name, in.data, runs, v, decl, opts)
		}
	}
}

// snapshotLast rewrites a document with a snapshot and events so that its
// snapshot comes after its events; with empty, an empty snapshot comes
// first as well. ok is false when the document has not both.
func snapshotLast(t *testing.T, data []byte, empty bool) ([]byte, bool) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	type member struct {
		key string
		val json.RawMessage
	}
	var members []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var m member
		m.key, _ = tok.(string)
		if err := dec.Decode(&m.val); err != nil {
			return nil, false
		}
		members = append(members, m)
	}
	snap := -1
	events := false
	for i, m := range members {
		switch m.key {
		case "snapshot":
			snap = i
		case "events":
			events = true
		}
	}
	if snap < 0 || !events {
		return nil, false
	}
	var out bytes.Buffer
	out.WriteByte('{')
	write := func(key string, val []byte) {
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		out.Write(k)
		out.WriteByte(':')
		out.Write(val)
	}
	if empty {
		write("snapshot", []byte("{}"))
	}
	for i, m := range members {
		if i != snap {
			write(m.key, m.val)
		}
	}
	write("snapshot", members[snap].val)
	out.WriteByte('}')
	return out.Bytes(), true
}

// TestNeedsKnowEveryCheck keeps the table of what each check reads in step
// with the registry: a registered check the table does not list would make
// every replay read everything, silently.
func TestNeedsKnowEveryCheck(t *testing.T) {
	for _, c := range checks.Registry {
		if _, ok := checkNeeds[c]; !ok {
			t.Errorf("%s is registered but checkNeeds does not say what it reads", c.Key())
		}
	}
}

// TestUnknownCheckReadsEverything: a registry the engine does not know is
// handed every input.
func TestUnknownCheckReadsEverything(t *testing.T) {
	own := *checks.WireInvariant
	reg := []*checks.Check{&own}
	l := checks.NewLedger(reg, nil, checks.PostureObserve)
	if got := needsOf(reg, l, nil); got != allNeeds {
		t.Errorf("needs of an unknown check: %+v, want everything", got)
	}
	if got := needsOf(checks.Registry, checks.NewLedger(checks.Registry, nil, checks.PostureObserve), nil); got != (needs{}) {
		t.Errorf("needs with nothing declared: %+v, want nothing beyond the wire", got)
	}
}

// FuzzReplayPaths replays fuzzed recordings both ways, and folded one
// event at a time, and requires the same evidence.
func FuzzReplayPaths(f *testing.F) {
	decls := seedReplayFuzz(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		recording.LoadReader("fuzz.jsonl", bytes.NewReader(data), recording.Options{MaxNesting: 2000}, func(run *recording.Run) error {
			for _, d := range decls {
				assertSameReplay(t, "fuzz", run, d, Options{})
				assertFoldSame(t, "fuzz", run, d, Options{}, nil, nil)
			}
			return nil
		})
	})
}

// seedReplayFuzz seeds f with the fixture streams and returns the
// declaration variants a fuzzed stream is replayed under: every one but
// those in dev posture.
func seedReplayFuzz(f *testing.F) []*checks.Declarations {
	for _, s := range replaySeeds(f) {
		f.Add(s)
	}
	var decls []*checks.Declarations
	for _, v := range declVariants {
		if !v.dev {
			decls = append(decls, v.decl(f))
		}
	}
	return decls
}

// FuzzReplayPathsEvent puts one fuzzed event (a chosen type, a fuzzed
// payload) at a fuzzed position of a fixture run, as FuzzReplayEvent does,
// and requires both readings to give the same evidence: a hostile payload
// in the middle of a plausible run must not read differently.
func FuzzReplayPathsEvent(f *testing.F) {
	seeds := replaySeeds(f)
	for i, p := range []string{
		`{"contentHash":"0","slot":"messages","rawContent":"h-042","asRole":"tool","sourceId":"c0","position":3}`,
		`{"iteration":1,"provider":"mock","tools":[{"name":"backup_status"},{"Name":"fleet_report"}]}`,
		`{"iteration":1,"content":"{\"nav_count\":5}","wireManifest":{"toolNames":["backup_status",null,7]}}`,
		`{"toolName":"backup_status","toolCallId":"c1","args":{"host":"h-042"},"toolCallId":"c2"}`,
		`{"toolCallId":"c1","result":[],"error":"no"}`,
		`{"slot":"messages","contentHash":5}`,
		`{"iterIndex":1,"history":[{"role":"tool","content":"h-042","toolCallId":"c0"},{"role":"assistant","toolCalls":[{"id":"c1","name":"backup_status"},null]}]}`,
		`{"mapId":"skill-map","iteration":"1"}`,
		`{"chosen":"final","iterIndex":1.5}`,
	} {
		f.Add(uint8(i), uint16(i*7), uint8(i*3), []byte(p))
	}
	var decls []*checks.Declarations
	for _, v := range declVariants {
		if !v.dev {
			decls = append(decls, v.decl(f))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, pos uint16, typ uint8, payload []byte) {
		data := withFuzzedEvent(t, seeds[int(which)%len(seeds)], pos, typ, payload)
		recording.LoadReader("fuzz.jsonl", bytes.NewReader(data), recording.Options{}, func(run *recording.Run) error {
			for _, d := range decls {
				assertSameReplay(t, "fuzz", run, d, Options{})
				assertFoldSame(t, "fuzz", run, d, Options{}, nil, nil)
			}
			return nil
		})
	})
}

// FuzzPayloadDecoders holds each payload decoder to the lenient
// encoding/json reading on one fuzzed payload, valid JSON or not.
func FuzzPayloadDecoders(f *testing.F) {
	for _, s := range []string{
		`{"contentHash":"0","slot":"messages","rawContent":"h-042","asRole":"tool","sourceId":"c0","position":3}`,
		`{"slot":"messages","Slot":"tools","rawContent":null,"position":1e999}`,
		`{"iteration":1,"provider":"mock","tools":[{"name":"a"},{"name":"b","NAME":"c"}],"toolsCount":2,"systemPromptText":"s\u00e9"}`,
		`{"iteration":2,"content":"{\"nav\":5}","wireManifest":{"toolNames":["a",null,3,"b"]}}`,
		`{"wireManifest":{"toolNames":null}}`,
		`{"toolName":"x","toolCallId":"c1","args":{"host":"h"},"toolName":"y"}`,
		`{"toolCallId":"c1","result":"text","error":false}`,
		`{"toolCallId":"c1","result":null,"error":"yes"}`,
		`{"iterIndex":1,"history":[{"role":"tool","content":"h","toolCallId":"c0","toolName":"t"},{"role":"assistant","content":null,"toolCalls":[{"id":"c1","name":"n"}]}]}`,
		`{"iterIndex":1,"history":[null,{"role":5}]}`,
		`{"toolName":"w","toolCallId":"c0","iteration":1,"semantics":{"af_semantics":true}}`,
		`{"\u0073lot":"messages","ſlot":"x","K":1}`,
		`{"mapId":"m","iteration":2,"reengaged":true,"chosen":"final","iterIndex":3,"userPrompt":"u","finalContent":null}`,
		`{"mapID":"m","chosen":5}`,
		`[1,2]`, `null`, `"s"`, `{"slot":`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		same := func(what string, slow, fast any) {
			t.Helper()
			if diff := cmp.Diff(slow, fast); diff != "" {
				t.Errorf("%s of %q (-lenient +fast):\n%s", what, raw, diff)
			}
		}
		type result[T any] struct {
			P  T
			OK bool
		}
		// Each decoder reads the payload alone, and as the loader hands
		// it over in an event of its type, with the index of its members
		// made while validating it.
		decodeBoth := func(what, typ string, fast func(*recording.Event, bool) (any, bool), zero func() any) {
			t.Helper()
			for _, ev := range []*recording.Event{{Type: typ, Payload: raw}, loadedEvent(t, typ, raw)} {
				if ev == nil {
					continue
				}
				s := zero()
				ok := decodeLoose(ev.Payload, s)
				fp, fok := fast(ev, false)
				same(what, result[any]{s, ok}, result[any]{fp, fok})
			}
		}
		decodeBoth("injected", recording.TypeContextInjected, func(r *recording.Event, slow bool) (any, bool) {
			var p injectedPayload
			ok := decodeInjected(r, &p, nil, slow, nil)
			return &p, ok
		}, func() any { return new(injectedPayload) })
		// Through a cache, which also holds the values the pointer fields
		// point to.
		var cache textCache
		decodeBoth("injected, cached", recording.TypeContextInjected, func(r *recording.Event, slow bool) (any, bool) {
			var p injectedPayload
			ok := decodeInjected(r, &p, &cache, slow, nil)
			return &p, ok
		}, func() any { return new(injectedPayload) })
		// After the locator, taking what it read by the fast path.
		located := func(r *recording.Event) *locatePayload {
			var at locatePayload
			if decodeLocate(r, &at) {
				return &at
			}
			return nil
		}
		decodeBoth("injected, located", recording.TypeContextInjected, func(r *recording.Event, slow bool) (any, bool) {
			var p injectedPayload
			ok := decodeInjected(r, &p, &cache, slow, located(r))
			return &p, ok
		}, func() any { return new(injectedPayload) })
		decodeBoth("tool_start, located", recording.TypeToolStart, func(r *recording.Event, slow bool) (any, bool) {
			var p toolStartPayload
			ok := decodeToolStart(r, &p, slow, located(r))
			return &p, ok
		}, func() any { return new(toolStartPayload) })
		decodeBoth("evicted, located", recording.TypeContextEvicted, func(r *recording.Event, slow bool) (any, bool) {
			var p evictedPayload
			ok := decodeEvicted(r, &p, slow, located(r))
			return &p, ok
		}, func() any { return new(evictedPayload) })
		decodeBoth("llm_start", recording.TypeLLMStart, func(r *recording.Event, slow bool) (any, bool) {
			var p llmStartPayload
			ok := decodeLLMStart(r, &p, slow)
			return &p, ok
		}, func() any { return new(llmStartPayload) })
		decodeBoth("llm_end", recording.TypeLLMEnd, func(r *recording.Event, slow bool) (any, bool) {
			var p llmEndPayload
			ok := decodeLLMEnd(r, &p, true, slow)
			return &p, ok
		}, func() any { return new(llmEndPayload) })
		decodeBoth("tool_start", recording.TypeToolStart, func(r *recording.Event, slow bool) (any, bool) {
			var p toolStartPayload
			ok := decodeToolStart(r, &p, slow, nil)
			return &p, ok
		}, func() any { return new(toolStartPayload) })
		decodeBoth("tool_end", recording.TypeToolEnd, func(r *recording.Event, slow bool) (any, bool) {
			var p toolEndPayload
			ok := decodeToolEnd(r, &p, slow)
			return &p, ok
		}, func() any { return new(toolEndPayload) })
		decodeBoth("evicted", recording.TypeContextEvicted, func(r *recording.Event, slow bool) (any, bool) {
			var p evictedPayload
			ok := decodeEvicted(r, &p, slow, nil)
			return &p, ok
		}, func() any { return new(evictedPayload) })
		decodeBoth("semantics", recording.TypeSemantics, func(r *recording.Event, slow bool) (any, bool) {
			var p semanticsPayload
			ok := decodeSemantics(r, &p, slow)
			return &p, ok
		}, func() any { return new(semanticsPayload) })
		decodeBoth("iteration_end", recording.TypeIterationEnd, func(r *recording.Event, slow bool) (any, bool) {
			var p iterationEndPayload
			ok := decodeIterationEnd(r, &p, slow)
			return &p, ok
		}, func() any { return new(iterationEndPayload) })

		decodeBoth("turn_start", recording.TypeTurnStart, func(r *recording.Event, slow bool) (any, bool) {
			var p turnStartPayload
			ok := decodeTurnStart(r, &p, slow)
			return &p, ok
		}, func() any { return new(turnStartPayload) })
		decodeBoth("turn_end", recording.TypeTurnEnd, func(r *recording.Event, slow bool) (any, bool) {
			var p turnEndPayload
			ok := decodeTurnEnd(r, &p, slow)
			return &p, ok
		}, func() any { return new(turnEndPayload) })
		decodeBoth("slot_composed", recording.TypeSlotComposed, func(r *recording.Event, slow bool) (any, bool) {
			var p slotComposedPayload
			ok := decodeSlotComposed(r, &p, slow)
			return &p, ok
		}, func() any { return new(slotComposedPayload) })
		decodeBoth("map", recording.TypeMapEngaged, func(r *recording.Event, slow bool) (any, bool) {
			var p mapPayload
			ok := decodeMap(r, &p, slow)
			return &p, ok
		}, func() any { return new(mapPayload) })
		decodeBoth("route_decided", recording.TypeRouteDecided, func(r *recording.Event, slow bool) (any, bool) {
			var p routePayload
			ok := decodeRoute(r, &p, slow)
			return &p, ok
		}, func() any { return new(routePayload) })

		var full injectedPayload
		for _, ev := range []*recording.Event{{Type: recording.TypeContextInjected, Payload: raw}, loadedEvent(t, recording.TypeContextInjected, raw)} {
			if ev == nil {
				continue
			}
			fullOK := decodeLoose(ev.Payload, &full)
			slot, slotOK := injectedSlot(ev)
			same("injected slot", result[string]{full.Slot, fullOK}, result[string]{slot, slotOK})
		}

		// The nested walks read raw as given, and, when it is valid JSON,
		// as a payload validated with its event.
		for _, valid := range []bool{false, json.Valid(raw)} {
			hs, hsOK := decodeHistory(nil, raw, true, true, false)
			hf, hfOK := decodeHistory(nil, raw, true, false, valid)
			same("history", result[[]historyMessage]{hs, hsOK}, result[[]historyMessage]{hf, hfOK})
			// Decoded into the array a previous history left, as the
			// engine does.
			stale := make([]historyMessage, 3, 8)
			for i := range stale {
				stale[i] = historyMessage{Role: "stale", Content: json.RawMessage(`"stale"`), ToolCallID: "stale", ToolName: "stale"}
			}
			hr, hrOK := decodeHistory(stale, raw, true, false, valid)
			same("history into a used array", result[[]historyMessage]{hs, hsOK}, result[[]historyMessage]{hr, hrOK})
			if hsOK && hfOK {
				// Without content only the contents may differ.
				hn, hnOK := decodeHistory(nil, raw, false, false, valid)
				for i := range hs {
					hs[i].Content = nil
				}
				same("history without content", result[[]historyMessage]{hs, hsOK}, result[[]historyMessage]{hn, hnOK})
			}

			ns, nsOK := toolNames(raw)
			nf, nfOK := toolNamesOf(raw, false, valid)
			same("tool names", result[[]string]{ns, nsOK}, result[[]string]{nf, nfOK})

			type manifest struct {
				Names   []string
				Stated  bool
				Problem string
			}
			var ms, mf manifest
			ms.Names, ms.Stated, ms.Problem = manifestNames(raw)
			mf.Names, mf.Stated, mf.Problem = manifestNamesOf(raw, false, valid)
			same("manifest", ms, mf)
		}

		if len(raw) > 0 {
			same("result text", resultText(raw), resultTextOf(raw, nil, false))
			same("result text, cached", resultText(raw), resultTextOf(raw, new(textCache), false))
		}
		ss, ssOK := stringValue(raw, true)
		sf, sfOK := stringValue(raw, false)
		same("string value", result[string]{ss, ssOK}, result[string]{sf, sfOK})
	})
}

// loadedEvent is the event the loader makes of one line of type typ with
// raw as its payload, or nil when that line is not an event.
func loadedEvent(t *testing.T, typ string, raw []byte) *recording.Event {
	t.Helper()
	if bytes.ContainsAny(raw, "\r\n") {
		return nil
	}
	line := append([]byte(`{"type":"`+typ+`","payload":`), raw...)
	line = append(line, `,"meta":{"runId":"r"}}`+"\n"...)
	var got *recording.Event
	_, _ = recording.LoadReader("payload.jsonl", bytes.NewReader(line), recording.Options{}, func(run *recording.Run) error {
		if got == nil && len(run.Events) > 0 {
			ev := run.Events[0]
			got = &ev
		}
		return nil
	})
	return got
}
