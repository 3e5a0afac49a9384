package report

import (
	"slices"
	"testing"
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
