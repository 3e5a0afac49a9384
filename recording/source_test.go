package recording

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// sizeRecorder records the largest read asked of it.
type sizeRecorder struct {
	r       io.Reader
	largest int
}

func (s *sizeRecorder) Read(p []byte) (int, error) {
	s.largest = max(s.largest, len(p))
	return s.r.Read(p)
}

// The input is read in bounded calls whatever the caller asks for, and
// every byte is still counted once.
func TestCountReaderBoundsEachRead(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 3*maxReadCall/16+5)
	for _, ask := range []int{1, 4 << 10, maxReadCall, maxReadCall + 1, 4 * maxReadCall} {
		rec := &sizeRecorder{r: bytes.NewReader(data)}
		c := &countReader{r: rec}
		var got bytes.Buffer
		buf := make([]byte, ask)
		for {
			n, err := c.Read(buf)
			got.Write(buf[:n])
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("ask %d: %v", ask, err)
			}
		}
		if !bytes.Equal(got.Bytes(), data) || c.n != int64(len(data)) {
			t.Errorf("ask %d: read %d bytes (counted %d), want %d", ask, got.Len(), c.n, len(data))
		}
		if want := min(ask, maxReadCall); rec.largest != want {
			t.Errorf("ask %d: largest read %d, want %d", ask, rec.largest, want)
		}
	}
}

// TestGzipMembers: a gzip file is read member by member. Data after a
// complete member that is no member is refused as such, naming where the
// member ends, not taken for a member cut off; a member that is cut off
// still reads as truncated.
func TestGzipMembers(t *testing.T) {
	two := readFixture(t, "ndjson-two-runs.jsonl")
	g := gzipBytes(t, two)
	big := gzipBytes(t, bytes.Repeat(two, 40)) // past the sniff window
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	tests := []struct {
		name       string
		data       []byte
		wantEvents int64
		wantErr    string
		wantOffset int64
	}{
		{"one member", g, 12, "", 0},
		{"two members", cat(g, g), 24, "", 0},
		{"text after", cat(g, []byte("GARBAGE")), -1, fmt.Sprintf(`a complete gzip member ends at compressed byte offset %d, and the data after it is not another gzip member: it starts with "GARBAGE"`, len(g)), int64(len(g))},
		{"text after, past the sniff", cat(big, []byte("GARBAGE")), 480, fmt.Sprintf(`a complete gzip member ends at compressed byte offset %d, and the data after it is not another gzip member: it starts with "GARBAGE"`, len(big)), int64(len(big))},
		{"zeros after", cat(g, make([]byte, 100)), -1, "the data after it is not another gzip member: binary data (first bytes 00 00 00 00 00 00 00 00 …)", int64(len(g))},
		{"a member cut off after", cat(g, g[:len(g)/2]), -1, "the gzip stream ends early (truncated)", -1},
		{"a lone magic byte after", cat(g, []byte{0x1f}), -1, "the gzip stream ends early (truncated)", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := loadBytes(t, "in.jsonl.gz", tt.data, Options{})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			var ie *InputError
			if tt.wantOffset >= 0 && tt.wantErr != "" && (!errors.As(err, &ie) || ie.Offset != tt.wantOffset) {
				t.Errorf("err %#v, want offset %d", err, tt.wantOffset)
			}
			if tt.wantEvents >= 0 && res.Stats.Events != tt.wantEvents {
				t.Errorf("%d events, want %d", res.Stats.Events, tt.wantEvents)
			}
		})
	}
}
