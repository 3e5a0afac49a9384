package recording

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
)

// EnvelopeFormat is the one envelope format string this build reads.
const EnvelopeFormat = "agentfootprint.recording.v1"

// ArtifactKindRecording is the meta.kind of a recording stored as an
// artifact.
const ArtifactKindRecording = "recording/run"

// eventTypePrefix starts every agentfootprint event type.
const eventTypePrefix = "agentfootprint."

// topKeys is what the sniffer learned from the first JSON object of the
// input, as far as the sniff window reaches.
type topKeys struct {
	keys       map[string]bool
	order      []string
	formatKind string // "", "string", "number" or another JSON kind
	formatStr  string
	formatNum  float64
	typeStr    string
	typeString bool
	metaKind   string
	metaSeen   bool
	complete   bool  // the object closed inside the window
	err        error // a syntax error inside the window
}

// scanTopKeys reads the keys of the object at the start of b, skipping
// their values, until the object ends, b ends or the JSON breaks.
func scanTopKeys(b []byte) topKeys {
	tk := topKeys{keys: map[string]bool{}}
	s := newSliceScanner(b, defaultMaxNesting)
	fail := func(err error) topKeys {
		if s.pos < s.end {
			tk.err = err
		}
		return tk
	}
	if err := s.expect('{', "an object"); err != nil {
		return fail(err)
	}
	if c, ok := s.skipSpace(); ok && c == '}' {
		tk.complete = true
		return tk
	}
	for {
		k, err := s.readKey(256)
		if err != nil {
			return fail(err)
		}
		if !tk.keys[k] {
			tk.order = append(tk.order, k)
		}
		tk.keys[k] = true
		c, _ := s.skipSpace()
		switch {
		case k == "format" && c == '"':
			tk.formatKind = "string"
			tk.formatStr, err = s.readString(4096)
		case k == "format" && (c == '-' || '0' <= c && c <= '9'):
			var raw []byte
			raw, err = s.captureValue(0)
			tk.formatKind = "number"
			tk.formatNum, _ = strconv.ParseFloat(string(raw), 64)
		case k == "format":
			var raw []byte
			raw, err = s.captureValue(0)
			tk.formatKind = jsonKind(raw)
		case k == "type" && c == '"':
			tk.typeString = true
			tk.typeStr, err = s.readString(256)
		case k == "meta" && c == '{':
			var raw []byte
			raw, err = s.captureValue(0)
			if err == nil {
				var m struct {
					Kind string `json:"kind"`
				}
				tk.metaSeen = true
				if json.Unmarshal(raw, &m) == nil {
					tk.metaKind = m.Kind
				}
			}
		default:
			err = s.skipValue()
		}
		if err != nil {
			return fail(err)
		}
		c, err = s.next("an object")
		if err != nil {
			return fail(err)
		}
		if c == '}' {
			tk.complete = true
			return tk
		}
		if c != ',' {
			s.pos--
			return fail(s.syntaxErr("expected , or } after an object member, found %s", quoteByte(c)))
		}
	}
}

