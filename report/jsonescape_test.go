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

// escapeControlsWhole is the escaping controlEscaper does, a byte at a
// time over the whole text.
func escapeControlsWhole(p []byte) []byte {
	var out []byte
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == 0x7f:
			out = append(out, `\u007f`...)
		case c == 0xc2 && i+1 < len(p) && p[i+1] >= 0x80 && p[i+1] <= 0x9f:
			out = append(out, '\\', 'u', '0', '0', hexDigits[p[i+1]>>4], hexDigits[p[i+1]&0xf])
			i++
		default:
			out = append(out, c)
		}
	}
	return out
}

// FuzzControlEscaper holds the escaper, its text split into three writes
// anywhere, to the byte-at-a-time escaping of the whole text.
func FuzzControlEscaper(f *testing.F) {
	f.Add([]byte("csi \u009b31m del \x7f nel \u0085 é ¢ \u00a0"), uint16(5), uint16(9))
	f.Add([]byte("\xc2\xc2\x85\x7f\x7f\xc2"), uint16(1), uint16(2))
	f.Add([]byte("plain ASCII text with no control at all, longer than a word"), uint16(8), uint16(16))
	f.Fuzz(func(t *testing.T, data []byte, a, b uint16) {
		i, j := int(a)%(len(data)+1), int(b)%(len(data)+1)
		if i > j {
			i, j = j, i
		}
		var got bytes.Buffer
		e := &controlEscaper{w: &got}
		for _, part := range [][]byte{data[:i], data[i:j], data[j:]} {
			if n, err := e.Write(part); err != nil || n != len(part) {
				t.Fatalf("Write = %d, %v", n, err)
			}
		}
		if err := e.flush(); err != nil {
			t.Fatal(err)
		}
		if want := escapeControlsWhole(data); !bytes.Equal(got.Bytes(), want) {
			t.Errorf("split at %d, %d:\n got %q\nwant %q", i, j, got.Bytes(), want)
		}
	})
}
