package recording

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
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
// input, as far as it read.
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
	complete   bool  // the object closed before the reading stopped
	err        error // a syntax error (or a read failure) before it did
}

// scanTopKeys reads the keys of the object at the start of b, skipping
// their values, until the object ends, b ends or the JSON breaks.
func scanTopKeys(b []byte) topKeys {
	return readTopKeys(newSliceScanner(b, defaultMaxNesting), 0, nil)
}

// readTopKeys reads the keys of the object s is at, skipping their values,
// until the object ends, the input ends, the JSON breaks or, after a
// member, stop says enough is known. limit bounds the values it keeps
// (0: none, for a scanner over a window, which bounds them itself).
func readTopKeys(s *scanner, limit int64, stop func(*topKeys) bool) topKeys {
	tk := topKeys{keys: map[string]bool{}}
	fail := func(err error) topKeys {
		// The end of a window is not an error; a read failure is.
		if s.pos < s.end || s.err != nil {
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
			raw, err = s.captureValue(limit)
			tk.formatKind = "number"
			tk.formatNum, _ = strconv.ParseFloat(string(raw), 64)
		case k == "format":
			var raw []byte
			raw, err = s.captureValue(limit)
			tk.formatKind = jsonKind(raw)
		case k == "type" && c == '"':
			tk.typeString = true
			tk.typeStr, err = s.readString(256)
		case k == "meta" && c == '{':
			var raw []byte
			raw, err = s.captureValue(limit)
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
		if stop != nil && stop(&tk) {
			return tk
		}
	}
}

// undecidedError is an input whose first object is larger than the sniff
// window, which ends before any key that tells the format.
type undecidedError struct {
	keys []string // the object's keys the window holds
	// guess is the format an input that cannot be read twice is read as
	// ("" for none): a recording, for an object with a recording's key,
	// whose document reader reads an envelope's format wherever it comes.
	guess Format
}

func (e *undecidedError) Error() string {
	return fmt.Sprintf("cannot tell what it is: its first JSON object goes on past the first %s, which hold none of the keys that tell a recording's format or an event's type (it has %s there), and a pipe or standard input cannot be read a second time to look further; pass the file itself, or write the format (an event's type) first",
		humanBytes(sniffWindow), listKeys(e.keys))
}

// decides reports whether what tk holds of an object that goes on decides
// its format (see decideFormat). An envelope and a packed recording both
// hold a recording (and a packed one its values), and only their format,
// which may come last, tells them apart.
func (tk *topKeys) decides() bool {
	switch {
	case tk.formatKind != "":
		return true
	case tk.keys["recording"] || tk.keys["values"]:
		return false
	case tk.keys["snapshot"] || tk.keys["events"] || tk.keys["structure"]:
		return true
	}
	return tk.typeString
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
// The sniffer looks only at the first object's keys (agentfootprint writes
// format, meta and type first), plus, when the first line is not an event,
// whether any other line in the window is one. Keys may come in any order,
// though: when the window ends inside the first object before a key that
// decides, the error is an *undecidedError, and sniffFurther looks past
// the window.
//
// Text in UTF-16 (which a Windows PowerShell redirection writes) is refused
// before any of this, saying whether, read as UTF-16, it starts like a
// recording.
func sniffFormat(window []byte, atEOF bool) (Format, error) {
	if t, ok := utf16Order(window); ok {
		return "", t.refusal(window, atEOF)
	}
	return sniffUTF8(window, atEOF)
}

// sniffUTF8 is sniffFormat for text that is not UTF-16.
func sniffUTF8(window []byte, atEOF bool) (Format, error) {
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
		if !tk.complete && tk.err == nil && !atEOF && !tk.decides() {
			ue := &undecidedError{keys: tk.order}
			if tk.keys["recording"] && !tk.keys["values"] {
				ue.guess = FormatRecording
			}
			return "", ue
		}
		return decideFormat(tk, window[i:], atEOF)
	}
	if windowHasEventLine(window, atEOF) {
		return FormatNDJSON, nil
	}
	return "", fmt.Errorf("%w: %s", ErrNotRecording, describeStart(window[i:]))
}

// decideFormat tells the format from the first object's keys. start is
// the input's start from that object on, as far as the window holds it;
// atEOF says that the object's reading went as far as the input does.
func decideFormat(tk topKeys, start []byte, atEOF bool) (Format, error) {
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
		// The first object is cut off and shows only event keys: a
		// stream whose first line is damaged, counted as such.
		return FormatNDJSON, nil
	}
	if windowHasEventLine(start, atEOF) {
		return FormatNDJSON, nil
	}
	switch {
	case tk.typeString:
		return "", fmt.Errorf("%w: JSON objects whose type %s is not an agentfootprint event type", ErrNotRecording, quoteName(tk.typeStr))
	case tk.err != nil || !tk.complete && atEOF:
		return "", fmt.Errorf("%w: it starts like JSON but is not (%s)", ErrNotRecording, describeStart(start))
	}
	return "", fmt.Errorf("%w: the first JSON object has none of the keys a recording or an event has (it has %s)", ErrNotRecording, listKeys(tk.order))
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

// utf16Text is how a window of UTF-16 text is written.
type utf16Text struct {
	bigEndian, bom bool
}

// utf16Order tells UTF-16 text by its byte-order mark, or, without one, by
// a zero byte beside each of the first two ASCII characters, the first of
// them one a JSON text starts with; ok is false for anything else (a UTF-32
// mark included).
func utf16Order(b []byte) (t utf16Text, ok bool) {
	jsonStart := func(c byte) bool { return c == '{' || c == '[' || jsonfast.IsSpace(c) }
	ascii := func(c byte) bool { return c != 0 && c < utf8.RuneSelf }
	switch {
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE:
		return utf16Text{bom: true}, len(b) < 4 || b[2] != 0 || b[3] != 0
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		return utf16Text{bigEndian: true, bom: true}, true
	case len(b) >= 4 && jsonStart(b[0]) && b[1] == 0 && ascii(b[2]) && b[3] == 0:
		return utf16Text{}, true
	case len(b) >= 4 && b[0] == 0 && jsonStart(b[1]) && b[2] == 0 && ascii(b[3]):
		return utf16Text{bigEndian: true}, true
	}
	return utf16Text{}, false
}

// decode is the window's text in UTF-8, without the byte-order mark; a
// surrogate pair the window's end cuts in two is left out.
func (t utf16Text) decode(window []byte, atEOF bool) []byte {
	b := window
	if t.bom {
		b = b[2:]
	}
	units := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		if t.bigEndian {
			units = append(units, uint16(b[i])<<8|uint16(b[i+1]))
		} else {
			units = append(units, uint16(b[i])|uint16(b[i+1])<<8)
		}
	}
	if n := len(units); n > 0 && !atEOF && utf16.IsSurrogate(rune(units[n-1])) {
		units = units[:n-1]
	}
	return []byte(string(utf16.Decode(units)))
}

