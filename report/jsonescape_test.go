package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestEncodeJSONEscapesControls: DEL and every C1 control leave as
// escapes, however the encoded text is split across writes, and the JSON
// still decodes to the same string.
func TestEncodeJSONEscapesControls(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"csi \u009b31m", `"csi \u009b31m"`},
		{"nel \u0085 osc \u009d pad \u0080", `"nel \u0085 osc \u009d pad \u0080"`},
		{"del \x7f", `"del \u007f"`},
		{"é ¢ \u00a0 \u202e", "\"é ¢ \u00a0 \u202e\""},
		{"esc \x1b<b>", `"esc \u001b<b>"`},
	}
	for _, tt := range tests {
		var whole bytes.Buffer
		if err := encodeJSON(&whole, tt.in); err != nil {
			t.Fatal(err)
		}
		if got := whole.String(); got != tt.want+"\n" {
			t.Errorf("encodeJSON(%q) = %s, want %s", tt.in, got, tt.want)
		}
		var back string
		if err := json.Unmarshal(whole.Bytes(), &back); err != nil || back != tt.in {
			t.Errorf("encodeJSON(%q) decodes to %q (%v)", tt.in, back, err)
		}
		// Every split of the raw encoding into two writes escapes alike.
		var rawBuf bytes.Buffer
		enc := json.NewEncoder(&rawBuf)
		enc.SetEscapeHTML(false)
		enc.Encode(tt.in)
		raw := bytes.TrimSuffix(rawBuf.Bytes(), []byte("\n"))
		for cut := 0; cut <= len(raw); cut++ {
			var split bytes.Buffer
			e := &controlEscaper{w: &split}
			e.Write(raw[:cut])
			e.Write(raw[cut:])
			if err := e.flush(); err != nil {
				t.Fatal(err)
			}
			if split.String() != tt.want {
				t.Errorf("cut at %d: %s, want %s", cut, split.String(), tt.want)
			}
		}
	}
}
