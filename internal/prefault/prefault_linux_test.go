package prefault

import (
	"syscall"
	"testing"
)

func minorFaults(t *testing.T) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Skipf("getrusage: %v", err)
	}
	return ru.Minflt
}

// TestTouchedMemoryDoesNotFaultAgain: once Slice has touched fresh memory,
// reading and then writing every page of it faults on almost none, where
// untouched memory faults twice a page (a read maps the zero page, the
// write replaces it).
func TestTouchedMemoryDoesNotFaultAgain(t *testing.T) {
	const pages = 4096
	words := pages * int(pageSize) / 8
	s := make([]uint64, words)
	Slice(s)
	before := minorFaults(t)
	var sum uint64
	step := int(pageSize) / 8
	for i := 0; i < words; i += step {
		sum += s[i]
	}
	for i := 0; i < words; i += step {
		s[i] = sum + 1
	}
	if faults := minorFaults(t) - before; faults > pages/10 {
		t.Fatalf("%d faults reading and writing %d touched pages, want almost none", faults, pages)
	}
}
