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
