package replay

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"unsafe"

	"github.com/fpcheck/fpcheck/checks"
)

// DefaultKeepInMemory is the bytes of text one run holds in memory before
// the rest goes to a temporary file, when Options.KeepInMemory is 0.
const DefaultKeepInMemory int64 = 32 << 20

// KeepInMemoryFor is the Options.KeepInMemory of runs that may keep
// maxRunBytes in all (--max-run-bytes, 0 for its default): an eighth of
// it, at least 64 KiB and at most DefaultKeepInMemory. A run that may keep
// little holds less of it in memory too, and the file takes the rest.
func KeepInMemoryFor(maxRunBytes int64) int64 {
	if maxRunBytes <= 0 {
		return DefaultKeepInMemory
	}
	return min(DefaultKeepInMemory, max(maxRunBytes/8, 64<<10))
}

// textStore holds the texts a run keeps for its checks, each distinct text
// once: a run repeats the same result or message again and again (every
// later request carries it, every history repeats it), and a hostile one
// can repeat one text a million times. Texts are known by the first 128
// bits of a SHA-256 of their bytes; a collision would need a break of
// SHA-256, so equal digests are taken as equal texts without comparing
// them.
//
// Past budget bytes held in memory, further texts are appended to a
// temporary file in os.TempDir and read back when searched, so what a run
// keeps in memory is bounded by the budget whatever its content. The file
// is unlinked as soon as it is created where the system allows it (it then
// vanishes with the process, even one that is killed), and removed by
// close otherwise.
type textStore struct {
	ids   map[textDigest]textRef
	items []storedText

	budget    int64
	memBytes  int64
	fileBytes int64
	file      *os.File
	// unlinked is true when file's name is already gone.
	unlinked bool
	// err is the first failure to create or write the file; once set, no
	// more text is spilled (the rest stays in memory).
	err error
}

// textDigest is what a textStore knows a text by: how it is kept and
// the first 128 bits of the SHA-256 of its bytes.
type textDigest struct {
	kind byte
	sum  [16]byte
}

// Texts are kept as written (intern) or lowered (internLower); a text kept
// both ways is two texts.
const (
	asWritten byte = iota
	asLowered
)

// digestOf is what a text kept as kind is known by. The text is hashed in
// place: results can be megabytes, and a copy of each would double what
// hashing costs.
func digestOf(kind byte, s string) textDigest {
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(s), len(s)))
	return textDigest{kind: kind, sum: [16]byte(sum[:16])}
}

// textRef names a text of a textStore.
type textRef int32

// storedText is a text held in memory (s) or at off in the file.
type storedText struct {
	s       string
	off     int64
	n       int32
	spilled bool
}

func newTextStore(budget int64) *textStore {
	if budget <= 0 {
		budget = DefaultKeepInMemory
	}
	return &textStore{ids: map[textDigest]textRef{}, budget: budget}
}

// intern keeps s once and returns its ref.
func (st *textStore) intern(s string) textRef {
	return st.internAs(digestOf(asWritten, s), func() string { return s })
}

// internLower keeps the lowered form of s once per distinct s and returns
// its ref: a text served again is neither lowered nor kept twice.
func (st *textStore) internLower(s string, lower func(string) string) textRef {
	return st.internAs(digestOf(asLowered, s), func() string { return lower(s) })
}

// internAs keeps what text makes under digest d, unless d is known.
func (st *textStore) internAs(d textDigest, text func() string) textRef {
	if r, ok := st.ids[d]; ok {
		return r
	}
	s := text()
	r := textRef(len(st.items))
	item := storedText{s: s, n: int32(len(s))}
	if st.memBytes+int64(len(s)) > st.budget && st.err == nil && len(s) > 0 && len(s) <= math.MaxInt32 {
		if off, err := st.spill(s); err == nil {
			item = storedText{off: off, n: int32(len(s)), spilled: true}
		}
	}
	if !item.spilled {
		st.memBytes += int64(len(s))
	}
	st.items = append(st.items, item)
	st.ids[d] = r
	return r
}

