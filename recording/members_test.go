package recording

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
)

// TestMembersIndex pins which payloads the decoder indexes, and that an
// index gives what walking the payload gives, for a payload validated
// first and for its repeat, which takes the kept verdict.
func TestMembersIndex(t *testing.T) {
	names := NewMemberSet("slot", "contentHash", "rawContent", "position")
	long := strings.Repeat("x", 300)
	tests := []struct {
		name    string
		typ     string
		payload string
		indexed bool
	}{
		{"plain", TypeContextInjected, `{"contentHash":"h1","slot":"messages","rawContent":"` + long + `","position":3}`, true},
		{"absent fields", TypeContextInjected, `{"slot":"messages","other":"` + long + `"}`, true},
		{"escaped key", TypeContextInjected, `{"\u0073lot":"messages","rawContent":"` + long + `"}`, true},
		{"spaces", TypeContextInjected, `{ "slot" : "messages" , "rawContent" : "` + long + `" }`, true},
		{"a repeated field", TypeContextInjected, `{"slot":"messages","rawContent":"` + long + `","slot":"tools"}`, false},
		{"a key in another case", TypeContextInjected, `{"slot":"messages","Slot":"tools","rawContent":"` + long + `"}`, false},
		{"a non-ASCII key", TypeContextInjected, `{"slot":"messages","ſlot":"tools","rawContent":"` + long + `"}`, false},
		{"a repeated field the set does not read", TypeContextInjected, `{"asRole":"a","asRole":"b","rawContent":"` + long + `"}`, false},
		{"a type without the names", TypeToolStart, `{"toolName":"t","toolCallId":"c","slot":"x","args":{"a":"` + long + `"}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := []byte(`{"type":"` + tt.typ + `","payload":` + tt.payload + `,"meta":{"runId":"r"}}`)
			d := eventDecoder{verdicts: verdicts{eager: true}}
			for copyNo := range 2 {
				var r decodedEvent
				d.decode(line, &r)
				if r.err != nil {
					t.Fatal(r.err)
				}
				got := make([][]byte, len(names.Names()))
				indexed := r.ev.Members(names, got)
				if indexed != tt.indexed {
					t.Fatalf("copy %d: indexed %v, want %v", copyNo, indexed, tt.indexed)
				}
				if !indexed {
					continue
				}
				want := make([][]byte, len(names.Names()))
				if err := jsonfast.Members(r.ev.Payload, func(key []byte, _ bool, val []byte) bool {
					for i, n := range names.Names() {
						if string(key) == n {
							want[i] = val
						}
					}
					return true
				}); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("copy %d (-walked +indexed):\n%s", copyNo, diff)
				}
			}
			if d.verdicts.hits != 1 {
				t.Errorf("the repeat took %d kept verdicts, want 1", d.verdicts.hits)
			}
		})
	}
}

// TestMembersIndexFollowsItsPayload: an event whose payload is dropped or
// replaced no longer answers from the index.
func TestMembersIndexFollowsItsPayload(t *testing.T) {
	line := []byte(`{"type":"` + TypeToolStart + `","payload":{"toolName":"t","toolCallId":"c","args":{}},"meta":{"runId":"r"}}`)
	var d eventDecoder
	var r decodedEvent
	d.decode(line, &r)
	set := NewMemberSet("toolName")
	out := make([][]byte, 1)
	if !r.ev.Members(set, out) || string(out[0]) != `"t"` {
		t.Fatalf("indexed %q, want \"t\"", out[0])
	}
	c := r.ev
	c.Payload = nil
	if c.Members(set, out) {
		t.Errorf("a dropped payload answered from the index")
	}
	c.Payload = []byte(`{}`)
	if c.Members(set, out) {
		t.Errorf("another payload answered from the index")
	}
}

// FuzzPayloadIndex holds the index to a walk of the payload: whenever a
// decoded event carries one, it gives, for its type's schema fields, what
// jsonfast.Members gives, and the payload repeats no field and has no key
// that folds to one.
func FuzzPayloadIndex(f *testing.F) {
	for _, s := range []string{
		`{"type":"agentfootprint.context.injected","payload":{"slot":"messages","rawContent":"x","position":1},"meta":{"runId":"r"}}`,
		`{"type":"agentfootprint.stream.tool_end","payload":{"toolCallId":"c","result":{"a":[1,2]},"error":false},"meta":{"runId":"r"}}`,
		`{"type":"agentfootprint.stream.llm_start","payload":{"iteration":1,"Tools":[],"tools":[{"name":"a"}]},"meta":{"runId":"r"}}`,
		`{"type":"agentfootprint.context.injected","payload":{"sl\u006ft":"messages","slot":"x"},"meta":{"runId":"r"}}`,
	} {
		f.Add([]byte(s))
	}
	sets := map[string]*MemberSet{}
	for typ, sc := range compiledSchemas {
		sets[typ] = NewMemberSet(sc.names...)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		d := eventDecoder{verdicts: verdicts{eager: true}}
		for range 2 { // the second reading may take the kept verdict
			var r decodedEvent
			d.decode(line, &r)
			set := sets[r.ev.Type]
			if r.err != nil || set == nil {
				return
			}
			got := make([][]byte, len(set.Names()))
			if !r.ev.Members(set, got) {
				continue
			}
			want := make([][]byte, len(set.Names()))
			if err := jsonfast.Members(r.ev.Payload, func(key []byte, _ bool, val []byte) bool {
				for i, n := range set.Names() {
					if string(key) == n {
						if want[i] != nil {
							t.Errorf("indexed, but %q is written twice", n)
						}
						want[i] = val
						return true
					}
				}
				if jsonfast.FoldsToAny(key, set.Names()) {
					t.Errorf("indexed, but key %q folds to a field", key)
				}
				return true
			}); err != nil {
				t.Fatalf("indexed, but the payload is not an object: %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s (-walked +indexed):\n%s", line, diff)
			}
		}
	})
}
