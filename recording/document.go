package recording

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
)

// smallValueLimit bounds the small objects the walker decodes whole (run,
// privacy, producer, an artifact's meta).
const smallValueLimit = 1 << 20

// docWalker reads a recording document (recording, envelope or artifact)
// key by key with a scanner: events are decoded one at a time, the
// snapshot is skipped except for the facts a replay needs, and nothing the
// size of the document is ever held.
type docWalker struct {
	l     *loader
	src   *source
	outer *scanner // the file's scanner; an artifact's inner one has no useful lines

	formatKind   string // "string" or "number" once a format key is read
	sawRun       bool
	sawPrivacy   bool
	sawRecording bool
	sawEvents    bool
	sawSnapshot  bool
	sawMeta      bool
	sawPayload   bool
	artifactKind string
	envRunID     *string
	// blocks are the members of the envelope's run, privacy and producer
	// blocks read so far, by block, for a block stated again.
	blocks map[string]map[string]json.RawMessage

	parkedSeen map[string]bool

	// packedTop is set when the document itself is a packed recording;
	// innerAt names the text an inner scanner reads, for messages
	// ("payload.value", or a packed recording's expansion).
	packedTop bool
	innerAt   string
}

// innerError is a failure inside the recording text an artifact stores in
// payload.value, or inside the recording a packed one expands to; its
// offsets count bytes of that text, not of the file. in says which, as a
// message fragment ("in the recording text stored in payload.value, ").
type innerError struct {
	err error
	in  string
}

func (e *innerError) Error() string { return e.err.Error() }
func (e *innerError) Unwrap() error { return e.err }

func (l *loader) readDocument(src *source) error {
	w := &docWalker{l: l, src: src, packedTop: src.format == formatPacked, innerAt: "payload.value"}
	l.split.holdLast = true
	l.split.fold = l.opts.Fold
	// Under a filter the decoders hand payloads over in the buffers they
	// read (the scanner's, a batch's), and the splitter copies the ones
	// it keeps, as for a stream.
	l.split.filter = l.opts.DocumentPayloadFilter
	l.split.aliased = l.split.filter != nil
	l.dec.alias = l.split.aliased
	s := newScanner(src.br, l.opts.MaxNesting)
	switch {
	case l.spec != nil:
		s.spec, s.skip = l.spec, src.skip
	case l.lateSpec != nil:
		s.lend, s.skip, s.askEvery = l.lateSpec, src.skip, l.opts.spareBytes
	}
	w.outer = s
	err := w.top(s)
	if err == nil {
		err = atEnd(s, "the JSON document")
	}
	// A document read to its end has all its lines; one that stopped has
	// the lines up to where it stopped, which do not depend on how far the
	// reader had read ahead.
	switch {
	case l.stopLines >= 0:
		l.stats.Lines = l.stopLines
	case err != nil:
		l.stats.Lines = s.line()
		if s.lines > 0 {
			l.stopLine = l.stats.Lines
		}
	default:
		l.stats.Lines = src.documentLines()
	}
	if err == nil {
		// What the whole document says (an artifact with no meta.kind)
		// may refuse it only once it is read.
		err = w.finish()
	}
	if err != nil {
		return l.documentError(err, src)
	}
	return nil
}

// documentError turns a walker failure into an *InputError located in the
// file (or in the artifact's embedded recording text).
func (l *loader) documentError(err error, src *source) error {
	var ie *InputError
	var cb *callbackError
	if errors.As(err, &ie) || errors.As(err, &cb) {
		return err
	}
	inner := ""
	var in *innerError
	if errors.As(err, &in) {
		inner = in.in
		err = in.err
	}
	var se *syntaxError
	var de *depthError
	var ce *captureError
	switch {
	case errors.As(err, &se):
		line := se.Line
		if inner != "" {
			line = 0
		}
		return &InputError{Path: src.name, Line: line, Offset: se.Offset, Err: fmt.Errorf("malformed JSON %sat byte offset %d: %s", inner, se.Offset, se.Msg)}
	case errors.As(err, &de):
		line := de.Line
		if inner != "" {
			line = 0
		}
		return &InputError{Path: src.name, Line: line, Offset: de.Offset, Err: fmt.Errorf("%snesting deeper than %d levels at byte offset %d (limit set by --max-nesting); real recordings nest about ten levels per agent iteration, so this input is refused", inner, de.Limit, de.Offset)}
	case errors.As(err, &ce):
		// Every capture names its own value and limit (see capture); this
		// is only a fallback.
		return &InputError{Path: src.name, Err: fmt.Errorf("%sa value is longer than %s", inner, humanBytes(ce.Limit))}
	}
	return src.readError(err, src.out.n)
}

