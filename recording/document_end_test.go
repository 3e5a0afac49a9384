package recording

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "the input is refused rather than judged in part") {
				t.Fatalf("err = %v, want an input error holding %q", err, tc.want)
			}
		})
	}
}
