package report

import (
	"slices"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/google/go-cmp/cmp"
)

// TestInternerLists: lists that differ in any byte stay distinct, equal
// lists share one copy, and an append to a shared list never writes into
// another run's.
func TestInternerLists(t *testing.T) {
	tests := []struct {
		name string
		a, b []string
		same bool
	}{
		{"equal lists", []string{"x", "y"}, []string{"x", "y"}, true},
		{"a NUL inside a phrase", []string{"a\x00b"}, []string{"a", "b"}, false},
		{"a length-like prefix", []string{"1:a", "b"}, []string{"1:a1:b"}, false},
		{"empty phrase", []string{"", "a"}, []string{"a"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := newInterner()
			a := in.list(slices.Clone(tt.a))
			b := in.list(slices.Clone(tt.b))
			if !slices.Equal(a, tt.a) || !slices.Equal(b, tt.b) {
				t.Fatalf("lists changed: %q %q", a, b)
			}
			if shared := &a[0] == &b[0]; shared != tt.same {
				t.Fatalf("shared = %v, want %v", shared, tt.same)
			}
			_ = append(a, "z")
			if !slices.Equal(b, tt.b) {
				t.Fatalf("an append wrote into the other list: %q", b)
			}
		})
	}
	if got := newInterner().list(nil); got != nil {
		t.Errorf("nil list became %q", got)
	}
}

// TestInternerRows: ledgers equal in every field share one copy of their
// rows, ledgers that differ in any field keep their own, and an append to
// a shared ledger never writes into another run's.
func TestInternerRows(t *testing.T) {
	at, other := 1.5, 2.5
	base := func() []Row {
		return []Row{
			{Row: checks.Row{Check: "empty-lookup", Seam: "write", Checked: 3}, State: RowChecked, Parts: []string{"checked 3"}},
			{Row: checks.Row{Check: "missing-column", Seam: "write", LastFiredAt: &at}, State: RowNeverRan, LastFired: "x", Parts: []string{"ran 0×"}},
		}
	}
	tests := []struct {
		name   string
		change func(rows []Row)
		same   bool
	}{
		{"equal ledgers", func([]Row) {}, true},
		{"an equal time, held apart", func(rows []Row) { v := at; rows[1].LastFiredAt = &v }, true},
		{"a count", func(rows []Row) { rows[0].Checked = 4 }, false},
		{"a synthetic count", func(rows []Row) { rows[0].Synthetic = 1 }, false},
		{"no time", func(rows []Row) { rows[1].LastFiredAt = nil }, false},
		{"another time", func(rows []Row) { rows[1].LastFiredAt = &other }, false},
		{"a state", func(rows []Row) { rows[0].State = RowSilent }, false},
		{"a phrase", func(rows []Row) { rows[0].Parts = []string{"checked 3", "·"} }, false},
		{"phrases cut elsewhere", func(rows []Row) { rows[0].Parts = []string{"checked", "3"} }, false},
		{"a phrase moved to absent tools", func(rows []Row) { rows[0].Parts, rows[0].ToolsAbsent = nil, []string{"checked 3"} }, false},
		{"a row emptied", func(rows []Row) { rows[1] = Row{} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := newInterner()
			a := &Side{Rows: base()}
			b := &Side{Rows: base()}
			tt.change(b.Rows)
			want := slices.Clone(b.Rows)
			in.side(a)
			in.side(b)
			if shared := &a.Rows[0] == &b.Rows[0]; shared != tt.same {
				t.Fatalf("shared = %v, want %v", shared, tt.same)
			}
			if diff := cmp.Diff(want, b.Rows); diff != "" {
				t.Fatalf("rows changed (-before +after):\n%s", diff)
			}
			_ = append(a.Rows, Row{State: RowSilent})
			if diff := cmp.Diff(want, b.Rows); diff != "" {
				t.Fatalf("an append wrote into the other ledger (-before +after):\n%s", diff)
			}
		})
	}
}

// TestInternerSides: a side equal to one handed out before, the last or
// an earlier one, is held once; one that differs in any field, or in nil
// against empty, or that is of the other kind, is its own.
func TestInternerSides(t *testing.T) {
	base := Side{Coverage: CoverageNoIntegrityEvents, Posture: "observe", Silent: []string{"a @b"}}
	tests := []struct {
		name   string
		change func(*Side)
		same   bool
	}{
		{"equal", func(*Side) {}, true},
		{"a count", func(s *Side) { s.Checked = 1 }, false},
		{"a phrase", func(s *Side) { s.Silent = []string{"a @c"} }, false},
		{"empty rows, not none", func(s *Side) { s.Rows = []Row{} }, false},
		{"another posture", func(s *Side) { s.Posture = "enforce" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := newInterner()
			a, b := base, base
			tt.change(&b)
			first := in.same(false, &a)
			other := Side{Coverage: CoverageFull}
			in.same(false, &other)
			if in.same(true, &b) == first {
				t.Fatal("a recorded side shares a replayed one")
			}
			second := in.same(false, &b)
			if shared := first == second; shared != tt.same {
				t.Fatalf("shared = %v, want %v", shared, tt.same)
			}
			if diff := cmp.Diff(b, *second); diff != "" {
				t.Fatalf("the side handed out says something else (-want +got):\n%s", diff)
			}
		})
	}
}
