package recording

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf16"
)

// asUTF16 writes text as UTF-16 in the given byte order, after a
// byte-order mark when bom is set.
func asUTF16(text string, bigEndian, bom bool) []byte {
	units := utf16.Encode([]rune(text))
	if bom {
		units = append([]uint16{0xFEFF}, units...)
	}
	out := make([]byte, 0, 2*len(units))
	for _, u := range units {
		if bigEndian {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

func TestUTF16Refused(t *testing.T) {
	events := string(readFixture(t, "ndjson-two-runs.jsonl"))
	cases := []struct {
		name string
		data []byte
		want string
		// notRecording is whether the error says the input is no
		// recording at all (a directory walk then skips it).
		notRecording bool
	}{
		{"events, little-endian", asUTF16(events, false, false),
			"x: a recording written as UTF-16 (little-endian) text; agentfootprint writes UTF-8: convert it first, e.g. iconv -f UTF-16LE -t UTF-8", false},
		{"events, big-endian", asUTF16(events, true, false),
			"x: a recording written as UTF-16 (big-endian) text; agentfootprint writes UTF-8: convert it first, e.g. iconv -f UTF-16BE -t UTF-8", false},
		{"events, little-endian with a mark", asUTF16(events, false, true),
			"x: a recording written as UTF-16 (little-endian) text with a byte-order mark; agentfootprint writes UTF-8: convert it first, e.g. iconv -f UTF-16 -t UTF-8", false},
		{"events, big-endian with a mark", asUTF16(events, true, true),
			"x: a recording written as UTF-16 (big-endian) text with a byte-order mark; agentfootprint writes UTF-8: convert it first, e.g. iconv -f UTF-16 -t UTF-8", false},
		{"a document", asUTF16(`{"format":"agentfootprint.recording.v1","events":[]}`, false, true),
			"a recording written as UTF-16 (little-endian) text with a byte-order mark", false},
		{"a note", asUTF16("hello, world\n", false, true),
			`x: not an agentfootprint recording: UTF-16 (little-endian) text with a byte-order mark, it starts with "hello, world\n"`, true},
		{"JSON of no recording", asUTF16(`{"name":"x"}`, false, false),
			"x: not an agentfootprint recording: UTF-16 (little-endian) text, it starts with", true},
		{"blank text", asUTF16("  \n\n", false, true),
			"x: not an agentfootprint recording: UTF-16 (little-endian) text with a byte-order mark, it starts with", true},
		{"a mark alone", []byte{0xFF, 0xFE}, "x: not an agentfootprint recording: UTF-16 (little-endian) text with a byte-order mark, and nothing after the mark", true},
		// A mark before what is no text in UTF-16 either: the bytes as
		// they are.
		{"a mark before control bytes", []byte{0xFF, 0xFE, 1, 0, 2, 0}, "x: not an agentfootprint recording: binary data (first bytes ff fe 01 00 02 00)", true},
		// Text whose 32nd byte falls inside a character is still text.
		{"UTF-8 text cut inside a character", []byte(strings.Repeat("日本語", 5) + "\n"), "x: not an agentfootprint recording: it starts with \"日本語日本語日本語日", true},
		// A UTF-32 mark starts like a UTF-16 one.
		{"UTF-32", []byte{0xFF, 0xFE, 0, 0, '{', 0, 0, 0}, "x: not an agentfootprint recording: binary data", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadBytes(t, "x", tc.data, Options{})
			if err == nil {
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
			if got := errors.Is(err, ErrNotRecording); got != tc.notRecording {
				t.Errorf("errors.Is(err, ErrNotRecording) = %v, want %v", got, tc.notRecording)
			}
			checkPrintable(t, "error", err.Error())
		})
	}
}