// refusal refuses a window of UTF-16 text: as not a recording unless, read
// as UTF-16, it starts like one.
func (t utf16Text) refusal(window []byte, atEOF bool) error {
	what, from := "UTF-16 (little-endian) text", "UTF-16LE"
	if t.bigEndian {
		what, from = "UTF-16 (big-endian) text", "UTF-16BE"
	}
	if t.bom {
		// iconv reads the order from the mark.
		what, from = what+" with a byte-order mark", "UTF-16"
	}
	text := t.decode(window, atEOF)
	if len(text) == 0 {
		return fmt.Errorf("%w: %s, and nothing after the mark", ErrNotRecording, what)
	}
	// Blank text sniffs as an NDJSON stream without events: no recording.
	_, err := sniffUTF8(text, atEOF)
	if _, undecided := errors.AsType[*undecidedError](err); (err == nil || undecided) && len(bytes.TrimSpace(text)) > 0 {
		return fmt.Errorf("a recording written as %s; agentfootprint writes UTF-8: convert it first, e.g. iconv -f %s -t UTF-8", what, from)
	}
	if !startsAsText(text) {
		// Bytes that only look like UTF-16 at their start.
		return fmt.Errorf("%w: %s", ErrNotRecording, describeStart(window))
	}
	return fmt.Errorf("%w: %s, %s", ErrNotRecording, what, describeStart(text))
}

// describedBytes is how much of an unreadable input's start describeStart
// looks at.
const describedBytes = 32

// startsAsText reports whether what describeStart looks at of b is text
// without control characters but white space, a character its end cuts
// in two not counted against it.
func startsAsText(b []byte) bool {
	b = wholeRunes(b[:min(len(b), describedBytes)])
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < 0x20 && !jsonfast.IsSpace(c) || c == 0x7f {
			return false
		}
	}
	return true
}

// describeStart says what an unreadable input starts with, safely.
func describeStart(b []byte) string {
	b = b[:min(len(b), describedBytes)]
	if startsAsText(b) {
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

// sniffFurther decides the format of an input whose sniff window ends
// inside its first object before a key that tells it (ue). A second reading
// of the input from its start skips over the object's members, validating
// them and keeping none but the few the decision reads, until one decides
// or the object ends: memory stays bounded whatever the members' size, and
// the first reading is still at the start, so nothing read has to be
// replayed. Only a regular file can be read twice; for any other input ue
// stands.
func (s *source) sniffFurther(ue *undecidedError, opts Options) (Format, error) {
	again, err := s.again(opts)
	if err != nil {
		return "", err
	}
	if again == nil {
		if ue.guess != "" {
			return ue.guess, nil
		}
		return "", ue
	}
	defer again.close()
	sc := newScanner(again.br, opts.MaxNesting)
	sc.skipSpace()
	tk := readTopKeys(sc, smallValueLimit, (*topKeys).decides)
	if _, failed := errors.AsType[*InputError](tk.err); failed {
		// The input itself fails (corrupt compressed data, a bomb), as
		// the first reading will too.
		return "", tk.err
	}
	if !tk.decides() {
		switch {
		case onlyEventKeys(tk.order):
			// An object of event keys and no type, complete, cut off or
			// broken: a stream whose first line is no event, counted as
			// such.
			return FormatNDJSON, nil
		case tk.err != nil:
			// The object breaks before anything tells what it is: the
			// document reader states where and how.
			return FormatRecording, nil
		case !tk.complete:
			return "", fmt.Errorf("%w: it starts like JSON but is not (the input ends inside its first object, which has %s)", ErrNotRecording, listKeys(tk.order))
		}
	}
	// Lines inside the object are no stream's lines: no window is looked
	// at for one.
	return decideFormat(tk, nil, true)
}
