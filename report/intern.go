package report

import (
	"slices"
	"strconv"
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
}

const internCap = 1 << 12

func newInterner() *interner {
	return &interner{seen: map[string]string{}, lists: map[string][]string{}}
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
	key := listKey(ss)
	if t, ok := in.lists[key]; ok {
		return t
	}
	in.strs(ss)
	ss = slices.Clip(ss)
	if len(in.lists) < internCap {
		in.lists[key] = ss
	}
	return ss
}

// listKey names a list by its phrases, each preceded by its length, so that
// no two lists share a key whatever bytes a recording put in them.
func listKey(ss []string) string {
	var b []byte
	for _, s := range ss {
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
	}
	return string(b)
}

// side interns what a side's rows and summary say.
func (in *interner) side(s *Side) {
	if s == nil {
		return
	}
	s.Silent = in.list(s.Silent)
	s.NeverRan = in.list(s.NeverRan)
	s.Ledger = in.str(s.Ledger)
	s.Posture = in.str(s.Posture)
	for i := range s.Rows {
		r := &s.Rows[i]
		r.Parts = in.list(r.Parts)
		r.ToolsAbsent = in.list(r.ToolsAbsent)
		r.LastFired = in.str(r.LastFired)
	}
}