// spill appends s to the file and returns where it starts.
func (st *textStore) spill(s string) (int64, error) {
	if st.file == nil {
		f, err := os.CreateTemp("", "fpcheck-run-*.spill")
		if err != nil {
			st.err = err
			return 0, err
		}
		st.file = f
		// Gone from the directory at once where open files can be
		// unlinked: nothing is left behind, whatever ends the process.
		st.unlinked = os.Remove(f.Name()) == nil
	}
	off := st.fileBytes
	if _, err := st.file.WriteAt([]byte(s), off); err != nil {
		st.err = err
		return 0, err
	}
	st.fileBytes += int64(len(s))
	return off, nil
}

// kept is the bytes of text the store keeps, in memory and in its file,
// with what it costs to know each one.
func (st *textStore) kept() int64 {
	const perText = int64(unsafe.Sizeof(textDigest{})) + 48
	return st.memBytes + st.fileBytes + perText*int64(len(st.items))
}

// inMemory is the bytes of text the store holds in memory.
func (st *textStore) inMemory() int64 { return st.memBytes }

// errReadBack is the failure to read a spilled text back.
type errReadBack struct{ err error }

func (e *errReadBack) Error() string {
	return fmt.Sprintf("the results kept in a temporary file could not be read back (%v)", e.err)
}

func (e *errReadBack) Unwrap() error { return e.err }

// contains reports whether text r holds needle; buf is scratch space for a
// spilled text, returned for reuse.
func (st *textStore) contains(r textRef, needle string, buf []byte) (bool, []byte, error) {
	it := st.items[r]
	if !it.spilled {
		return strings.Contains(it.s, needle), buf, nil
	}
	if cap(buf) < int(it.n) {
		buf = make([]byte, it.n)
	}
	b := buf[:it.n]
	if _, err := st.file.ReadAt(b, it.off); err != nil {
		return false, buf, &errReadBack{err}
	}
	return bytes.Contains(b, []byte(needle)), buf, nil
}

// text is text r; a spilled one is read back.
func (st *textStore) text(r textRef) (string, error) {
	it := st.items[r]
	if !it.spilled {
		return it.s, nil
	}
	b := make([]byte, it.n)
	if _, err := st.file.ReadAt(b, it.off); err != nil {
		return "", &errReadBack{err}
	}
	return string(b), nil
}

