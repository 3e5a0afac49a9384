package replay

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
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
// can repeat one text a million times. A text kept as written and held in
// memory is found by itself (a map keyed by the very string the store
// holds, so the key costs no bytes and a match is a byte compare); any
// other text is known by the first 128 bits of a SHA-256 of its bytes: a
// collision would need a break of SHA-256, so equal digests are taken as
// equal texts without comparing them. SHA-256 costs several times what
// the map's hash does, and a run asks for the same message at every
// request that carries it.
//
// Past budget bytes held in memory, further texts are appended to a
// temporary file in os.TempDir and read back when searched, so what a run
// keeps in memory is bounded by the budget whatever its content. The file
// is unlinked as soon as it is created where the system allows it (it then
// vanishes with the process, even one that is killed), and removed by
// close otherwise.
type textStore struct {
	ids map[textDigest]textRef
	// held are the texts kept as written and held in memory, by
	// themselves; such a text is not in ids.
	held  map[string]textRef
	items []storedText
	// placed are the lowered refs of recently asked strings by where
	// their bytes are (see lowerAt).
	placed, oldPlaced map[textPlace]textRef

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
	st := &textStore{budget: budget}
	if c, ok := storeContainers.Get().(*storeLent); ok {
		st.ids, st.held, st.items = c.ids, c.held, c.items
	} else {
		st.ids, st.held = map[textDigest]textRef{}, map[string]textRef{}
	}
	return st
}

// storeLent is what a closed store hands on to the next (see runScratch):
// its indexes and its list, emptied.
type storeLent struct {
	ids   map[textDigest]textRef
	held  map[string]textRef
	items []storedText
}

var storeContainers sync.Pool

// lend hands the store's indexes and list on, emptied, unless they grew
// past maxLentEntries; the store holds none of them afterwards.
func (st *textStore) lend() {
	if len(st.items) <= maxLentEntries && st.ids != nil && st.held != nil {
		storeContainers.Put(&storeLent{ids: keepMap(st.ids), held: keepMap(st.held), items: keepSlice(st.items)})
	}
	st.items, st.ids, st.held = nil, nil, nil
}

// intern keeps s once and returns its ref.
func (st *textStore) intern(s string) textRef {
	if r, ok := st.held[s]; ok {
		return r
	}
	if st.file == nil {
		// Nothing is in the file: a text equal to s would be in held.
		return st.add(s, nil)
	}
	d := digestOf(asWritten, s)
	if r, ok := st.ids[d]; ok {
		return r
	}
	return st.add(s, &d)
}

// internLower keeps the lowered form of s once per distinct s and returns
// its ref: a text served again is neither lowered nor kept twice.
func (st *textStore) internLower(s string, lower func(string) string) textRef {
	return st.internAs(digestOf(asLowered, s), func() string { return lower(s) })
}

// textPlace is a string known by where its bytes are. Go strings never
// change and the pointer keeps the bytes alive, so equal places hold equal
// bytes; knowing a string by its place costs nothing, where its digest
// costs a pass over it.
type textPlace struct {
	p *byte
	n int
}

// lowerAt is internLower(s, checks.Lower) for the texts of request frames.
// A frame hands on the very strings of the one before it (the history it
// was rebuilt from, texts decoded once for consecutive calls), so those of
// the last two generations are known by place and are not hashed again:
// a long history, carried into call after call, costs its hashing once.
func (st *textStore) lowerAt(s string) textRef {
	k := textPlace{unsafe.StringData(s), len(s)}
	if r, ok := st.placed[k]; ok {
		return r
	}
	r, ok := st.oldPlaced[k]
	if !ok {
		r = st.internLower(s, checks.Lower)
	}
	if st.placed == nil {
		st.placed = map[textPlace]textRef{}
	}
	st.placed[k] = r
	return r
}

// newPlaces starts a generation of lowerAt's places, at each frame
// searched; the one before the last is let go, and with it its strings.
func (st *textStore) newPlaces() {
	st.oldPlaced, st.placed = st.placed, st.oldPlaced
	clear(st.placed)
}

// internAs keeps what text makes under digest d, unless d is known.
func (st *textStore) internAs(d textDigest, text func() string) textRef {
	if r, ok := st.ids[d]; ok {
		return r
	}
	return st.add(text(), &d)
}

