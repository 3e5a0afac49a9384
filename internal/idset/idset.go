// Package idset holds the small string sets and indexes the report keys a
// run's findings by. A run files a handful of findings, and a report of a
// long stream builds a dozen such sets per run: a scan of a few strings
// costs less than making a map, so a map is made only past a handful.
package idset

// few is how many strings are scanned before a map is made.
const few = 8

// Set is a set of strings. The zero Set is empty and ready.
type Set struct {
	n    int
	few  [few]string
	many map[string]struct{}
}

// Add adds v and reports whether it was not there yet.
func (s *Set) Add(v string) bool {
	if s.Has(v) {
		return false
	}
	s.n++
	if s.many == nil && s.n <= few {
		s.few[s.n-1] = v
		return true
	}
	if s.many == nil {
		s.many = make(map[string]struct{}, 2*few)
		for _, w := range s.few {
			s.many[w] = struct{}{}
		}
		s.few = [few]string{}
	}
	s.many[v] = struct{}{}
	return true
}

// Has reports whether v is in the set.
func (s *Set) Has(v string) bool {
	if s.many != nil {
		_, ok := s.many[v]
		return ok
	}
	for _, w := range s.few[:s.n] {
		if w == v {
			return true
		}
	}
	return false
}

// Len is how many strings the set holds.
func (s *Set) Len() int { return s.n }

// Index finds the first position of a string in a list, which it must not
// outlive a change of.
type Index struct {
	list  []string
	first map[string]int
}

// NewIndex indexes list.
func NewIndex(list []string) Index { return Index{list: list} }

// Of is the first position of v in the list, and whether it is there.
func (x *Index) Of(v string) (int, bool) {
	if len(x.list) <= 2*few {
		for i, w := range x.list {
			if w == v {
				return i, true
			}
		}
		return -1, false
	}
	if x.first == nil {
		x.first = make(map[string]int, len(x.list))
		for i, w := range x.list {
			if _, ok := x.first[w]; !ok {
				x.first[w] = i
			}
		}
	}
	i, ok := x.first[v]
	if !ok {
		return -1, false
	}
	return i, true
}
