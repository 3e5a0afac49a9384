package recording

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/fpcheck/fpcheck/internal/jsonfast"
)

// PackedFormat is the one packed-recording format this build reads:
// {format, values, recording}, where {"$af:ref": n} in the recording (or in
// a value) stands for values[n] and {"$af:esc": o} is the recording's own
// object o, taken literally at its own level.
const PackedFormat = "agentfootprint.recording.packed.v1"

// packedFamily starts every packed-recording format; one this build does
// not read is refused by name rather than read as a plain recording whose
// references would be judged as content.
const packedFamily = "agentfootprint.recording.packed."

const (
	packRef = "$af:ref"
	packEsc = "$af:esc"
)

// DefaultMaxPackedExpansion is the default of Options.MaxPackedExpansion:
// what a compressed input may expand to, so that a packed recording may
// stand for no more than a compressed plain one could hold.
const DefaultMaxPackedExpansion int64 = 8 << 30

// isPackedFamily reports a format string of the packed family, read or not.
func isPackedFamily(f string) bool { return strings.HasPrefix(f, packedFamily) }

// checkPackedFormat refuses a packed format other than v1, by name.
func checkPackedFormat(f string) error {
	if f == PackedFormat {
		return nil
	}
	return fmt.Errorf("unknown packed recording format %s — this build reads %s only", quoteName(f), PackedFormat)
}

// packSeg is one piece of a packed value's expansion: bytes of the packed
// text to copy as they are, or (ref >= 0) the expansion of values[ref].
type packSeg struct {
	lit []byte
	ref int
}

// packedDoc is a packed recording compiled for expansion. Every piece of
// literal text is a slice of the captured packed bytes, so the document
// costs its packed size plus one segment per reference: a pooled value is
// held once however often it is referred to.
type packedDoc struct {
	values [][]packSeg
	root   []packSeg
	sizes  []int64 // expanded JSON size of each value
	total  int64   // expanded size of the recording
}

// packedParts are the members of a packed recording as captured.
type packedParts struct {
	sawFormat    bool
	values       []byte
	sawValues    bool
	recording    []byte
	sawRecording bool
	// after are events arrays written beside the recording, after it:
	// read once its expansion is, in file order.
	after [][]byte
}

// packError is a packed recording that cannot be expanded; the message
// names the place.
type packError struct{ msg string }

func (e *packError) Error() string { return e.msg }

// compilePacked checks and compiles a packed recording: every reference
// names a value the recording holds, no value reaches itself through
// references, and the recording expands to at most limit bytes. The size
// is measured on the packed form, each pooled value once, so a few
// kilobytes that stand for terabytes are refused before anything is
// expanded.
func compilePacked(p *packedParts, limit int64) (*packedDoc, error) {
	if !p.sawValues {
		return nil, &packError{"the packed recording has no values array"}
	}
	if !p.sawRecording {
		return nil, &packError{"the packed recording has no recording"}
	}
	i := jsonfast.SkipSpace(p.values, 0)
	if i >= len(p.values) || p.values[i] != '[' {
		return nil, &packError{fmt.Sprintf("the packed recording's values is a JSON %s, not an array", jsonKind(p.values))}
	}
	// The number of values is needed before any reference can be checked.
	n := 0
	if err := packElements(p.values, func(a, b int) error { n++; return nil }); err != nil {
		return nil, err
	}
	c := &packCompiler{nvalues: n}
	doc := &packedDoc{values: make([][]packSeg, 0, n)}
	k := 0
	err := packElements(p.values, func(a, b int) error {
		segs, err := c.compile(p.values, a, b, "values["+strconv.Itoa(k)+"]")
		doc.values = append(doc.values, segs)
		k++
		return err
	})
	if err != nil {
		return nil, err
	}
	if doc.root, err = c.compile(p.recording, 0, len(p.recording), "recording"); err != nil {
		return nil, err
	}
	if err := doc.measure(limit); err != nil {
		return nil, err
	}
	return doc, nil
}