// add keeps s as a new text, in memory while the budget allows and in the
// file past it, and indexes it: by itself when it is kept as written and
// held, else by its digest d (nil: s is kept as written).
func (st *textStore) add(s string, d *textDigest) textRef {
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
	switch {
	case !item.spilled && (d == nil || d.kind == asWritten):
		st.held[s] = r
	case d == nil:
		st.ids[digestOf(asWritten, s)] = r
	default:
		st.ids[*d] = r
	}
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
	if st == nil {
		return nil
	}
	st.placed, st.oldPlaced = nil, nil
	if st.file == nil {
		st.lend()
		return nil
	}
	err := st.file.Close()
	if !st.unlinked {
		if rerr := os.Remove(st.file.Name()); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	st.file = nil
	st.items, st.ids, st.held = nil, nil, nil
	return err
}

// servedEntry is one served result: its tool, its call and its lowered
// text in the run's store.
type servedEntry struct {
	tool, callID string
	low          textRef
}

// maxLookupMemo bounds the bytes lookupMemo keeps; past it what it
// remembers is forgotten and found again.
const maxLookupMemo = 4 << 20

// lookupMemo remembers what earlier lookups of identifiers found in the
// run's lowered texts. The same identifier is looked up at every call that
// uses it, in every result served before and in every frame the model
// chose from, and a text is served and carried into requests many times
// over. So for each lowered value it keeps which texts of the store were
// searched and which of them hold it, two bits a text (a text is searched
// for a value at most once in the run, whatever holds it), and for each
// value and set of grounds how far the served results were walked and
// which of them can decide a lookup (hits): a later lookup of the value
// walks its hits and only the results served since. What it keeps is
// counted in bytes, as the run's kept bytes count it.
type lookupMemo struct {
	values map[string]*valueMemo
	scans  map[string]*lookupScan
	bytes  int64
	// limit is the bound on bytes; 0 is maxLookupMemo.
	limit int64
}

// valueMemo is what the searches for one lowered value found: bit r of
// searched is set once text r has been searched, and of holds when it
// holds the value.
type valueMemo struct {
	searched, holds []uint64
}

// lookupScan is what the lookups of one value under one set of grounds
// found among the results below scanned: the results that hold the value
// and may decide a lookup, in order. Once a result of a named ground is
// among them (done), no later result is read: a lookup stops there.
type lookupScan struct {
	scanned int
	hits    []int32
	done    bool
}

// of is the memo of a value, and of the value under grounds when grounds
// is not nil, after forgetting everything once the memo is full.
func (m *lookupMemo) of(needle string, grounds []string) (*valueMemo, *lookupScan) {
	if limit := cmp.Or(m.limit, maxLookupMemo); m.bytes >= limit {
		*m = lookupMemo{limit: m.limit}
	}
	vm := memoEntry(m, &m.values, needle)
	if grounds == nil {
		return vm, nil
	}
	sc := memoEntry(m, &m.scans, needle+"\x00"+strings.Join(grounds, "\x00"))
	return vm, sc
}

// memoEntry is the entry of key in *table, made and counted when missing.
func memoEntry[T any](m *lookupMemo, table *map[string]*T, key string) *T {
	v, ok := (*table)[key]
	if !ok {
		if *table == nil {
			*table = map[string]*T{}
		}
		v = new(T)
		(*table)[key] = v
		m.bytes += entryCost + int64(len(key))
	}
	return v
}

// holds reports whether lowered text r holds needle, whose memo is vm,
// searching the text only the first time; buf is scratch space for a
// spilled text, returned for reuse.
func (m *lookupMemo) holds(st *textStore, vm *valueMemo, r textRef, needle string, buf []byte) (bool, []byte, error) {
	w, bit := int(r)/64, uint64(1)<<(uint(r)%64)
	if w < len(vm.searched) && vm.searched[w]&bit != 0 {
		return vm.holds[w]&bit != 0, buf, nil
	}
	has, buf, err := st.contains(r, needle, buf)
	if err != nil {
		return false, buf, err
	}
	if grow := w + 1 - len(vm.searched); grow > 0 {
		vm.searched = append(vm.searched, make([]uint64, grow)...)
		vm.holds = append(vm.holds, make([]uint64, grow)...)
		m.bytes += 16 * int64(grow)
	}
	vm.searched[w] |= bit
	if has {
		vm.holds[w] |= bit
	}
	return has, buf, nil
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
	vm, sc := m.of(needle, v.grounds)
	for _, i := range sc.hits {
		if int(i) >= v.n {
			return nil
		}
		if !yield(int(i)) {
			return nil
		}
	}
	for !sc.done && sc.scanned < v.n {
		i := sc.scanned
		sc.scanned++
		if !v.decides(i) {
			continue
		}
		has, buf, err := m.holds(v.e.store, vm, v.e.served[i].low, needle, v.buf)
		v.buf = buf
		if err != nil {
			sc.scanned--
			return err
		}
		if !has {
			continue
		}
		sc.hits = append(sc.hits, int32(i))
		m.bytes += 4
		sc.done = v.e.served[i].tool != ""
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
// its texts in store (in memory and in its file), the entries that name
// them (served results, calls, names, claim readings, messages kept for
// evictions, deferred encounters), what its lookups remember and the slot
// records gathered for the coming request. But for the lookups, which
// forget at a fixed bound, and the slot records, which the request's
// frame takes over, it grows with the run and never shrinks until the run
// is judged, so a limit on it bounds the run. What one model call holds
// while it is judged (its request frame) is not in it: that is bounded by
// one request.
func (e *engine) keptBytes() int64 {
	return e.store.kept() + e.kept + e.lookups.bytes + e.slotKept + e.tools.held()
}
