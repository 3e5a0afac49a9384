package recording

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/internal/synth"
)

// TestSniffPastTheWindow checks that the top-level keys decide the format
// whatever their order and size: a first member larger than the sniff
// window, ahead of the key that tells the format, is looked past in a
// second reading of a file (plain or compressed), and reads as the same
// document written in the usual order; from a pipe, which cannot be read
// twice, it is said to be undecidable, never read as a stream.
func TestSniffPastTheWindow(t *testing.T) {
	plain := readFixture(t, "recording.json")
	// A structure member (which is skipped) makes the recording text
	// larger than the window.
	pad := `"structure":"` + strings.Repeat("x", sniffWindow+1000) + `",`
	padded := append([]byte("{"+pad), plain[1:]...)
	quoted, _ := json.Marshal(string(padded))
	packed, err := synth.Pack(plain)
	if err != nil {
		t.Fatal(err)
	}
	var parts map[string]json.RawMessage
	if err := json.Unmarshal(packed, &parts); err != nil {
		t.Fatal(err)
	}
	// A value nothing refers to makes the values larger than the window.
	values := string(parts["values"][:len(parts["values"])-1]) + `,"` + strings.Repeat("v", sniffWindow) + `"]`
	packedFirst := func(format string) []byte {
		return []byte(`{"values":` + values + `,"recording":` + string(parts["recording"]) + `,"format":"` + format + `"}`)
	}
	// A recording member the window ends in, ahead of the format.
	recordingFirst := []byte(`{"recording":{"structure":"` + strings.Repeat("r", sniffWindow) + `",` + string(parts["recording"][1:]) + `,"values":` + string(parts["values"]) + `,"format":"` + PackedFormat + `"}`)
	envelopeTail := `"format":"agentfootprint.recording.v1","run":{"complete":true,"droppedEvents":0},"privacy":{"mode":"full"}`
	envelopeFirst := []byte(`{"recording":` + string(padded) + `,` + envelopeTail + `}`)
	artifact := func(kind string) []byte {
		return []byte(`{"payload":{"shape":"text","value":` + string(quoted) + `},"meta":{"kind":"` + kind + `"},"format":1}`)
	}
	usual := map[Format][]byte{
		FormatArtifact:  []byte(`{"format":1,"meta":{"kind":"recording/run"},"payload":{"shape":"text","value":` + string(quoted) + `}}`),
		FormatRecording: packed,
		FormatEnvelope:  []byte(`{` + envelopeTail + `,"recording":` + string(padded) + `}`),
	}
	line := `{"type":"agentfootprint.agent.turn_start","payload":{"userPrompt":"hi"},"meta":{"runId":"r"}}` + "\n"
	hugeFirstLine := `{"payload":{"userPrompt":"` + strings.Repeat("p", sniffWindow) + `"},"meta":{"runId":"r"},"type":"agentfootprint.agent.turn_start"}` + "\n" + line

	cases := []struct {
		name   string
		data   []byte
		pipe   bool // read through LoadReader, as standard input is
		offset int  // junk in the file ahead of the input's start
		format Format
		events int64  // 0: as many as the usual order gives
		err    string // the error wanted, if any
	}{
		{name: "artifact, payload first", data: artifact("recording/run"), format: FormatArtifact},
		{name: "artifact, payload first, gzip", data: gzipBytes(t, artifact("recording/run")), format: FormatArtifact},
		{name: "artifact, payload first, zstd", data: zstdBytes(t, artifact("recording/run")), format: FormatArtifact},
		{name: "artifact, payload first, from an offset", data: artifact("recording/run"), offset: 7, format: FormatArtifact},
		{name: "artifact of another kind, payload first", data: artifact("report"), err: `not an agentfootprint recording: an artifact of kind "report"`},
		{name: "packed, values first", data: packedFirst(PackedFormat), format: FormatRecording},
		{name: "packed, recording first", data: recordingFirst, format: FormatRecording},
		{name: "envelope, recording first", data: envelopeFirst, format: FormatEnvelope},
		// Only the format tells an envelope's recording from a packed
		// one's; from a pipe, the document reader reads the recording,
		// and an envelope's format wherever it comes.
		{name: "envelope, recording first, from a pipe", data: envelopeFirst, pipe: true, format: FormatEnvelope},
		{name: "packed v2, values first", data: packedFirst("agentfootprint.recording.packed.v2"), err: `unknown packed recording format "agentfootprint.recording.packed.v2"`},
		{name: "stream, first line's type last", data: []byte(hugeFirstLine), format: FormatNDJSON, events: 2},
		{name: "artifact, payload first, from a pipe", data: artifact("recording/run"), pipe: true, err: `cannot tell what it is: its first JSON object goes on past the first 64 KiB, which hold none of the keys that tell a recording's format or an event's type (it has "payload" there)`},
		{name: "packed, values first, from a pipe", data: packedFirst(PackedFormat), pipe: true, err: `(it has "values" there)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var st *Stats
			var err error
			events := int64(0)
			count := func(r *Run) error { events += int64(len(r.Events)); return nil }
			if c.pipe {
				st, err = LoadReader("-", io.MultiReader(bytes.NewReader(c.data)), Options{}, count)
			} else {
				path := filepath.Join(t.TempDir(), "in.json")
				if err := os.WriteFile(path, append(bytes.Repeat([]byte("#"), c.offset), c.data...), 0o644); err != nil {
					t.Fatal(err)
				}
				if c.offset == 0 {
					st, err = Load(path, Options{}, count)
				} else {
					f, ferr := os.Open(path)
					if ferr != nil {
						t.Fatal(ferr)
					}
					defer f.Close()
					f.Seek(int64(c.offset), io.SeekStart)
					st, err = LoadReader(path, f, Options{}, count)
				}
			}
			if c.err != "" {
				var ie *InputError
				if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &ie) {
					t.Fatalf("error %v, want one saying %q", err, c.err)
				}
				if st.Format == FormatNDJSON || st.Lines != 0 {
					t.Errorf("read as %q, %d lines", st.Format, st.Lines)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := &Stats{Events: c.events}
			if c.events == 0 {
				var werr error
				want, werr = LoadReader("usual.json", bytes.NewReader(usual[c.format]), Options{}, func(*Run) error { return nil })
				if werr != nil {
					t.Fatal(werr)
				}
			}
			if st.Format != c.format || st.Events != want.Events || events != want.Events || st.Malformed != 0 || st.TruncatedTail ||
				len(st.Problems) != len(want.Problems) || st.Packed != want.Packed {
				t.Errorf("read as %q with %d events (%d in runs), %d malformed, packed %v, problems %v; want %q with %d events, packed %v, problems %v",
					st.Format, st.Events, events, st.Malformed, st.Packed, st.Problems, c.format, want.Events, want.Packed, want.Problems)
			}
		})
	}
}