// measure computes the expanded size of every value, refusing a cycle of
// references, and of the recording, refusing one over limit. Sizes
// saturate just past the limit so a crafted chain cannot overflow them.
func (d *packedDoc) measure(limit int64) error {
	cap := limit + 1
	if limit <= 0 || limit >= math.MaxInt64/2 {
		cap = math.MaxInt64 / 2
	}
	add := func(a, b int64) int64 {
		if a+b > cap {
			return cap
		}
		return a + b
	}
	d.sizes = make([]int64, len(d.values))
	state := make([]uint8, len(d.values)) // 0 unseen, 1 on the stack, 2 measured
	type frame struct{ v, seg int }
	var stack []frame
	for start := range d.values {
		if state[start] != 0 {
			continue
		}
		state[start] = 1
		stack = append(stack[:0], frame{v: start})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			segs := d.values[top.v]
			if top.seg == len(segs) {
				var size int64
				for _, s := range segs {
					if s.ref >= 0 {
						size = add(size, d.sizes[s.ref])
					} else {
						size = add(size, int64(len(s.lit)))
					}
				}
				d.sizes[top.v] = size
				state[top.v] = 2
				stack = stack[:len(stack)-1]
				continue
			}
			s := segs[top.seg]
			top.seg++
			if s.ref < 0 || state[s.ref] == 2 {
				continue
			}
			if state[s.ref] == 1 {
				return &packError{cycleMessage(stack, s.ref, func(f frame) int { return f.v })}
			}
			state[s.ref] = 1
			stack = append(stack, frame{v: s.ref})
		}
	}
	var total int64
	for _, s := range d.root {
		if s.ref >= 0 {
			total = add(total, d.sizes[s.ref])
		} else {
			total = add(total, int64(len(s.lit)))
		}
	}
	d.total = total
	if limit > 0 && total > limit {
		return &packError{fmt.Sprintf("the packed recording expands to more than %s (limit set by --max-packed-expansion, measured on the packed form before anything is expanded); the input may be an expansion bomb", humanBytes(limit))}
	}
	return nil
}

// cycleMessage names the values of a reference cycle, from the value that
// is referred to again back to itself.
func cycleMessage[F any](stack []F, again int, value func(F) int) string {
	var chain []string
	on := false
	for _, f := range stack {
		v := value(f)
		if v == again {
			on = true
		}
		if on {
			chain = append(chain, "values["+strconv.Itoa(v)+"]")
		}
	}
	chain = append(chain, "values["+strconv.Itoa(again)+"]")
	if len(chain) == 2 {
		return fmt.Sprintf("values[%d] refers to itself; a recording cannot hold that", again)
	}
	if len(chain) > 12 {
		chain = append(append(chain[:5:5], "…"), chain[len(chain)-5:]...)
	}
	return fmt.Sprintf("values[%d] refers to itself through a cycle of references (%s); a recording cannot hold that", again, strings.Join(chain, " → "))
}

// eachElement calls fn with the bounds of each element of the validated
// array at the start of b.
func packElements(b []byte, fn func(a, end int) error) error {
	i := jsonfast.SkipSpace(b, 0) + 1
	i = jsonfast.SkipSpace(b, i)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for i < len(b) {
		end, err := skipJSON(b, i)
		if err != nil {
			return err
		}
		if err := fn(i, end); err != nil {
			return err
		}
		i = jsonfast.SkipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			return nil
		}
		i = jsonfast.SkipSpace(b, i+1)
	}
	return nil
}

// packCompiler turns validated packed JSON text into segments.
type packCompiler struct {
	nvalues int
	src     []byte
	segs    []packSeg
	from    int // start of the literal text not yet put in a segment
	path    []string
	// single tells, for each object whose first key is a reserved one
	// (by the offset of its '{'), whether that key is its only member.
	single map[int]bool
}

// compile compiles src[a:b], a validated JSON value; place names it in
// messages.
func (c *packCompiler) compile(src []byte, a, b int, place string) ([]packSeg, error) {
	c.src, c.segs, c.from, c.path = src, nil, a, append(c.path[:0], place)
	single, err := reservedObjects(src[:b], a)
	if err != nil {
		return nil, err
	}
	c.single = single
	end, err := c.value(a)
	if err != nil {
		return nil, err
	}
	c.flush(end)
	return c.segs, nil
}

func (c *packCompiler) flush(upto int) {
	if upto > c.from {
		c.segs = append(c.segs, packSeg{lit: c.src[c.from:upto:upto], ref: -1})
	}
	c.from = upto
}

func (c *packCompiler) place() string { return strings.Join(c.path, "") }