// object walks the members of an object whose '{' is next, calling member
// for each key; member must consume the value.
func object(s *scanner, member func(key string) error) error {
	if err := s.expect('{', "an object"); err != nil {
		return err
	}
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	if c, ok := s.skipSpace(); ok && c == '}' {
		s.pos++
		return nil
	}
	for {
		k, err := s.readKey(256)
		if err != nil {
			return err
		}
		if err := member(k); err != nil {
			return err
		}
		c, err := s.next("an object")
		if err != nil {
			return err
		}
		switch c {
		case '}':
			return nil
		case ',':
		default:
			s.pos--
			return s.syntaxErr("expected , or } after an object member, found %s", quoteByte(c))
		}
	}
}

// array walks the elements of an array whose '[' is next.
func array(s *scanner, element func(i int) error) error {
	if err := s.expect('[', "an array"); err != nil {
		return err
	}
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	if c, ok := s.skipSpace(); ok && c == ']' {
		s.pos++
		return nil
	}
	for i := 0; ; i++ {
		if err := element(i); err != nil {
			return err
		}
		c, err := s.next("an array")
		if err != nil {
			return err
		}
		switch c {
		case ']':
			return nil
		case ',':
		default:
			s.pos--
			return s.syntaxErr("expected , or ] after an array element, found %s", quoteByte(c))
		}
	}
}

// peekKind names the JSON kind of the next value without consuming it.
func peekKind(s *scanner) (byte, string) {
	c, ok := s.skipSpace()
	if !ok {
		return 0, "nothing"
	}
	switch c {
	case '{':
		return c, "object"
	case '[':
		return c, "array"
	case '"':
		return c, "string"
	case 't', 'f':
		return c, "boolean"
	case 'n':
		return c, "null"
	}
	return c, "number"
}

// top walks the document's outermost object. Keys may come in any order;
// the format is settled when the walk ends.
func (w *docWalker) top(s *scanner) error {
	if c, kind := peekKind(s); c != '{' {
		return fmt.Errorf("%w: the document is a JSON %s", ErrNotRecording, kind)
	}
	if w.packedTop {
		// The sniffer read the format; the members may come in any order,
		// and the values usually come after the recording that refers to
		// them, so both are held until the object ends.
		parts := &packedParts{sawFormat: true}
		if err := object(s, func(k string) error { return w.packedMember(s, k, parts, "") }); err != nil {
			return err
		}
		return w.expandPacked(parts, "")
	}
	return object(s, func(k string) error {
		switch k {
		case "format":
			return w.format(s)
		case "producer":
			return w.producer(s)
		case "run":
			return w.run(s)
		case "privacy":
			return w.privacy(s)
		case "recording":
			w.sawRecording = true
			return w.recording(s, true, "recording")
		case "meta":
			return w.artifactMeta(s)
		case "payload":
			return w.artifactPayload(s)
		}
		return w.recordingKey(s, k, true)
	})
}

// recording walks a Recording object ({snapshot, events, structure}), or
// a packed recording in its place.
func (w *docWalker) recording(s *scanner, lines bool, name string) error {
	if c, kind := peekKind(s); c != '{' {
		line, at := w.at(s)
		w.l.probs.add("not a recording", line, fmt.Sprintf("%s%s is a JSON %s, not a recording object; nothing read from it", at, name, kind))
		return s.skipValue()
	}
	return w.recordingObject(s, lines, name)
}