// sniffFormat tells the format of an input from its first bytes (up to
// sniffWindow of them), by content only, in this order:
//
//  1. an object with a string "format": the envelope, if the string is
//     agentfootprint.recording.v1; a packed recording, if it is
//     agentfootprint.recording.packed.v1; any other string is refused by
//     name;
//  2. an object with a numeric "format": an artifact, if its meta.kind is
//     recording/run; a format above 1 is refused;
//  3. an object with a "snapshot", "events", "structure" or "recording"
//     key: a recording;
//  4. otherwise lines of event objects: NDJSON.
//
// The sniffer looks only at the first object's keys, which the sniff window
// holds whatever the document's size (agentfootprint writes format, meta and
// type first), plus, when the first line is not an event, whether any other
// line in the window is one.
func sniffFormat(window []byte, atEOF bool) (Format, error) {
	if len(window) == 0 {
		return FormatEmpty, nil
	}
	i := jsonfast.SkipSpace(window, 0)
	if i == len(window) {
		// Only whitespace: an NDJSON stream of blank lines.
		return FormatNDJSON, nil
	}
	if window[i] == '{' {
		tk := scanTopKeys(window[i:])
		switch {
		case tk.formatKind == "string" && isPackedFamily(tk.formatStr):
			if err := checkPackedFormat(tk.formatStr); err != nil {
				return "", err
			}
			return formatPacked, nil
		case tk.formatKind == "string":
			if tk.formatStr != EnvelopeFormat {
				return "", fmt.Errorf("unknown envelope format %s — this build reads %s only", quoteName(tk.formatStr), EnvelopeFormat)
			}
			return FormatEnvelope, nil
		case tk.formatKind == "number":
			if err := checkArtifactFormat(tk.formatNum); err != nil {
				return "", err
			}
			if tk.metaSeen && tk.metaKind != ArtifactKindRecording {
				return "", fmt.Errorf("%w: an artifact of kind %s (a recording artifact has kind %s)", ErrNotRecording, quoteName(tk.metaKind), ArtifactKindRecording)
			}
			if tk.complete && !tk.metaSeen {
				return "", fmt.Errorf("%w: a numeric format but no meta.kind", ErrNotRecording)
			}
			return FormatArtifact, nil
		case tk.formatKind != "":
			return "", fmt.Errorf("%w: its format is a JSON %s", ErrNotRecording, tk.formatKind)
		case tk.keys["snapshot"] || tk.keys["events"] || tk.keys["structure"] || tk.keys["recording"]:
			return FormatRecording, nil
		case tk.typeString && strings.HasPrefix(tk.typeStr, eventTypePrefix):
			return FormatNDJSON, nil
		case !tk.complete && tk.err == nil && onlyEventKeys(tk.order):
			// The first object is bigger than the window and shows only
			// event keys so far: an event stream with a huge first line.
			return FormatNDJSON, nil
		}
		if windowHasEventLine(window, atEOF) {
			return FormatNDJSON, nil
		}
		switch {
		case tk.typeString:
			return "", fmt.Errorf("%w: JSON objects whose type %s is not an agentfootprint event type", ErrNotRecording, quoteName(tk.typeStr))
		case tk.err != nil || !tk.complete && atEOF:
			return "", fmt.Errorf("%w: it starts like JSON but is not (%s)", ErrNotRecording, describeStart(window[i:]))
		}
		return "", fmt.Errorf("%w: the first JSON object has none of the keys a recording or an event has (it has %s)", ErrNotRecording, listKeys(tk.order))
	}
	if windowHasEventLine(window, atEOF) {
		return FormatNDJSON, nil
	}
	return "", fmt.Errorf("%w: %s", ErrNotRecording, describeStart(window[i:]))
}

func checkArtifactFormat(f float64) error {
	switch {
	case f == 1:
		return nil
	case f > 1:
		return fmt.Errorf("artifact format %s is newer than this build reads (1)", strconv.FormatFloat(f, 'g', -1, 64))
	}
	return fmt.Errorf("%w: artifact format %s is not a known format", ErrNotRecording, strconv.FormatFloat(f, 'g', -1, 64))
}

func onlyEventKeys(keys []string) bool {
	for _, k := range keys {
		if k != "type" && k != "payload" && k != "meta" {
			return false
		}
	}
	return true
}

// windowHasEventLine reports whether some complete line of the window is an
// agentfootprint event, so a stream whose first line is damaged is still
// read as a stream (and the damage counted).
func windowHasEventLine(window []byte, atEOF bool) bool {
	rest := window
	for n := 0; n < 10000 && len(rest) > 0; n++ {
		j := bytes.IndexByte(rest, '\n')
		var line []byte
		if j < 0 {
			if !atEOF {
				return false
			}
			line, rest = rest, nil
		} else {
			line, rest = rest[:j], rest[j+1:]
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var notes decodeNotes
		if ev, err := decodeEvent(line, &notes); err == nil && strings.HasPrefix(ev.Type, eventTypePrefix) {
			return true
		}
	}
	return false
}

// describeStart says what an unreadable input starts with, safely.
func describeStart(b []byte) string {
	if len(b) > 32 {
		b = b[:32]
	}
	text := utf8.Valid(b)
	for _, c := range b {
		if c < 0x20 && !jsonfast.IsSpace(c) || c == 0x7f {
			text = false
			break
		}
	}
	if text {
		return "it starts with " + snippet(b)
	}
	var sb strings.Builder
	for i, c := range b {
		if i == 8 {
			sb.WriteString(" …")
			break
		}
		if i > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "%02x", c)
	}
	return "binary data (first bytes " + sb.String() + ")"
}

func listKeys(keys []string) string {
	if len(keys) == 0 {
		return "no keys"
	}
	var q []string
	for i, k := range keys {
		if i == 8 {
			q = append(q, "…")
			break
		}
		q = append(q, quoteName(k))
	}
	return strings.Join(q, ", ")
}
