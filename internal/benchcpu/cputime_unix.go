//go:build unix

package benchcpu

import (
	"syscall"
	"time"
)

// processTime is the user and system CPU time of the process so far.
func processTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