// recordingObject walks the members of a Recording object. A packed
// recording says so in its first member, its format (the one place the
// library writes it); from there its values and recording are held and
// expanded when the object ends. A packed format stated after members
// already read as plain content is refused: they were not what they
// seemed.
func (w *docWalker) recordingObject(s *scanner, lines bool, name string) error {
	var parts *packedParts
	first := true
	err := object(s, func(k string) error {
		isFirst := first
		first = false
		if parts != nil {
			return w.packedMember(s, k, parts, name)
		}
		if k == "format" {
			if c, _ := peekKind(s); c == '"' {
				v, err := s.readString(4096)
				if err != nil {
					return err
				}
				if !isPackedFamily(v) {
					return nil
				}
				if err := checkPackedFormat(v); err != nil {
					return &InputError{Path: w.src.name, Err: fmt.Errorf("%s.format: %w", name, err)}
				}
				if !isFirst {
					return w.packedLate(name, v)
				}
				parts = &packedParts{sawFormat: true}
				return nil
			}
		}
		return w.recordingKey(s, k, lines)
	})
	if err != nil || parts == nil {
		return err
	}
	return w.expandPacked(parts, name)
}

// packedLate refuses a packed format stated after members already read as
// a plain recording's: they were not what they seemed.
func (w *docWalker) packedLate(name, format string) error {
	return &InputError{Path: w.src.name, Err: fmt.Errorf("%s states the packed format %s after members already read as a plain recording; a packed recording states its format first", name, quoteName(format))}
}

// recordingKey handles one member of a Recording; other keys are skipped.
func (w *docWalker) recordingKey(s *scanner, k string, lines bool) error {
	switch k {
	case "events":
		return w.events(s, lines)
	case "snapshot":
		return w.snapshot(s)
	}
	return s.skipValue()
}

func (w *docWalker) format(s *scanner) error {
	c, kind := peekKind(s)
	if w.formatKind != "" && (c == '"') != (w.formatKind == "string") {
		// One format would make the document an envelope, the other an
		// artifact: which it is is not known.
		return &InputError{Path: w.src.name, Err: fmt.Errorf("format is stated twice, as a JSON %s and as a JSON %s", w.formatKind, kind)}
	}
	switch {
	case c == '"':
		v, err := s.readString(4096)
		if err != nil {
			return err
		}
		w.formatKind = "string"
		if isPackedFamily(v) {
			// Past the sniffer's window: members before it were read as a
			// plain recording's.
			if err := checkPackedFormat(v); err != nil {
				return &InputError{Path: w.src.name, Err: err}
			}
			return w.packedLate("the document", v)
		}
		if v != EnvelopeFormat {
			return &InputError{Path: w.src.name, Err: fmt.Errorf("unknown envelope format %s — this build reads %s only", quoteName(v), EnvelopeFormat)}
		}
		return nil
	case kind == "number":
		raw, err := w.capture(s, 64, "the numeric format", "")
		if err != nil {
			return err
		}
		var f float64
		if json.Unmarshal(raw, &f) != nil {
			f = math.NaN()
		}
		w.formatKind = "number"
		if err := checkArtifactFormat(f); err != nil {
			return &InputError{Path: w.src.name, Err: err}
		}
		return nil
	}
	return &InputError{Path: w.src.name, Err: fmt.Errorf("%w: its format is a JSON %s", ErrNotRecording, kind)}
}

func (w *docWalker) producer(s *scanner) error {
	line := s.line()
	raw, err := w.capture(s, smallValueLimit, "the envelope's producer", "")
	if err != nil {
		return err
	}
	fields, _, ok := w.block(line, "producer", raw, nil)
	if !ok {
		w.wrongType(line, "producer", "the producer's version is not stated")
		return nil
	}
	if v, ok := fields["agentfootprintVersion"]; ok && !isNull(v) {
		var version string
		if json.Unmarshal(v, &version) != nil {
			w.wrongType(line, "producer.agentfootprintVersion", "the producer's version is not stated")
			return nil
		}
		w.l.stats.Producer = version
	}
	return nil
}

