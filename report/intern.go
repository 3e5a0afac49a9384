package report

import (
	"reflect"
	"slices"

	"github.com/fpcheck/fpcheck/replay"
)

// interner hands out one copy of each phrase a report repeats. The ledger
// rows of every run are worded from a few templates, so a report of a
// million small runs says the same few dozen phrases millions of times;
// kept once each, a run costs its counts, not its sentences. The table
// stops growing at internCap phrases, so content that makes every phrase
// distinct costs no more than it did without it.
type interner struct {
	seen  map[string]string
	lists map[string][]string
	// rows are whole ledgers: the runs of one configuration register the
	// same checks, and most of them count the same encounters.
	rows map[string][]Row
	// sides are the sides handed out, by what narrows them down: the runs
	// of one agent mostly end with the same few, then each held once.
	sides map[sideKey][]*Side
	// key and rowsKey are the buffers list and ledger keys are built
	// in (a side's rows key is held while its lists are interned):
	// looked up, a key is not copied, only kept.
	key, rowsKey []byte
}

// sideKey narrows the sides that may say what a side says; reflect.DeepEqual
// decides. Rows and lists are interned before, so equal ones share their
// first element.
type sideKey struct {
	recorded         bool
	coverage         Coverage
	ledger           string
	rows             *Row
	nrows            int
	integrity        int
	defects, checked int64
}

// sidesPerKey bounds the sides kept under one key.
const sidesPerKey = 4

const internCap = 1 << 12

func newInterner() *interner {
	return &interner{seen: map[string]string{}, lists: map[string][]string{}, rows: map[string][]Row{}, sides: map[sideKey][]*Side{}}
}

func (in *interner) str(s string) string {
	if t, ok := in.seen[s]; ok {
		return t
	}
	if len(in.seen) < internCap {
		in.seen[s] = s
	}
	return s
}

func (in *interner) strs(ss []string) {
	for i, s := range ss {
		ss[i] = in.str(s)
	}
}

// list returns one shared copy of a list of phrases, clipped so that an
// append copies it instead of writing into another run's list. Lists are
// only read once built.
func (in *interner) list(ss []string) []string {
	if len(ss) == 0 {
		return ss
	}
	in.key = appendList(in.key[:0], ss)
	if t, ok := in.lists[string(in.key)]; ok {
		return t
	}
	in.strs(ss)
	ss = slices.Clip(ss)
	if len(in.lists) < internCap {
		in.lists[string(in.key)] = ss
	}
	return ss
}

// appendList names a list by its phrases, each preceded by its length, so
// that no two lists share a key whatever bytes a recording put in them.
func appendList(b []byte, ss []string) []byte {
	for _, s := range ss {
		b = replay.AppendKeyPhrase(b, s)
	}
	return b
}

// rowsKey names a ledger by everything its rows hold, each list preceded
// by its length and each phrase by its own.
func rowsKey(b []byte, rows []Row) []byte {
	for i := range rows {
		r := &rows[i]
		b = replay.AppendRowKey(b, &r.Row)
		b = replay.AppendKeyPhrase(b, string(r.State))
		b = replay.AppendKeyPhrase(b, r.LastFired)
		b = replay.AppendKeyInt(b, int64(len(r.Parts)))
		b = appendList(b, r.Parts)
		b = replay.AppendKeyInt(b, int64(len(r.ToolsAbsent)))
		b = appendList(b, r.ToolsAbsent)
	}
	return b
}

// side interns what a side's rows and summary say. The rows are worded
// in the builder's scratch list (memo.rowsFor): the side is handed the
// interned ledger, or a copy of its own.
func (in *interner) side(s *Side) {
	if s == nil {
		return
	}
	s.Silent = in.list(s.Silent)
	s.NeverRan = in.list(s.NeverRan)
	s.Ledger = in.str(s.Ledger)
	s.Posture = in.str(s.Posture)
	if len(s.Rows) == 0 {
		if s.Rows != nil {
			s.Rows = []Row{}
		}
		return
	}
	key := rowsKey(in.rowsKey[:0], s.Rows)
	in.rowsKey = key
	if t, ok := in.rows[string(key)]; ok {
		s.Rows = t
		return
	}
	// Rows are only read once built, and clipped so that an append
	// copies them.
	s.Rows = slices.Clip(slices.Clone(s.Rows))
	for i := range s.Rows {
		r := &s.Rows[i]
		r.Parts = in.list(r.Parts)
		r.ToolsAbsent = in.list(r.ToolsAbsent)
		r.LastFired = in.str(r.LastFired)
	}
	if len(in.rows) < internCap {
		in.rows[string(key)] = s.Rows
	}
}

// run interns the sentences that state a run.
func (in *interner) run(r *Run) {
	r.Headline = in.str(r.Headline)
	r.Notes = in.list(r.Notes)
}

// same returns a side handed out before that says exactly what s says,
// else a copy of s, which is then kept: s is the builder's (memo.side).
// A side is only read once its run is built.
func (in *interner) same(recorded bool, s *Side) *Side {
	if s == nil {
		return nil
	}
	k := sideKey{recorded: recorded, coverage: s.Coverage, ledger: s.Ledger, nrows: len(s.Rows),
		integrity: s.IntegrityEvents, defects: int64(s.Defects), checked: s.Checked}
	if len(s.Rows) > 0 {
		k.rows = &s.Rows[0]
	}
	kept := in.sides[k]
	for _, t := range kept {
		if reflect.DeepEqual(t, s) {
			return t
		}
	}
	c := new(Side)
	*c = *s
	if len(kept) < sidesPerKey && (len(kept) > 0 || len(in.sides) < internCap) {
		in.sides[k] = append(kept, c)
	}
	return c
}