func (c *packCompiler) value(i int) (int, error) {
	i = jsonfast.SkipSpace(c.src, i)
	if i >= len(c.src) {
		return i, &packError{c.place() + ": the packed text ends early"}
	}
	switch c.src[i] {
	case '{':
		return c.object(i, true)
	case '[':
		j := jsonfast.SkipSpace(c.src, i+1)
		if j < len(c.src) && c.src[j] == ']' {
			return j + 1, nil
		}
		for k := 0; ; k++ {
			next, more, err := c.member("["+strconv.Itoa(k)+"]", j)
			if err != nil || !more {
				return next, err
			}
			j = next
		}
	}
	return skipJSON(c.src, i)
}

// member compiles the member value at i, named step in places, and
// returns where the next member starts (more) or where its container ends.
func (c *packCompiler) member(step string, i int) (next int, more bool, err error) {
	c.path = append(c.path, step)
	end, err := c.value(i)
	c.path = c.path[:len(c.path)-1]
	if err != nil {
		return end, false, err
	}
	j := jsonfast.SkipSpace(c.src, end)
	if j >= len(c.src) || c.src[j] != ',' {
		return j + 1, false, nil
	}
	return j + 1, true, nil
}

// object compiles the object at i. With special set, a one-member object
// keyed "$af:ref" is a reference and one keyed "$af:esc" holding an object
// is that object taken literally at its own level, as the format defines;
// an escaped object's own members are still read as packed.
func (c *packCompiler) object(i int, special bool) (int, error) {
	if single, ok := c.single[i]; ok && single && special {
		// Every member has the same key; JSON reads the last one.
		var key string
		var v, vend, close int
		for j := jsonfast.SkipSpace(c.src, i+1); ; {
			kend, err := skipJSON(c.src, j)
			if err != nil {
				return kend, err
			}
			key = decodeKey(c.src[j:kend])
			v = jsonfast.SkipSpace(c.src, jsonfast.SkipSpace(c.src, kend)+1)
			if vend, err = skipJSON(c.src, v); err != nil {
				return vend, err
			}
			close = jsonfast.SkipSpace(c.src, vend)
			if close >= len(c.src) || c.src[close] != ',' {
				break
			}
			j = jsonfast.SkipSpace(c.src, close+1)
		}
		switch {
		case key == packRef:
			n, ok := refIndex(c.src[v:vend])
			if !ok || n >= c.nvalues {
				return vend, &packError{fmt.Sprintf("%s: a reference names value %s, which the packed recording does not hold (%s)", c.place(), refText(c.src[v:vend]), holdsValues(c.nvalues))}
			}
			c.flush(i)
			c.segs = append(c.segs, packSeg{ref: n})
			c.from = close + 1
			return close + 1, nil
		case key == packEsc && c.src[v] == '{':
			c.flush(i)
			c.from = v
			c.path = append(c.path, "."+packEsc)
			end, err := c.object(v, false)
			c.path = c.path[:len(c.path)-1]
			if err != nil {
				return end, err
			}
			c.flush(end)
			c.from = close + 1
			return close + 1, nil
		}
	}
	j := jsonfast.SkipSpace(c.src, i+1)
	if j < len(c.src) && c.src[j] == '}' {
		return j + 1, nil
	}
	for j < len(c.src) {
		kend, err := skipJSON(c.src, j)
		if err != nil {
			return kend, err
		}
		next, more, err := c.member(pathKey(c.src[j:kend]), jsonfast.SkipSpace(c.src, kend)+1)
		if err != nil || !more {
			return next, err
		}
		j = jsonfast.SkipSpace(c.src, next)
	}
	return j, &packError{c.place() + ": the packed text ends early"}
}

// reservedObjects finds, in the validated JSON at src[a:], every object
// whose first key is "$af:ref" or "$af:esc", and whether that key is its
// only one (repeated, as JSON reads it, the last value counting): whether
// such an object is a reference (or an escape) is known only at its end,
// and knowing it up front keeps the compile one pass however deeply
// escapes nest.
func reservedObjects(src []byte, a int) (map[int]bool, error) {
	type open struct {
		at       int
		object   bool
		reserved string // the first key, when reserved
		other    bool   // a key other than the first was seen
		wantKey  bool   // a ',' was read: a key comes next
	}
	var out map[int]bool
	var stack []open
	i := a
	for i < len(src) {
		switch c := src[i]; c {
		case '{':
			o := open{at: i, object: true}
			j := jsonfast.SkipSpace(src, i+1)
			if j < len(src) && src[j] == '"' {
				kend, err := skipJSON(src, j)
				if err != nil {
					return nil, err
				}
				if k := decodeKey(src[j:kend]); k == packRef || k == packEsc {
					o.reserved = k
				}
			}
			stack = append(stack, o)
			i++
		case '[':
			stack = append(stack, open{at: i})
			i++
		case ',':
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].reserved != "" {
				stack[n-1].wantKey = true
			}
			i++
		case '}', ']':
			n := len(stack)
			if n == 0 {
				return out, nil
			}
			if o := stack[n-1]; o.reserved != "" {
				if out == nil {
					out = map[int]bool{}
				}
				out[o.at] = !o.other
			}
			stack = stack[:n-1]
			i++
			if len(stack) == 0 {
				return out, nil
			}
		case '"':
			end, err := skipJSON(src, i)
			if err != nil {
				return nil, err
			}
			if n := len(stack); n > 0 && stack[n-1].wantKey {
				top := &stack[n-1]
				top.wantKey = false
				if decodeKey(src[i:end]) != top.reserved {
					top.other = true
				}
			}
			i = end
		default:
			i++
		}
	}
	return out, nil
}