// run reads the envelope's run facts: what the producer states about its
// own completeness and losses.
func (w *docWalker) run(s *scanner) error {
	line := s.line()
	raw, err := w.capture(s, smallValueLimit, "the envelope's run", "")
	if err != nil {
		return err
	}
	again := w.sawRun
	w.sawRun = true
	st := w.l.stats
	fields, differ, ok := w.block(line, "run", raw, runFacts)
	if !ok {
		w.unusable(line, "run", fmt.Sprintf("is a JSON %s, not an object", jsonKind(raw)), "whether the run is complete and whether events were dropped are not known")
		return nil
	}
	if raw, ok := fields["runId"]; ok {
		var id string
		if json.Unmarshal(raw, &id) == nil {
			w.envRunID = &id
		} else {
			w.wrongType(line, "run.runId", "")
		}
	}
	if raw, ok := fields["complete"]; differ["complete"] {
		st.Complete = nil
	} else if ok {
		switch v := string(bytes.TrimSpace(raw)); v {
		case "true", "false":
			b := v == "true"
			st.Complete = &b
		default:
			w.unusable(line, "run.complete", fmt.Sprintf("is %s, not true or false", countText(raw)), "whether the run is complete is not known")
		}
	} else if !again {
		w.l.probs.add("envelope", line, fmt.Sprintf("line %d: the envelope's run has no complete field: whether the run is complete is not stated", line))
	}
	count := func(name string) (*int64, bool) {
		raw, ok := fields[name]
		if !ok || differ[name] {
			return nil, ok
		}
		n, why := ReadCount(raw)
		if why != "" {
			w.unusable(line, "run."+name, why, runFacts[name])
			return nil, true
		}
		return &n, true
	}
	if st.DroppedEvents, ok = count("droppedEvents"); !ok && !again {
		w.l.probs.add("envelope", line, fmt.Sprintf("line %d: the envelope's run has no droppedEvents field: whether events were dropped is not stated", line))
	}
	st.FirstRetainedEventIndex, _ = count("firstRetainedEventIndex")
	return nil
}

// runFacts are the run facts that decide whether the run's evidence is
// whole, each with what is not known when it cannot be read.
var runFacts = map[string]string{
	"complete":                "whether the run is complete is not known",
	"droppedEvents":           "whether events were dropped is not known",
	"firstRetainedEventIndex": "where in the stream the recording starts is not known",
}

// block reads one of the envelope's small blocks (run, privacy,
// producer) as JSON reads it, the last of a repeated key counting; a
// block stated again is read together with the first, its members
// replacing theirs. A key stated twice with different values is said: of
// a deciding key (a run fact), neither value can be read (unusable, and
// in differ); of another, the last is read. ok is false when raw is not
// an object (null reads as an empty one).
func (w *docWalker) block(line int64, name string, raw []byte, deciding map[string]string) (fields map[string]json.RawMessage, differ map[string]bool, ok bool) {
	fields, first, ok := objectMembers(raw)
	if !ok {
		return nil, nil, false
	}
	if w.blocks == nil {
		w.blocks = map[string]map[string]json.RawMessage{}
	}
	if prev, again := w.blocks[name]; again {
		w.l.probs.add("duplicate key", line, fmt.Sprintf("line %d: the envelope states its %s a second time; the two are read as one, the second's members replacing the first's", line, name))
		for k, v := range prev {
			nv, ok := fields[k]
			switch {
			case !ok:
				fields[k] = v
			case first[k] == nil && !sameJSON(v, nv):
				first[k] = v
			}
		}
	}
	w.blocks[name] = fields
	keys := make([]string, 0, len(first))
	for k := range first {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		stated := fmt.Sprintf("is stated more than once with different values (%s, then %s)", countText(first[k]), countText(fields[k]))
		if unknown, ok := deciding[k]; ok {
			w.unusable(line, name+"."+k, stated, unknown)
			if differ == nil {
				differ = map[string]bool{}
			}
			differ[k] = true
			continue
		}
		w.l.probs.add("duplicate key", line, fmt.Sprintf("line %d: %s.%s %s; the last is read", line, name, k, stated))
	}
	return fields, differ, true
}

// objectMembers reads a small object's members as JSON reads them, the
// last of a repeated key counting; first holds, for each key repeated
// with another value, the first value it was given. ok is false when raw
// is not an object; null is an empty one.
func objectMembers(raw []byte) (fields, first map[string]json.RawMessage, ok bool) {
	fields = map[string]json.RawMessage{}
	first = map[string]json.RawMessage{}
	if isNull(raw) {
		return fields, first, true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, false
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, false
		}
		if old, ok := fields[k]; ok && first[k] == nil && !sameJSON(old, v) {
			first[k] = old
		}
		fields[k] = v
	}
	return fields, first, true
}

