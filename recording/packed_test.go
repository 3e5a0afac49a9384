package recording

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/internal/synth"
)

// expandReference expands a packed recording the way the format is
// documented, over decoded JSON: an independent reading to hold the
// segment compiler to.
func expandReference(values []any, node any, state []uint8, done []any) (any, error) {
	switch v := node.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			x, err := expandReference(values, e, state, done)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case map[string]any:
		if len(v) == 1 {
			if r, ok := v[packRef]; ok {
				n, ok := r.(json.Number)
				f, err := n.Float64()
				if !ok || err != nil || f < 0 || f != math.Trunc(f) || f >= float64(len(values)) {
					return nil, errors.New("dangling")
				}
				i := int(f)
				switch state[i] {
				case 2:
					return done[i], nil
				case 1:
					return nil, errors.New("cycle")
				}
				state[i] = 1
				x, err := expandReference(values, values[i], state, done)
				if err != nil {
					return nil, err
				}
				state[i], done[i] = 2, x
				return x, nil
			}
			if e, ok := v[packEsc].(map[string]any); ok {
				v = e
			}
		}
		out := map[string]any{}
		for k, e := range v {
			x, err := expandReference(values, e, state, done)
			if err != nil {
				return nil, err
			}
			out[k] = x
		}
		return out, nil
	}
	return node, nil
}

func decodeNumbers(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// expandSegments expands values and recording (packed JSON text) with the
// segment compiler.
func expandSegments(values, rec []byte, limit int64) ([]byte, error) {
	doc, err := compilePacked(&packedParts{values: values, sawValues: true, recording: rec, sawRecording: true}, limit)
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(doc.reader())
	if err == nil && int64(len(out)) != doc.total {
		return nil, errors.New("measured size differs from the expansion")
	}
	return out, err
}

func TestPackedExpansion(t *testing.T) {
	long := `"` + strings.Repeat("y", 70) + `"`
	for _, tc := range []struct {
		name, values, rec, want, err string
	}{
		{name: "no refs", values: `[]`, rec: `{"events":[1,2]}`, want: `{"events":[1,2]}`},
		{name: "ref", values: `[` + long + `]`, rec: `{"a":{"$af:ref":0},"b":[{"$af:ref":0}]}`, want: `{"a":` + long + `,"b":[` + long + `]}`},
		{name: "value refers to value", values: `[{"x":{"$af:ref":1}},` + long + `]`, rec: `[{"$af:ref":0},{"$af:ref":1}]`, want: `[{"x":` + long + `},` + long + `]`},
		{name: "ref index as a whole float", values: `["a"]`, rec: `{"$af:ref":0.0}`, want: `"a"`},
		{name: "ref with spaces", values: `["a"]`, rec: `{ "$af:ref" : 0 }`, want: `"a"`},
		{name: "escaped key spelling", values: `["a"]`, rec: `{"\u0024af:ref":0}`, want: `"a"`},
		{name: "escape", values: `["a"]`, rec: `{"$af:esc":{"$af:ref":0}}`, want: `{"$af:ref":0}`},
		{name: "escape keeps inner refs", values: `["a"]`, rec: `{"$af:esc":{"$af:ref":{"$af:ref":0},"k":1}}`, want: `{"$af:ref":"a","k":1}`},
		{name: "escape of an escape", values: `[]`, rec: `{"$af:esc":{"$af:esc":{"q":1}}}`, want: `{"$af:esc":{"q":1}}`},
		{name: "reserved key among others is content", values: `["a"]`, rec: `{"$af:ref":0,"k":1}`, want: `{"$af:ref":0,"k":1}`},
		{name: "escape of a non-object is content", values: `[]`, rec: `{"$af:esc":[1]}`, want: `{"$af:esc":[1]}`},
		{name: "dangling", values: `["a"]`, rec: `{"e":[{"$af:ref":1}]}`, err: `recording.e[0]: a reference names value 1`},
		{name: "negative", values: `["a"]`, rec: `{"$af:ref":-1}`, err: `recording: a reference names value -1`},
		{name: "fraction", values: `["a"]`, rec: `{"$af:ref":0.5}`, err: `a reference names value 0.5`},
		{name: "string index", values: `["a"]`, rec: `{"$af:ref":"0"}`, err: `a reference names value "\"0\""`},
		{name: "dangling inside a value", values: `[{"q":[{"$af:ref":7}]}]`, rec: `{}`, err: `values[0].q[0]: a reference names value 7`},
		{name: "self", values: `[[{"$af:ref":0}]]`, rec: `{}`, err: `values[0] refers to itself; a recording cannot hold that`},
		{name: "cycle", values: `[{"$af:ref":1},{"$af:ref":2},{"$af:ref":0}]`, rec: `{}`, err: `values[0] refers to itself through a cycle of references (values[0] → values[1] → values[2] → values[0])`},
		{name: "odd key", values: `[]`, rec: `{"a b":{"$af:ref":3}}`, err: `recording["a b"]: a reference`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := expandSegments([]byte(tc.values), []byte(tc.rec), 1<<20)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("expanded to %s, want %s", got, tc.want)
			}
		})
	}
}

