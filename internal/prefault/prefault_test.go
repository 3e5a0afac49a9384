package prefault

import (
	"bytes"
	"testing"
	"unsafe"
)

// TestMemoryLeavesEveryByte: whatever the start's alignment and the
// length, touching changes nothing.
func TestMemoryLeavesEveryByte(t *testing.T) {
	size := 3*int(pageSize) + 17
	want := make([]byte, size)
	for i := range want {
		want[i] = byte(i*7 + 3)
	}
	for _, tc := range []struct{ off, n int }{
		{0, 0}, {0, 1}, {0, 3}, {0, 4}, {1, 4}, {3, 5}, {1, 7},
		{0, size}, {1, size - 1}, {2, size - 2}, {5, int(pageSize)}, {int(pageSize) - 2, 6},
		{int(pageSize) - 1, 2*int(pageSize) + 3},
	} {
		got := bytes.Clone(want)
		Memory(unsafe.Pointer(&got[tc.off]), uintptr(tc.n))
		if !bytes.Equal(got, want) {
			t.Fatalf("Memory at %d, %d bytes, changed the memory", tc.off, tc.n)
		}
	}
	Memory(nil, 64)
}

// TestSlice: the whole backing array, its unused capacity included, is
// touched and left as it was; an empty slice is nothing to touch.
func TestSlice(t *testing.T) {
	Slice[int](nil)
	Slice(make([]*int, 0))
	x := 42
	s := make([]*int, 1, 3*int(pageSize)/8)
	s[0] = &x
	Slice(s)
	if s[0] != &x || *s[0] != 42 {
		t.Fatal("Slice changed an element")
	}
	for i, p := range s[1:cap(s)] {
		if p != nil {
			t.Fatalf("Slice changed unused capacity at %d", i+1)
		}
	}
}