// sameJSON reports whether two valid JSON values are written alike but
// for insignificant whitespace.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// unusable records a statement the producer makes about the run that is
// there but cannot be read (a count that is no count, a complete that is
// no boolean). It is not "not stated": the producer said something about
// what the run lost, and what is unknown, so the input's runs count as
// damaged (Stats.Unusable), never as whole by default.
func (w *docWalker) unusable(line int64, field, problem, unknown string) {
	st := w.l.stats
	for _, u := range st.Unusable {
		if u.Field == field {
			return
		}
	}
	st.Unusable = append(st.Unusable, Unusable{Field: field, Line: line, Problem: problem})
	msg := fmt.Sprintf("%s %s; %s, so the run's evidence counts as damaged", field, problem, unknown)
	if line > 0 {
		msg = fmt.Sprintf("line %d: %s", line, msg)
	}
	w.l.probs.add("unusable", line, msg)
}

func (w *docWalker) wrongType(line int64, field, consequence string) {
	w.l.stats.WrongTypes[field]++
	msg := fmt.Sprintf("%s has the wrong JSON type", field)
	if line > 0 {
		msg = fmt.Sprintf("line %d: %s", line, msg)
	}
	if consequence != "" {
		msg += "; " + consequence
	}
	w.l.probs.add("wrong type", line, msg)
}

func (w *docWalker) privacy(s *scanner) error {
	line := s.line()
	raw, err := w.capture(s, smallValueLimit, "the envelope's privacy block", "")
	if err != nil {
		return err
	}
	w.sawPrivacy = true
	fields, _, ok := w.block(line, "privacy", raw, nil)
	if !ok {
		w.wrongType(line, "privacy", "the privacy mode is not stated; a v1 envelope is always \"full\"")
		return nil
	}
	rawMode, stated := fields["mode"]
	if !stated || isNull(rawMode) {
		w.l.probs.add("envelope", line, fmt.Sprintf("line %d: the envelope's privacy block states no mode; a v1 envelope is always \"full\"", line))
		return nil
	}
	var mode string
	if json.Unmarshal(rawMode, &mode) != nil {
		w.wrongType(line, "privacy.mode", "the privacy mode is not stated; a v1 envelope is always \"full\"")
		return nil
	}
	if mode != "full" {
		w.l.probs.add("envelope", line, fmt.Sprintf("line %d: privacy.mode is %s, not \"full\": a v1 producer can only write \"full\", so this file was altered or written by another tool, and its content may be redacted", line, quoteName(mode)))
	}
	return nil
}

func (w *docWalker) artifactMeta(s *scanner) error {
	raw, err := w.capture(s, smallValueLimit, "the artifact's meta", "")
	if err != nil {
		return err
	}
	w.sawMeta = true
	var m struct {
		Kind string `json:"kind"`
	}
	json.Unmarshal(raw, &m)
	w.artifactKind = m.Kind
	if w.formatKind == "number" && m.Kind != ArtifactKindRecording {
		return w.notRecordingArtifact()
	}
	return nil
}

func (w *docWalker) notRecordingArtifact() error {
	return &InputError{Path: w.src.name, Err: fmt.Errorf("%w: an artifact of kind %s (a recording artifact has kind %s)", ErrNotRecording, quoteName(w.artifactKind), ArtifactKindRecording)}
}