func TestPackedExpansionLimit(t *testing.T) {
	// Each value holds the one before twice: 40 levels stand for 2^40
	// copies, refused on the packed form in no time.
	var v strings.Builder
	v.WriteString(`["` + strings.Repeat("x", 64) + `"`)
	for i := 1; i <= 40; i++ {
		v.WriteString(`,[{"$af:ref":` + itoa(i-1) + `},{"$af:ref":` + itoa(i-1) + `}]`)
	}
	v.WriteString("]")
	_, err := expandSegments([]byte(v.String()), []byte(`{"$af:ref":40}`), DefaultMaxPackedExpansion)
	if err == nil || !strings.Contains(err.Error(), "expands to more than 8 GiB (limit set by --max-packed-expansion") {
		t.Fatalf("err = %v", err)
	}
	// Right at the limit is allowed.
	out, err := expandSegments([]byte(`["`+strings.Repeat("x", 64)+`"]`), []byte(`[{"$af:ref":0},{"$af:ref":0}]`), 135)
	if err != nil || len(out) != 135 {
		t.Fatalf("at the limit: %d bytes, %v", len(out), err)
	}
	if _, err := expandSegments([]byte(`["`+strings.Repeat("x", 64)+`"]`), []byte(`[{"$af:ref":0},{"$af:ref":0}]`), 134); err == nil {
		t.Fatal("one byte past the limit was expanded")
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestPackedLoads: a packed recording reads as its plain form, bare, with
// its members in any order, inside an envelope and inside an artifact's
// text; the stats say it was packed.
func TestPackedLoads(t *testing.T) {
	plain, err := os.ReadFile("../testdata/recordings/loader/recording.json")
	if err != nil {
		t.Fatal(err)
	}
	packed, err := synth.Pack(plain)
	if err != nil {
		t.Fatal(err)
	}
	load := func(b []byte) (*Stats, []*Run, error) {
		var runs []*Run
		st, err := LoadReader("x.json", bytes.NewReader(b), Options{Workers: 1}, func(r *Run) error { runs = append(runs, r); return nil })
		return st, runs, err
	}
	wantStats, wantRuns, err := load(plain)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	json.Compact(&compact, plain)
	reordered := reorderPacked(t, packed)
	envelope := []byte(`{"format":"agentfootprint.recording.v1","run":{"complete":true,"droppedEvents":0},"privacy":{"mode":"full"},"recording":` + string(packed) + `}`)
	quoted, _ := json.Marshal(string(packed))
	artifact := []byte(`{"format":1,"meta":{"kind":"recording/run"},"payload":{"shape":"text","value":` + string(quoted) + `}}`)
	artifactObj := []byte(`{"format":1,"meta":{"kind":"recording/run"},"payload":{"shape":"json","value":` + string(packed) + `}}`)
	for name, b := range map[string][]byte{"bare": packed, "values first": reordered, "envelope": envelope, "artifact text": artifact, "artifact object": artifactObj} {
		t.Run(name, func(t *testing.T) {
			st, runs, err := load(b)
			if err != nil {
				t.Fatal(err)
			}
			if !st.Packed {
				t.Error("Stats.Packed is false")
			}
			if len(runs) != len(wantRuns) || st.Events != wantStats.Events {
				t.Fatalf("%d runs, %d events; plain has %d, %d", len(runs), st.Events, len(wantRuns), wantStats.Events)
			}
			for i := range runs {
				for j := range runs[i].Events {
					a, b := runs[i].Events[j], wantRuns[i].Events[j]
					a.Line, b.Line = 0, 0
					if !reflect.DeepEqual(a, b) {
						t.Fatalf("run %d event %d differs:\n%+v\n%+v", i, j, a, b)
					}
				}
				if !reflect.DeepEqual(runs[i].Snapshot, wantRuns[i].Snapshot) {
					t.Fatalf("run %d snapshot facts differ: %+v vs %+v", i, runs[i].Snapshot, wantRuns[i].Snapshot)
				}
			}
		})
	}
}

// reorderPacked moves a packed recording's values before its recording.
func reorderPacked(t *testing.T, packed []byte) []byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(packed, &m); err != nil {
		t.Fatal(err)
	}
	return []byte(`{"values":` + string(m["values"]) + `,"recording":` + string(m["recording"]) + `,"format":"` + PackedFormat + `"}`)
}

func TestPackedFormatStatedLate(t *testing.T) {
	b := []byte(`{"format":"agentfootprint.recording.v1","run":{"complete":true,"droppedEvents":0},"privacy":{"mode":"full"},"recording":{"events":[],"format":"agentfootprint.recording.packed.v1","values":[]}}`)
	_, err := LoadReader("x.json", bytes.NewReader(b), Options{Workers: 1}, func(*Run) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "states the packed format \"agentfootprint.recording.packed.v1\" after members already read as a plain recording") {
		t.Fatalf("err = %v", err)
	}
}

// FuzzPackedExpansion holds the segment compiler to the documented
// reading of the format: on any values and recording that are valid
// JSON, either both refuse or both give the same JSON.
func FuzzPackedExpansion(f *testing.F) {
	long := `"` + strings.Repeat("z", 64) + `"`
	f.Add(`[`+long+`]`, `{"events":[{"$af:ref":0}]}`)
	f.Add(`[{"a":{"$af:ref":1}},[1,2]]`, `{"$af:esc":{"$af:ref":{"$af:ref":0}}}`)
	f.Add(`[[{"$af:ref":0}]]`, `{}`)
	f.Add(`[]`, `{"$af:ref":0}`)
	f.Add(`["a"]`, `{"$af:esc":{"$af:esc":{"$af:ref":0}},"x":{"$af:ref":0.0}}`)
	f.Fuzz(func(t *testing.T, values, rec string) {
		if len(values)+len(rec) > 1<<16 {
			return
		}
		vs, err1 := decodeNumbers([]byte(values))
		r, err2 := decodeNumbers([]byte(rec))
		arr, ok := vs.([]any)
		if err1 != nil || err2 != nil || !ok || !json.Valid([]byte(values)) || !json.Valid([]byte(rec)) {
			return
		}
		// The reference reads only what the recording reaches; the
		// compiler also refuses damage in values nothing refers to.
		state := make([]uint8, len(arr))
		want, refErr := expandReference(arr, r, state, make([]any, len(arr)))
		for i := range arr {
			if refErr == nil && state[i] == 0 {
				_, refErr = expandReference(arr, map[string]any{packRef: json.Number(itoa(i))}, state, make([]any, len(arr)))
			}
		}
		got, err := expandSegments([]byte(values), []byte(rec), 1<<16)
		var pe *packError
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("error of an unexpected kind: %v", err)
		}
		if err != nil && strings.Contains(err.Error(), "expands to more than") {
			return
		}
		if (err == nil) != (refErr == nil) {
			t.Fatalf("compiler err %v, reference err %v", err, refErr)
		}
		if err != nil {
			return
		}
		g, derr := decodeNumbers(got)
		if derr != nil {
			t.Fatalf("expansion is not JSON: %v\n%s", derr, got)
		}
		if !reflect.DeepEqual(g, want) {
			t.Fatalf("expanded to %s, reference %v", got, want)
		}
	})
}

