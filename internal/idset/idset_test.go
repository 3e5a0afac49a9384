package idset

import (
	"fmt"
	"testing"
)

// TestSetMatchesMap holds Set to a map across the size where it makes one.
func TestSetMatchesMap(t *testing.T) {
	for _, n := range []int{0, 1, few - 1, few, few + 1, 3 * few} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var s Set
			want := map[string]bool{}
			for i := range 2 * n {
				v := fmt.Sprint("id-", i%max(1, n))
				if got, fresh := s.Add(v), !want[v]; got != fresh {
					t.Fatalf("Add(%q) = %v, want %v", v, got, fresh)
				}
				want[v] = true
			}
			if s.Len() != len(want) {
				t.Fatalf("Len = %d, want %d", s.Len(), len(want))
			}
			for i := range n + 2 {
				v := fmt.Sprint("id-", i)
				if s.Has(v) != want[v] {
					t.Fatalf("Has(%q) = %v, want %v", v, s.Has(v), want[v])
				}
			}
		})
	}
}

// TestIndexFindsFirst: the first position of a repeated string, on both
// sides of the size where the index makes a map.
func TestIndexFindsFirst(t *testing.T) {
	for _, n := range []int{0, 1, 2 * few, 2*few + 1, 10 * few} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			list := make([]string, n)
			for i := range list {
				list[i] = fmt.Sprint("id-", i/2)
			}
			x := NewIndex(list)
			for i := range n/2 + 2 {
				v := fmt.Sprint("id-", i)
				got, ok := x.Of(v)
				want := 2 * i
				if want >= n {
					if ok || got != -1 {
						t.Fatalf("Of(%q) = %d, %v; want -1, false", v, got, ok)
					}
					continue
				}
				if !ok || got != want {
					t.Fatalf("Of(%q) = %d, %v; want %d, true", v, got, ok, want)
				}
			}
		})
	}
}
