package recording

import (
	"bytes"
	"compress/gzip"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestSmallCompressedInputCutShort: a compressed stream that breaks
// before the sniffer's window fills is read as far as it decompressed, as
// a larger one is: the runs read whole before the break are handed over,
// and the error says where it broke.
func TestSmallCompressedInputCutShort(t *testing.T) {
	plain, err := os.ReadFile("../testdata/recordings/demo/triage.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// Both demo runs, then part of a third line, all under 64 KiB.
	plain = append(plain, []byte(`{"type":"agentfootprint.agent.turn_start","payload":{},"meta":{"runId":"run-3"}}`+"\n")...)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	// zstd decodes a block whole or not at all: cut into its checksum.
	enc, _ := zstd.NewWriter(nil)
	zs := enc.EncodeAll(plain, nil)
	for name, data := range map[string][]byte{"gzip": gz.Bytes()[:gz.Len()-12], "zstd": zs[:len(zs)-2]} {
		t.Run(name, func(t *testing.T) {
			res, err := loadBytes(t, "x.jsonl."+name, data, Options{Workers: 1})
			if err == nil || !strings.Contains(err.Error(), "decompressed byte offset") {
				t.Fatalf("err = %v, want the break located", err)
			}
			whole := 0
			for _, r := range res.Runs {
				if n := len(r.Events); (r.ID == "run-1796025752985-1" && n == 50) || (r.ID == "run-1796025811402-2" && n == 36) {
					whole++
				}
			}
			if whole != 2 {
				t.Errorf("runs handed over %+v, want both demo runs read whole", res.Runs)
			}
		})
	}
}
