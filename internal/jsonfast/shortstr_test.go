package jsonfast

import (
	"bytes"
	"testing"
)

// plainASCIIBytes is plainASCII byte by byte, as it reads.
func plainASCIIBytes(body []byte) bool {
	for _, c := range body {
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// TestPlainASCIIEveryByte puts every byte value at every place of bodies
// up to two words and a tail long, among plain letters.
func TestPlainASCIIEveryByte(t *testing.T) {
	for n := 1; n <= 19; n++ {
		for at := range n {
			for c := range 256 {
				body := bytes.Repeat([]byte("a"), n)
				body[at] = byte(c)
				if got, want := plainASCII(body), plainASCIIBytes(body); got != want {
					t.Fatalf("plainASCII(%q) = %v, want %v", body, got, want)
				}
			}
		}
	}
}

func FuzzPlainASCII(f *testing.F) {
	f.Add([]byte("run-1796025706261-1-c0"))
	f.Add([]byte("a\"b\\c\x7f\x1f\x80"))
	f.Fuzz(func(t *testing.T, body []byte) {
		if got, want := plainASCII(body), plainASCIIBytes(body); got != want {
			t.Fatalf("plainASCII(%q) = %v, want %v", body, got, want)
		}
		raw := append(append([]byte{'"'}, body...), '"')
		for range 2 {
			s, err := ShortString(raw)
			w, werr := String(raw)
			if (err == nil) != (werr == nil) || s != w {
				t.Fatalf("ShortString(%q) = %q, %v; String = %q, %v", raw, s, err, w, werr)
			}
		}
	})
}
