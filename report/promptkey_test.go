package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

// loadedTurnStart is a turn_start with payload as the loader hands it
// over (indexed when the payload allows), and whether it arrived.
func loadedTurnStart(t testing.TB, payload string) (*recording.Event, bool) {
	t.Helper()
	line := `{"type":"` + recording.TypeTurnStart + `","payload":` + payload + `,"meta":{"runId":"r1","runtimeStageId":"s#1"}}` + "\n"
	var got *recording.Event
	_, err := recording.LoadReader("t", strings.NewReader(line), recording.Options{}, func(r *recording.Run) error {
		if len(r.Events) > 0 && got == nil {
			got = &r.Events[0]
		}
		return nil
	})
	if err != nil || got == nil || got.Type != recording.TypeTurnStart {
		return nil, false
	}
	return got, true
}

// promptKeyOf is the key as json.Unmarshal reads the payload.
func promptKeyOf(payload []byte) string {
	var p struct {
		UserPrompt *string `json:"userPrompt"`
	}
	if json.Unmarshal(payload, &p) != nil || p.UserPrompt == nil || strings.TrimSpace(*p.UserPrompt) == "" || replay.IsPlaceholder(*p.UserPrompt) {
		return ""
	}
	sum := sha256.Sum256([]byte(*p.UserPrompt))
	return "sha256:" + hex.EncodeToString(sum[:16])
}

// TestPromptKeyReadsAsUnmarshal: the key read from the loader's index of
// a turn_start's payload is the key json.Unmarshal gives, for payloads with
// and without an index.
func TestPromptKeyReadsAsUnmarshal(t *testing.T) {
	for _, tc := range []struct {
		name    string
		payload string
		indexed bool // the loader indexes it, so the fast read is the one tested
		key     bool // a key comes out
	}{
		{"plain", `{"userPrompt":"Audit the edge hosts"}`, true, true},
		{"escapes", `{"userPrompt":"a\"b\\c\u00e9\ud83d\ude00\n"}`, true, true},
		{"lone surrogate", `{"userPrompt":"x\ud800y"}`, true, true},
		{"invalid UTF-8", "{\"userPrompt\":\"a\xffb\"}", true, true},
		{"empty", `{"userPrompt":""}`, true, false},
		{"blank", `{"userPrompt":" \n"}`, true, false},
		{"redacted", `{"userPrompt":"[REDACTED]"}`, true, false},
		{"redacted, bare", `{"userPrompt":"REDACTED"}`, true, false},
		{"other members", `{"turn":1,"userPrompt":"p","extra":{"userPrompt":"no"}}`, true, true},
		{"null", `{"userPrompt":null}`, true, false},
		{"absent", `{"turn":1}`, true, false},
		{"number", `{"userPrompt":12}`, true, false},
		{"object", `{"userPrompt":{"text":"p"}}`, true, false},
		{"repeated, last wins", `{"userPrompt":"first","userPrompt":"second"}`, false, true},
		{"folded key", `{"UserPrompt":"p"}`, false, true},
		{"both spellings", `{"userPrompt":"a","USERPROMPT":"b"}`, false, true},
		{"not an object", `["userPrompt"]`, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, ok := loadedTurnStart(t, tc.payload)
			if !ok {
				t.Fatalf("the loader did not hand the event over")
			}
			if got := ev.PayloadValidated(); got != tc.indexed {
				t.Fatalf("indexed %v, want %v", got, tc.indexed)
			}
			want := promptKeyOf([]byte(tc.payload))
			if (want != "") != tc.key {
				t.Fatalf("json.Unmarshal gives key %q, the case expects one: %v", want, tc.key)
			}
			got := PromptKey(&recording.Run{Events: []recording.Event{*ev}})
			if got != want {
				t.Errorf("PromptKey = %q, json.Unmarshal gives %q", got, want)
			}
		})
	}
}

// FuzzPromptKey holds the key read through the loader's index to the key
// json.Unmarshal gives for the same payload.
func FuzzPromptKey(f *testing.F) {
	for _, s := range []string{`{"userPrompt":"p"}`, `{"userPrompt":"a\u0041\ud800"}`, `{"userPrompt":null}`, `{"UserPrompt":"x","userPrompt":"y"}`, `{"userPrompt":[1]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, payload string) {
		if strings.ContainsAny(payload, "\n\r") {
			return // one line each
		}
		ev, ok := loadedTurnStart(t, payload)
		if !ok {
			return
		}
		want := promptKeyOf(ev.Payload)
		if got := PromptKey(&recording.Run{Events: []recording.Event{*ev}}); got != want {
			t.Errorf("payload %q: PromptKey = %q, json.Unmarshal gives %q", ev.Payload, got, want)
		}
	})
}
