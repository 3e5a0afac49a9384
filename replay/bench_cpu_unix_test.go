//go:build unix

package replay

import (
	"syscall"
	"time"
)

// benchCPUTime is the process's user and system CPU time: on a busy
// machine it measures a benchmark's cost where wall time measures its luck.
func benchCPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