// FuzzPackedRecording mutates packed recordings, bare and in an envelope:
// whatever the references, escapes and members, loading ends in runs or in
// an error naming the input, never in a panic, a hang or an expansion past
// the limit.
func FuzzPackedRecording(f *testing.F) {
	for _, name := range []string{"recording.json", "envelope.json"} {
		plain := readFixture(f, name)
		var packed []byte
		var err error
		if name == "envelope.json" {
			packed, err = synth.PackMember(plain, "recording")
		} else {
			packed, err = synth.Pack(plain)
		}
		if err != nil {
			f.Fatal(err)
		}
		f.Add(packed)
	}
	f.Add([]byte(`{"format":"agentfootprint.recording.packed.v1","recording":{"events":[{"$af:ref":0},{"$af:esc":{"$af:ref":1}}]},"values":[{"type":"agentfootprint.agent.turn_start","meta":{"runId":"r"}},[{"$af:ref":0}]]}`))
	f.Add([]byte(`{"format":"agentfootprint.recording.packed.v1","values":[[{"$af:ref":0}]],"recording":{"snapshot":{"$af:ref":0}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkInvariants(t, data, Options{MaxNesting: 2000, MaxPackedExpansion: 1 << 20})
	})
}

// TestPackedMemberStatedTwice: a packed recording that states its values
// or its recording twice is refused by name, bare and inside an envelope,
// rather than read as whichever came last.
func TestPackedMemberStatedTwice(t *testing.T) {
	v, r := packedLoaderFixture(t)
	head := `{"format":"` + PackedFormat + `",`
	envelope := func(p string) string {
		return `{"format":"agentfootprint.recording.v1","run":{"complete":true,"droppedEvents":0},"privacy":{"mode":"full"},"recording":` + p + `}`
	}
	cases := []struct{ name, input, want string }{
		{"recording twice", head + `"values":` + v + `,"recording":` + r + `,"recording":` + r + `}`, "line 1: recording is stated twice in a packed recording"},
		{"values twice", head + `"values":` + v + `,"recording":` + r + `,"values":` + v + `}`, "line 1: values is stated twice in a packed recording"},
		{"values twice, the second empty", head + `"values":` + v + `,"values":[],"recording":` + r + `}`, "line 1: values is stated twice in a packed recording"},
		{"in an envelope", envelope(head + `"recording":` + r + `,"values":` + v + `,"recording":{"events":[]}}`), "line 1: recording.recording is stated twice in a packed recording"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadReader("x.json", strings.NewReader(tc.input), Options{Workers: 1}, func(*Run) error { return nil })
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want an input error holding %q", err, tc.want)
			}
		})
	}
}

// TestPackedEventsBeside: events (or a snapshot) written beside a packed
// recording, outside it, are read as the envelope reads them beside its
// recording, with a problem saying so, and in file order: never passed
// over as an unknown member.
func TestPackedEventsBeside(t *testing.T) {
	v, r := packedLoaderFixture(t)
	head := `{"format":"` + PackedFormat + `","values":` + v + `,`
	beside := `"events":[{"type":"agentfootprint.agent.turn_start","payload":{},"meta":{"runId":"run-beside-1"}}]`
	cases := []struct {
		name, input string
		// second is the place the second events array read is said to be
		// in: the one read first is the one earlier in the file.
		problem, second string
	}{
		{"after the recording", head + `"recording":` + r + `,` + beside + `}`, "events is beside the packed recording, not in it; its events are read too, as plain events", "events beside the packed recording: a second events array"},
		{"before the recording", head + beside + `,"recording":` + r + `}`, "events is beside the packed recording, not in it; its events are read too, as plain events", "packed recording: a second events array"},
		{"in an envelope", `{"format":"agentfootprint.recording.v1","run":{"complete":true,"droppedEvents":0},"privacy":{"mode":"full"},"recording":` + head + `"recording":` + r + `,` + beside + `}}`, "recording.events is beside the packed recording", "events beside the packed recording: a second events array"},
		{"a snapshot beside", head + `"recording":` + r + `,"snapshot":{"sharedState":{"parkedToolNames":["beside"]}},` + beside + `}`, "snapshot is beside the packed recording, not in it; it is read too, as a plain snapshot", "events beside the packed recording: a second events array"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var runs []*Run
			st, err := LoadReader("x.json", strings.NewReader(tc.input), Options{Workers: 1}, func(r *Run) error { runs = append(runs, r); return nil })
			if err != nil {
				t.Fatal(err)
			}
			if st.Events != 13 || len(runs) != 3 {
				t.Fatalf("%d events, %d runs; want the recording's 12 and the one beside it, in 3 runs", st.Events, len(runs))
			}
			var problems []string
			for _, p := range st.Problems {
				problems = append(problems, p.Message)
			}
			all := strings.Join(problems, "\n")
			if !strings.Contains(all, tc.problem) || !strings.Contains(all, tc.second) {
				t.Errorf("problems:\n%s\nwant %q and %q", all, tc.problem, tc.second)
			}
			if strings.Contains(tc.input, `"beside"]`) {
				last := runs[len(runs)-1].Snapshot
				if last == nil || !slices.Contains(last.ParkedToolNames, "beside") {
					t.Errorf("snapshot beside the packed recording not read: %+v", last)
				}
			}
		})
	}
}

// packedLoaderFixture is the loader fixture recording packed: the JSON of
// its values and of its recording, to build packed documents around.
func packedLoaderFixture(t *testing.T) (values, rec string) {
	t.Helper()
	plain, err := os.ReadFile("../testdata/recordings/loader/recording.json")
	if err != nil {
		t.Fatal(err)
	}
	packed, err := synth.Pack(plain)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(packed, &m); err != nil {
		t.Fatal(err)
	}
	return string(m["values"]), string(m["recording"])
}
