package recording

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDataAfterTheDocument: a document followed by anything but whitespace
// is refused, naming where the extra data starts; a second recording
// written after the first would otherwise go unread behind a report that
// judged the first alone.
func TestDataAfterTheDocument(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(fixtureDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	rec, env := read("recording.json"), read("envelope.json")
	var art map[string]any
	if err := json.Unmarshal([]byte(read("artifact.json")), &art); err != nil {
		t.Fatal(err)
	}
	text := art["payload"].(map[string]any)["value"].(string)
	artifact := func(value string) string {
		art["payload"].(map[string]any)["value"] = value
		b, _ := json.Marshal(art)
		return string(b)
	}
	cases := []struct {
		name, input string
		// want is a substring of the error; "" when the input loads as
		// clean does.
		want, clean string
	}{
		{"whitespace after a recording", rec + "\n \t\r\n", "", rec},
		{"two recordings", rec + rec, `data after the end of the JSON document: it starts with "{`, ""},
		{"a recording and a cut-off one", rec + rec[:len(rec)/2], "data after the end of the JSON document", ""},
		{"two envelopes", env + env, "data after the end of the JSON document", ""},
		{"a stray brace", rec + "}", `data after the end of the JSON document: it starts with "}"`, ""},
		{"NUL padding", rec + "\x00\x00\x00", "data after the end of the JSON document: binary data (first bytes 00 00 00)", ""},
		{"whitespace after an artifact's text", artifact(text + "\n "), "", artifact(text)},
		{"two recordings in an artifact's text", artifact(text + text), fmt.Sprintf(`in the recording text stored in payload.value, at byte offset %d: data after the end of the recording: it starts with "{`, len(text)), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := loadBytes(t, "x.json", []byte(tc.input), Options{Workers: 1})
			if tc.want == "" {
				clean, cerr := loadBytes(t, "x.json", []byte(tc.clean), Options{Workers: 1})
				if cerr != nil || err != nil || got.Stats.Events != clean.Stats.Events || len(got.Stats.Problems) != len(clean.Stats.Problems) {
					t.Fatalf("err %v, %d events, problems %v", err, got.Stats.Events, got.Stats.Problems)
				}
				return
			}
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "which is not read, so the input is unreadable from there") {
				t.Fatalf("err = %v, want an input error holding %q", err, tc.want)
			}
		})
	}
}

// TestDocumentMessages: what a document lacks or holds out of place is
// said as it is. Text in an artifact's payload.value that is not JSON is
// named as such, with no read failure made up; an envelope with no
// recording but events at its top level says those were read; a packed
// format stated past the start of a large document is refused as stated
// late, not as an unknown envelope format.
func TestDocumentMessages(t *testing.T) {
	artifact := func(value string) string {
		b, _ := json.Marshal(value)
		return `{"format":1,"meta":{"kind":"recording/run"},"payload":{"shape":"text","value":` + string(b) + `}}`
	}
	events := `"events":[{"type":"agentfootprint.agent.turn_start","payload":{},"meta":{"runId":"run-1"}}]`
	// A snapshot larger than the sniffer's window, so that the format
	// after it is met only by the walker.
	big := `"snapshot":{"pad":"` + strings.Repeat("x", sniffWindow) + `"}`
	cases := []struct {
		name, input string
		err         string // a substring of the error; "" when the input loads
		problem     string // a substring of some problem
	}{
		{name: "text that is not JSON", input: artifact("hello"), err: `x.json: not an agentfootprint recording: the text in payload.value is not JSON (it starts with "hello"), not a recording`},
		{name: "empty text", input: artifact(""), err: "x.json: not an agentfootprint recording: the text in payload.value is empty, not a recording"},
		{name: "a number", input: artifact("42"), err: "x.json: not an agentfootprint recording: the text in payload.value is a JSON number, not a recording"},
		{name: "an envelope with events but no recording", input: `{"format":"agentfootprint.recording.v1","run":{"complete":true,"droppedEvents":0},"privacy":{"mode":"full"},` + events + `}`,
			problem: "the envelope has no recording; the events written at its top level are read in its place"},
		{name: "an envelope with nothing", input: `{"format":"agentfootprint.recording.v1","run":{"complete":true,"droppedEvents":0},"privacy":{"mode":"full"}}`,
			problem: "the envelope has no recording; no events read"},
		{name: "a packed format stated late", input: `{` + big + `,` + events + `,"format":"agentfootprint.recording.packed.v1"}`,
			err: `x.json: the document states the packed format "agentfootprint.recording.packed.v1" after members already read as a plain recording`},
		{name: "an artifact with no meta, past the sniffer's window", input: `{"format":1,"payload":{"shape":"text","pad":"` + strings.Repeat("x", sniffWindow) + `","value":` + func() string { b, _ := json.Marshal(`{` + events + `}`); return string(b) }() + `}}`,
			err: "x.json: not an agentfootprint recording: a numeric format but no meta.kind"},
		{name: "an unknown packed format stated late", input: `{` + big + `,"format":"agentfootprint.recording.packed.v9"}`,
			err: `x.json: unknown packed recording format "agentfootprint.recording.packed.v9"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := loadBytes(t, "x.json", []byte(tc.input), Options{Workers: 1})
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one starting %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for _, p := range got.Stats.Problems {
				all = append(all, p.Message)
			}
			if !slices.Contains(all, tc.problem) {
				t.Errorf("problems %q, want %q", all, tc.problem)
			}
		})
	}
}
