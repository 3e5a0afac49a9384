//go:build unix

package jsonfast

import (
	"syscall"
	"time"
)

// cpuTime is the user and system CPU time of the process so far: on a
// machine shared with other work it measures a benchmark's cost where wall
// time measures its luck.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
