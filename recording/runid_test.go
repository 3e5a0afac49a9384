package recording

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestRunIdentityIsBytes: ids that differ only where the usual JSON
// decoding writes U+FFFD stay different runs, in NDJSON and in a document,
// on the fast decoder and on the standard one, and each such id is stated
// once.
func TestRunIdentityIsBytes(t *testing.T) {
	ev := func(id, extra string) string {
		return `{"type":"agentfootprint.agent.turn_start","payload":{"userPrompt":"q"},"meta":{"runId":"` + id + `"` + extra + `}}`
	}
	tests := []struct {
		name  string
		input string
		ids   []string
	}{
		{
			name:  "lone surrogates",
			input: ev(`run-\ud800-1`, "") + "\n" + ev(`run-\udbff-1`, "") + "\n" + ev(`run-\ud800-1`, "") + "\n",
			ids:   []string{"run-\xed\xa0\x80-1", "run-\xed\xaf\xbf-1"},
		},
		{
			name:  "lone surrogates on the standard decoder (a repeated key)",
			input: ev(`run-\ud800-1`, `,"runId":"run-\udc00-1"`) + "\n" + ev(`run-\udbff-1`, "") + "\n",
			ids:   []string{"run-\xed\xb0\x80-1", "run-\xed\xaf\xbf-1"},
		},
		{
			name:  "invalid UTF-8",
			input: ev("run-\xff-1", "") + "\n" + ev("run-\xfe-1", "") + "\n",
			ids:   []string{"run-\xff-1", "run-\xfe-1"},
		},
		{
			name:  "a surrogate pair and a real U+FFFD are text",
			input: ev(`run-\ud83d\ude00-1`, "") + "\n" + ev(`run-\ufffd-1`, "") + "\n" + ev("run-\xef\xbf\xbd-1", "") + "\n",
			ids:   []string{"run-😀-1", "run-\ufffd-1"},
		},
		{
			name:  "in a document",
			input: `{"events":[` + ev(`run-\ud800-1`, "") + "," + ev(`run-\udbff-1`, "") + `]}`,
			ids:   []string{"run-\xed\xa0\x80-1", "run-\xed\xaf\xbf-1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "runs.jsonl"
			if strings.HasPrefix(tt.input, `{"events"`) {
				name = "runs.json"
			}
			res, err := loadBytes(t, name, []byte(tt.input), Options{})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range res.Runs {
				ids = append(ids, r.ID)
			}
			if strings.Join(ids, "|") != strings.Join(tt.ids, "|") {
				t.Errorf("runs %q, want %q", ids, tt.ids)
			}
			stated := 0
			for _, p := range res.Stats.Problems {
				if strings.Contains(p.Message, "is not valid text") {
					stated++
				}
			}
			invalid := 0
			for _, id := range tt.ids {
				if !strings.Contains(id, "\ufffd") && !isText(id) {
					invalid++
				}
			}
			if stated != invalid {
				t.Errorf("%d run ids stated as invalid, want %d: %v", stated, invalid, res.Stats.Problems)
			}
		})
	}
}

func isText(s string) bool { return strings.ToValidUTF8(s, "?") == s }

// FuzzExactJSONString: the exact decoding never panics, agrees with
// encoding/json wherever that decoding replaced nothing, and tells apart
// strings that encoding/json merges only by writing U+FFFD.
func FuzzExactJSONString(f *testing.F) {
	for _, s := range []string{`"run-1"`, `"run-\ud800-1"`, `"\ud83d\ude00"`, `"\ud800\ud800"`, "\"\xff\"", `"\u00e9\n\"\\\/"`, `"\u12"`, `"\`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := exactJSONString(raw)
		var std string
		if json.Unmarshal(raw, &std) != nil {
			return
		}
		if !ok {
			t.Fatalf("exactJSONString refused %q, which encoding/json decodes", raw)
		}
		if !strings.ContainsRune(std, utf8.RuneError) && got != std {
			t.Fatalf("exactJSONString(%q) = %q, encoding/json %q", raw, got, std)
		}
	})
}
