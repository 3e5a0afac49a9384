package recording

import (
	"bytes"
	"io"
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