// artifactPayload reads an artifact's payload. Its value is the recording
// as JSON text inside a JSON string; a stringDecoder un-escapes that string
// on the fly and a second scanner walks the recording inside, so the text
// is never held whole either.
func (w *docWalker) artifactPayload(s *scanner) error {
	w.sawPayload = true
	if c, kind := peekKind(s); c != '{' {
		return &InputError{Path: w.src.name, Err: fmt.Errorf("%w: the artifact payload is a JSON %s", ErrNotRecording, kind)}
	}
	return object(s, func(k string) error {
		switch k {
		case "shape":
			c, _ := peekKind(s)
			if c != '"' {
				return s.skipValue()
			}
			shape, err := s.readString(256)
			if err != nil {
				return err
			}
			if shape != "text" && shape != "json" {
				return &InputError{Path: w.src.name, Err: fmt.Errorf("the artifact payload has shape %s: the recording is not stored in this file (this build reads shape \"text\")", quoteName(shape))}
			}
			return nil
		case "value":
			c, kind := peekKind(s)
			switch c {
			case '{':
				return w.recording(s, true, "payload.value")
			case '"':
				s.pos++
				dec := &stringDecoder{s: s}
				inner := newScanner(dec, w.l.opts.MaxNesting)
				err := w.innerRecording(inner)
				if err != nil {
					if inner.err != nil && errors.Is(err, inner.err) {
						return err // a failure of the outer document
					}
					var ie *InputError
					var cb *callbackError
					if errors.As(err, &ie) || errors.As(err, &cb) {
						return err
					}
					return &innerError{err: err, in: "in the recording text stored in payload.value, "}
				}
				// Drain what is left of the string (only whitespace).
				_, err = io.Copy(io.Discard, dec)
				return err
			}
			return &InputError{Path: w.src.name, Err: fmt.Errorf("%w: the artifact payload.value is a JSON %s", ErrNotRecording, kind)}
		}
		return s.skipValue()
	})
}

func (w *docWalker) innerRecording(inner *scanner) error {
	if c, kind := peekKind(inner); c != '{' {
		if inner.err != nil {
			return inner.err
		}
		what := "a JSON " + kind
		switch {
		case kind == "nothing":
			what = "empty"
		case kind == "number" && c != '-' && (c < '0' || c > '9'):
			inner.ensure(describedBytes)
			what = "not JSON (" + describeStart(inner.buf[inner.pos:inner.end]) + ")"
		}
		return &InputError{Path: w.src.name, Err: fmt.Errorf("%w: the text in payload.value is %s, not a recording", ErrNotRecording, what)}
	}
	if err := w.recordingObject(inner, false, "payload.value"); err != nil {
		return err
	}
	return atEnd(inner, "the recording")
}

