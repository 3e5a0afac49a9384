// Package prefault makes the first access to memory that is about to be
// written a write.
//
// Linux maps a page of fresh anonymous memory that is first read to the
// shared zero page, and gives it a page of its own only at the first
// write, by copying it; replacing that mapping flushes the page from the
// TLB of every CPU the process runs on, through an interrupt to each of
// them, which on a virtual machine traps to the hypervisor. Go hands out
// fresh memory unread, but a large array with pointers is read before it
// is written whenever the collector scans it (the whole array, its unused
// capacity included), and a table is read by its own lookups. Writing to
// each page first costs one fault per page instead of two and no flush.
package prefault

import (
	"os"
	"sync/atomic"
	"unsafe"
)

var pageSize = uintptr(os.Getpagesize())

// Memory makes the first access to each page of the n bytes at p a write,
// and leaves every byte as it was: each page gets an atomic add of zero,
// which the CPU performs as a write even though nothing changes, and which
// a concurrent reader (the collector) sees as the value it had.
func Memory(p unsafe.Pointer, n uintptr) {
	const word = unsafe.Sizeof(uint32(0))
	if p == nil || n < word {
		return
	}
	start := uintptr(p)
	// The first word at or after p, then the first word of each page.
	off := (start+word-1)&^(word-1) - start
	for off+word <= n {
		atomic.AddUint32((*uint32)(unsafe.Add(p, off)), 0)
		next := (start+off+pageSize)&^(pageSize-1) - start
		off = next
	}
}

// Slice is Memory over the whole backing array of s, its unused capacity
// included.
func Slice[T any](s []T) {
	if cap(s) == 0 {
		return
	}
	var zero T
	Memory(unsafe.Pointer(unsafe.SliceData(s)), uintptr(cap(s))*unsafe.Sizeof(zero))
}
