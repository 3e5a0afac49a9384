package recording

import (
	"strings"
	"testing"
)

// TestSyntaxErrorQuotesWholeCharacter: a line that is not JSON because of
// a character outside ASCII names that character whole, with its code
// point, or the byte in hex when it starts no valid UTF-8; never the first
// byte read as a Latin-1 letter.
func TestSyntaxErrorQuotesWholeCharacter(t *testing.T) {
	const head = `{"type":"agentfootprint.stream.tool_start",`
	tests := []struct {
		name, line, want string
	}{
		{"no-break space", head + "\u00a0\"payload\":{}}", `invalid character '\u00a0' (U+00A0) looking for beginning of object key string, at byte 44`},
		{"a printable letter", head + "é\"payload\":{}}", `invalid character 'é' (U+00E9) looking for beginning of object key string`},
		{"a bidirectional override", head + "\u202e\"payload\":{}}", `invalid character '\u202e' (U+202E) looking for beginning of object key string`},
		{"not UTF-8", head + "\xff\"payload\":{}}", `invalid byte 0xff (not UTF-8) looking for beginning of object key string`},
		{"after the value", `{"type":"x"}` + "\u00a0", `invalid character '\u00a0' (U+00A0) after top-level value`},
		{"ASCII as before", `{"type" 1}`, `invalid character '1' after object key`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, legacy := range []bool{false, true} {
				d := eventDecoder{legacy: legacy}
				var r decodedEvent
				d.decode([]byte(tt.line), &r)
				if r.err == nil || !strings.Contains(r.err.Error(), tt.want) {
					t.Errorf("legacy %v: error %v, want %q", legacy, r.err, tt.want)
				}
			}
		})
	}
}