// skipJSON returns the end of the validated JSON value (or key) at i.
func skipJSON(b []byte, i int) (int, error) {
	if i >= len(b) {
		return i, &packError{"the packed text ends early"}
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1, nil
			}
		}
		return len(b), &packError{"the packed text ends inside a string"}
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := skipJSON(b, j)
				if err != nil {
					return end, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return len(b), &packError{"the packed text ends inside a container"}
	}
	j := i
	for j < len(b) && !jsonfast.IsSpace(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ':' {
		j++
	}
	return j, nil
}

// decodeKey is a JSON string's value; a key spelled with escapes
// ("\u0024af:ref") is the same key as JSON reads it.
func decodeKey(raw []byte) string {
	if len(raw) >= 2 && !strings.ContainsRune(string(raw), '\\') {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// refIndex reads a reference's index as the format does: any JSON number
// that is a whole, non-negative value.
func refIndex(raw []byte) (int, bool) {
	if len(raw) == 0 || !(raw[0] == '-' || '0' <= raw[0] && raw[0] <= '9') {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

// refText shows a reference's index as written, shortened if long.
func refText(raw []byte) string {
	if len(raw) <= 24 && raw[0] != '"' {
		return string(raw)
	}
	return snippet(raw)
}

func holdsValues(n int) string {
	switch n {
	case 0:
		return "it holds no values"
	case 1:
		return "it holds 1 value, values[0]"
	}
	return fmt.Sprintf("it holds %d values, values[0] to values[%d]", n, n-1)
}

// pathKey renders an object key as a step of a place in messages.
func pathKey(raw []byte) string {
	k := decodeKey(raw)
	if k != "" && strings.IndexFunc(k, func(r rune) bool {
		return !(r == '_' || r == '$' || r == ':' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
	}) < 0 && len(k) <= 40 {
		return "." + k
	}
	return "[" + quoteName(k) + "]"
}

// reader streams the recording a packed document stands for: the plain
// JSON, produced as it is read, so that the walker reads a packed
// recording exactly as it reads a plain one and nothing expanded is held.
func (d *packedDoc) reader() io.Reader {
	return &packReader{d: d, stack: []packFrame{{segs: d.root}}}
}

type packFrame struct {
	segs []packSeg
	i    int // next segment
	off  int // bytes of segs[i] already copied
}

type packReader struct {
	d     *packedDoc
	stack []packFrame
}

func (r *packReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.stack) == 0 {
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
		top := &r.stack[len(r.stack)-1]
		if top.i == len(top.segs) {
			r.stack = r.stack[:len(r.stack)-1]
			continue
		}
		s := top.segs[top.i]
		if s.ref >= 0 {
			top.i++
			r.stack = append(r.stack, packFrame{segs: r.d.values[s.ref]})
			continue
		}
		c := copy(p[n:], s.lit[top.off:])
		n += c
		top.off += c
		if top.off == len(s.lit) {
			top.i++
			top.off = 0
		}
	}
	return n, nil
}

// formatPacked is the sniffed format of a bare packed recording; it is
// reported as FormatRecording, with Stats.Packed set.
const formatPacked Format = "packed recording"

// packedMember holds one member of a packed recording: its values and its
// recording are captured whole (the packed form is what memory is spent
// on), events and a snapshot beside them are read as a recording's own,
// anything else is skipped. name is the packed object's place ("" at
// the top of the file).
func (w *docWalker) packedMember(s *scanner, k string, p *packedParts, name string) error {
	var dst *[]byte
	switch k {
	case "values", "recording":
		// A member stated twice would leave the recording read to be
		// whichever came last, said nowhere; the library writes each once.
		seen := &p.sawValues
		dst = &p.values
		if k == "recording" {
			seen, dst = &p.sawRecording, &p.recording
		}
		if *seen {
			var line int64
			if s == w.outer {
				s.skipSpace()
				line = s.line()
			}
			return &InputError{Path: w.src.name, Line: line, Err: fmt.Errorf("%s%s is stated twice in a packed recording, which holds one; which of the two counts is not known, so the input is refused", placePrefix(name), k)}
		}
		*seen = true
	case "format":
		c, kind := peekKind(s)
		if c != '"' {
			return &InputError{Path: w.src.name, Err: fmt.Errorf("%sformat is stated twice, the second time as a JSON %s", placePrefix(name), kind)}
		}
		v, err := s.readString(4096)
		if err != nil {
			return err
		}
		if v != PackedFormat {
			return &InputError{Path: w.src.name, Err: fmt.Errorf("%sformat is stated twice, as %s and as %s", placePrefix(name), quoteName(PackedFormat), quoteName(v))}
		}
		return nil
	case "events", "snapshot":
		// Not a member of the format, but a recording's own: read as the
		// envelope reads them beside its recording, never passed over.
		line, at := w.at(s)
		if k == "snapshot" {
			w.l.probs.add("packed", line, fmt.Sprintf("%s%ssnapshot is beside the packed recording, not in it; it is read too, as a plain snapshot", at, placePrefix(name)))
			return w.snapshot(s)
		}
		w.l.probs.add("packed", line, fmt.Sprintf("%s%sevents is beside the packed recording, not in it; its events are read too, as plain events", at, placePrefix(name)))
		if !p.sawRecording {
			return w.events(s, s == w.outer)
		}
		p.after = append(p.after, nil)
		dst = &p.after[len(p.after)-1]
	default:
		return s.skipValue()
	}
	var line int64
	if s == w.outer {
		s.skipSpace()
		line = s.line()
	}
	// appendValue rather than captureValue: the packed form may be most
	// of the input, and is not worth a second copy.
	raw, err := s.appendValue(nil, w.l.opts.MaxPackedExpansion)
	var ce *captureError
	if errors.As(err, &ce) {
		return &InputError{Path: w.src.name, Line: line, Err: fmt.Errorf("%s%s of the packed recording is longer than %s (limit set by --max-packed-expansion)", placePrefix(name), k, humanBytes(ce.Limit))}
	}
	*dst = raw
	return err
}

func placePrefix(name string) string {
	if name == "" {
		return ""
	}
	return name + "."
}

// expandPacked checks a packed recording and walks the recording it
// stands for as the plain one would be walked. Events read from the
// expansion carry no line: lines of the packed file are not lines of the
// recording.
func (w *docWalker) expandPacked(p *packedParts, name string) error {
	doc, err := compilePacked(p, w.l.opts.MaxPackedExpansion)
	if err != nil {
		msg := err.Error()
		if name != "" {
			msg = name + ": " + msg
		}
		return &InputError{Path: w.src.name, Err: errors.New(msg)}
	}
	p.values, p.recording = nil, nil
	w.l.stats.Packed = true
	inner := newScanner(doc.reader(), w.l.opts.MaxNesting)
	saved := w.innerAt
	w.innerAt = "packed recording"
	defer func() { w.innerAt = saved }()
	what := "the packed recording's recording"
	if c, kind := peekKind(inner); c != '{' {
		w.l.probs.add("not a recording", 0, fmt.Sprintf("%s is a JSON %s, not a recording object; nothing read from it", what, kind))
		return inner.skipValue()
	}
	// The expansion is read as a plain recording: a packed recording
	// inside a packed one is not expanded again, as the library does not.
	err = object(inner, func(k string) error { return w.recordingKey(inner, k, false) })
	if err == nil {
		w.innerAt = "events beside the packed recording"
		for _, raw := range p.after {
			if err = w.events(newSliceScanner(raw, w.l.opts.MaxNesting), false); err != nil {
				break
			}
		}
	}
	if err != nil {
		var ie *InputError
		var cb *callbackError
		if errors.As(err, &ie) || errors.As(err, &cb) {
			return err
		}
		return &innerError{err: err, in: "in the recording its packed form expands to, "}
	}
	return nil
}