// close drops the texts and removes the file.
func (st *textStore) close() error {
	if st == nil || st.file == nil {
		return nil
	}
	err := st.file.Close()
	if !st.unlinked {
		if rerr := os.Remove(st.file.Name()); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	st.file = nil
	st.items, st.ids = nil, nil
	return err
}

// servedEntry is one served result: its tool, its call and its lowered
// text in the run's store.
type servedEntry struct {
	tool, callID string
	low          textRef
}

// maxLookupMemo bounds the answers and hits lookupMemo keeps; past it
// they are forgotten and found again.
const maxLookupMemo = 1 << 20

// lookupMemo remembers what earlier key-argument lookups found. The same
// identifier is looked up at every call that uses it, each time in every
// result served before, and a result is often served many times over. So
// for each lowered value and set of grounds it keeps how far the results
// were searched and which of them hold the value (hits), and for each
// distinct text whether it holds the value (answers): a later lookup of
// the value walks its hits and searches only the results served since,
// and each distinct text is searched for a value at most once in the run.
type lookupMemo struct {
	scans map[string]*lookupScan
	size  int
}

// lookupScan is what the lookups of one value under one set of grounds
// found: every result below scanned that may decide them and holds the
// value is in hits, in order.
type lookupScan struct {
	needle  string
	scanned int
	hits    []int32
	answers map[textRef]bool
}

func (m *lookupMemo) of(needle string, grounds []string) *lookupScan {
	if m.size >= maxLookupMemo {
		m.scans, m.size = nil, 0
	}
	key := needle + "\x00" + strings.Join(grounds, "\x00")
	if sc, ok := m.scans[key]; ok {
		return sc
	}
	if m.scans == nil {
		m.scans = map[string]*lookupScan{}
	}
	sc := &lookupScan{needle: needle, answers: map[textRef]bool{}}
	m.scans[key] = sc
	m.size++
	return sc
}

// servedView is the first n served results as checks.KeyArgumentsIn
// searches them for a tool grounded in grounds.
type servedView struct {
	e       *engine
	n       int
	grounds []string
	buf     []byte
}

func (v *servedView) Result(i int) checks.ServedResult {
	s := v.e.served[i]
	return checks.ServedResult{Tool: s.tool, CallID: s.callID}
}

// decides reports whether result i can decide a lookup: a result of a
// named tool that is not a ground never does, and a named result keeps its
// name.
func (v *servedView) decides(i int) bool {
	t := v.e.served[i].tool
	return t == "" || containsString(v.grounds, t)
}

func (v *servedView) Holding(needle string, yield func(i int) bool) error {
	m := &v.e.lookups
	sc := m.of(needle, v.grounds)
	for _, i := range sc.hits {
		if int(i) >= v.n {
			return nil
		}
		if !yield(int(i)) {
			return nil
		}
	}
	for sc.scanned < v.n {
		i := sc.scanned
		if !v.decides(i) {
			sc.scanned++
			continue
		}
		r := v.e.served[i].low
		has, ok := sc.answers[r]
		if !ok {
			var err error
			has, v.buf, err = v.e.store.contains(r, needle, v.buf)
			if err != nil {
				return err
			}
			sc.answers[r] = has
			m.size++
		}
		sc.scanned++
		if !has {
			continue
		}
		sc.hits = append(sc.hits, int32(i))
		m.size++
		if !yield(i) {
			return nil
		}
	}
	return nil
}

// keptMessage is a message the run keeps past its request, its content in
// the run's store: comparable, and equal exactly when the messages are.
type keptMessage struct {
	role, toolCallID, toolName string
	delivered                  bool
	content                    textRef
}

// keep interns m's content.
func (e *engine) keep(m checks.Message) keptMessage {
	return keptMessage{role: m.Role, toolCallID: m.ToolCallID, toolName: m.ToolName, delivered: m.Delivered, content: e.store.intern(m.Content)}
}

// messagesOf reads kept messages back; one whose text cannot be read is
// left out.
func (e *engine) messagesOf(ks []keptMessage) []checks.Message {
	var out []checks.Message
	for _, k := range ks {
		content, err := e.store.text(k.content)
		if err != nil {
			continue
		}
		out = append(out, checks.Message{Role: k.role, Content: content, ToolCallID: k.toolCallID, ToolName: k.toolName, Delivered: k.delivered})
	}
	return out
}

// entryCost is what one kept entry (a slice element, a map entry) costs
// beside the bytes of its strings, as keptBytes counts it.
const entryCost = 64

// count adds one kept entry holding strings of the given lengths.
func (e *engine) count(lens ...int) {
	n := int64(entryCost)
	for _, l := range lens {
		n += int64(l)
	}
	e.kept += n
}

// nameCall records the tool of a call id.
func (e *engine) nameCall(id, name string) {
	if _, ok := e.callNames[id]; !ok {
		e.count(len(id), len(name))
	}
	e.callNames[id] = name
}

// keptBytes is what the run keeps so far for judgements still to come:
// its texts in store (in memory and in its file) and the entries that
// name them (served results, calls, names, claim readings, messages kept
// for evictions, deferred encounters). It grows with the run and never
// shrinks until the run is judged, so a limit on it bounds the run. What
// one model call holds while it is judged (its request frame) is not in
// it: that is bounded by one request.
func (e *engine) keptBytes() int64 {
	return e.store.kept() + e.kept
}