// atEnd checks that nothing but whitespace follows a document (what names
// it). What follows may be a second recording written into the same file
// or string, so a report that judged the first alone would pass over
// runs it never read: the input is refused instead.
func atEnd(s *scanner, what string) error {
	if s.atEnd() {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	s.ensure(describedBytes)
	return s.syntaxErr("data after the end of %s: %s; what follows may be a second recording, which is not read, so the input is unreadable from there", what, describeStart(s.buf[s.pos:s.end]))
}

// reserveAfter is how many events of a document are read before its run
// reserves room for the rest (see splitter.reserve): enough to know their
// size, few enough that a run already holding them moves little.
const reserveAfter = 256

// events decodes a Recording's events array one element at a time.
func (w *docWalker) events(s *scanner, lines bool) error {
	if c, kind := peekKind(s); c != '[' {
		line, at := w.at(s)
		w.l.probs.add("events", line, fmt.Sprintf("%sevents is a JSON %s, not an array; no events read", at, kind))
		return s.skipValue()
	}
	if w.sawEvents {
		line, at := w.at(s)
		w.l.probs.add("events", line, fmt.Sprintf("%sa second events array; its events are read too", at))
	}
	w.sawEvents = true
	w.l.stats.HasEvents = true
	start := s.offset()
	var pipe *eventPipe
	if w.l.opts.Workers > 1 {
		pipe = newEventPipe(w.l)
	}
	err := array(s, func(i int) error {
		if i == reserveAfter && w.l.docSize > 0 {
			// The events array runs at most to the end of the file, and
			// agentfootprint writes it after the snapshot: its events so
			// far, at their size, tell how many it holds (a sixteenth
			// more, for events that do not all weigh the same).
			if seen := s.offset() - start; seen > 0 {
				n := int64(i) * (w.l.docSize - start) / seen
				w.l.split.reserve(n + n/16)
			}
		}
		s.skipSpace()
		wh := where{index: int64(i)}
		// A compact document is one line; a line number helps only in a
		// pretty-printed one.
		if lines && s.lines > 0 {
			wh.line = s.line()
		}
		if pipe != nil {
			return pipe.add(s, w.outer, wh, w.eventTooLong)
		}
		// The event keeps nothing of the element (the decoder copies
		// what it keeps, or under a filter the splitter does), which is
		// done with before the scanner reads on.
		raw, err := s.captureTransient(w.l.opts.MaxLineBytes)
		if err != nil {
			return w.eventTooLong(err, wh)
		}
		var r decodedEvent
		w.l.dec.decode(raw, &r)
		return w.l.documentEvent(&r, raw, wh)
	})
	if pipe != nil {
		// Events read before a failure are accounted for first, as
		// reading them one at a time would have.
		if perr := pipe.finish(); perr != nil {
			return perr
		}
	}
	return err
}

// eventTooLong names the event and the limit when capturing it failed on
// the limit; other errors come back as they are.
func (w *docWalker) eventTooLong(err error, wh where) error {
	var ce *captureError
	if errors.As(err, &ce) {
		return &InputError{Path: w.src.name, Line: wh.line, Err: fmt.Errorf("events[%d] is longer than %s (limit set by --max-line-bytes)", wh.index, humanBytes(ce.Limit))}
	}
	return err
}

// documentEvent accounts for one decoded element of an events array (raw
// is its bytes) and puts its event in its run.
func (l *loader) documentEvent(r *decodedEvent, raw []byte, wh where) error {
	ok, derr := l.account(r, wh)
	if !ok {
		l.stats.Malformed++
		l.probs.add("malformed", wh.line, fmt.Sprintf("%s: malformed: %v: %s", wh, derr, snippet(raw)))
		l.losses.add("malformed", wh.line, salvageRunID(raw))
		return nil
	}
	ev := r.ev
	ev.Line = wh.line
	ev.Index = wh.index
	return l.accept(ev, wh)
}

// snapshot walks the engine snapshot for parkedToolNames (in sharedState,
// and as written by each commitLog bundle) and skips everything else.
func (w *docWalker) snapshot(s *scanner) error {
	if c, kind := peekKind(s); c != '{' {
		line, at := w.at(s)
		w.l.probs.add("snapshot", line, fmt.Sprintf("%ssnapshot is a JSON %s, not an object; nothing read from it", at, kind))
		return s.skipValue()
	}
	if w.sawSnapshot {
		// The snapshot facts are a union (see parked), so a second
		// snapshot can add parked tools or the redaction marker, never
		// take them away; it is said, as a second events array is.
		line, at := w.at(s)
		w.l.probs.add("snapshot", line, fmt.Sprintf("%sa second snapshot; it is read too, the tools either parks counting as parked", at))
	}
	w.sawSnapshot = true
	if w.l.snapshot == nil {
		w.l.snapshot = &SnapshotFacts{}
	}
	return object(s, func(k string) error {
		switch k {
		case "sharedState":
			return w.objectOrSkip(s, func(k string) error {
				if k == "parkedToolNames" {
					return w.parked(s, "snapshot.sharedState.parkedToolNames")
				}
				return s.skipValue()
			})
		case "recorders":
			return w.recorders(s)
		case "commitLog":
			if c, _ := peekKind(s); c != '[' {
				return s.skipValue()
			}
			return array(s, func(int) error {
				return w.objectOrSkip(s, func(k string) error {
					if k != "overwrite" {
						return s.skipValue()
					}
					return w.objectOrSkip(s, func(k string) error {
						if k == "parkedToolNames" {
							return w.parked(s, "snapshot.commitLog.overwrite.parkedToolNames")
						}
						return s.skipValue()
					})
				})
			})
		}
		return s.skipValue()
	})
}

// recorders reads the ids of the snapshot's recorder rows for the
// redaction marker and skips the rest of each row.
func (w *docWalker) recorders(s *scanner) error {
	if c, _ := peekKind(s); c != '[' {
		return s.skipValue()
	}
	return array(s, func(int) error {
		return w.objectOrSkip(s, func(k string) error {
			if k != "id" {
				return s.skipValue()
			}
			if c, _ := peekKind(s); c != '"' {
				return s.skipValue()
			}
			id, err := s.readString(256)
			if err == nil && id == RedactionMarkerID {
				w.l.snapshot.Redacted = true
			}
			return err
		})
	})
}

// capture reads one value the walker needs whole. A value over its limit
// stops the input with an error naming the value, the limit and, when a
// flag can raise it, the flag; fixed limits guard blocks a real recording
// keeps to a few hundred bytes, so going past them marks hostile input.
func (w *docWalker) capture(s *scanner, limit int64, what, flag string) ([]byte, error) {
	var line int64
	if s == w.outer {
		s.skipSpace()
		line = s.line()
	}
	raw, err := s.captureValue(limit)
	var ce *captureError
	if errors.As(err, &ce) {
		msg := fmt.Sprintf("%s is longer than %s", what, humanBytes(limit))
		if flag != "" {
			msg += " (limit set by " + flag + ")"
		} else {
			msg += "; real recordings keep it far smaller, so this input is refused"
		}
		return nil, &InputError{Path: w.src.name, Line: line, Err: errors.New(msg)}
	}
	return raw, err
}

// at locates the scanner's position for a message: the file's line, or
// nothing inside an artifact's embedded recording text.
func (w *docWalker) at(s *scanner) (int64, string) {
	if s != w.outer {
		return 0, w.innerAt + ": "
	}
	return s.line(), fmt.Sprintf("line %d: ", s.line())
}

func (w *docWalker) objectOrSkip(s *scanner, member func(string) error) error {
	if c, _ := peekKind(s); c != '{' {
		return s.skipValue()
	}
	return object(s, member)
}

// parked reads one parkedToolNames value into the union. A value that is
// not a list of names (e.g. a redacted "REDACTED") is counted and skipped.
func (w *docWalker) parked(s *scanner, field string) error {
	var line int64
	if s == w.outer {
		line = s.line()
	}
	raw, err := w.capture(s, w.l.opts.MaxLineBytes, field, "--max-line-bytes")
	if err != nil {
		return err
	}
	var names []string
	if json.Unmarshal(raw, &names) != nil || isNull(raw) {
		w.wrongType(line, field, "not a list of tool names; ignored")
		return nil
	}
	f := w.l.snapshot
	f.ParkedStated = true
	if w.parkedSeen == nil {
		w.parkedSeen = map[string]bool{}
	}
	for _, n := range names {
		if !w.parkedSeen[n] {
			w.parkedSeen[n] = true
			f.ParkedToolNames = append(f.ParkedToolNames, n)
		}
	}
	return nil
}

// inPlace says what was read of a document that lacks the member holding
// its recording: the events written at its top level, if any.
func (w *docWalker) inPlace() string {
	if w.sawEvents {
		return "the events written at its top level are read in its place"
	}
	return "no events read"
}

// finish settles the document's format and checks what the format
// requires.
func (w *docWalker) finish() error {
	st := w.l.stats
	switch w.formatKind {
	case "string":
		st.Format = FormatEnvelope
		if !w.sawRecording {
			w.l.probs.add("envelope", 0, "the envelope has no recording; "+w.inPlace())
		}
		if !w.sawRun {
			w.l.probs.add("envelope", 0, "the envelope has no run facts: whether the run is complete and whether events were dropped are not stated")
		}
		if !w.sawPrivacy {
			w.l.probs.add("envelope", 0, "the envelope has no privacy block; a v1 envelope is always \"full\"")
		}
		if w.envRunID != nil {
			ids := make([]string, 0, len(w.l.split.segments))
			for id := range w.l.split.segments {
				if id != *w.envRunID {
					ids = append(ids, id)
				}
			}
			sort.Strings(ids)
			for _, id := range ids {
				w.l.probs.add("envelope", 0, fmt.Sprintf("the envelope names run %s, but its events also carry runId %s", quoteName(*w.envRunID), quoteName(id)))
			}
		}
	case "number":
		st.Format = FormatArtifact
		if !w.sawMeta {
			return &InputError{Path: w.src.name, Err: fmt.Errorf("%w: a numeric format but no meta.kind", ErrNotRecording)}
		}
		if w.artifactKind != ArtifactKindRecording {
			return w.notRecordingArtifact()
		}
		if !w.sawPayload {
			w.l.probs.add("artifact", 0, "the artifact has no payload; "+w.inPlace())
		}
	default:
		st.Format = FormatRecording
	}
	return nil
}
