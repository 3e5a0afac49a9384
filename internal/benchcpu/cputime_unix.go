//go:build unix

package benchcpu

import (
	"os"
	"runtime"
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

// MaxRSS is this process's peak resident set in bytes, or 0 when unknown.
func MaxRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return rssBytes(&ru)
}

// ChildMaxRSS is an ended child's peak resident set in bytes, or 0 when
// unknown.
func ChildMaxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	return rssBytes(ru)
}

// rssBytes reads ru_maxrss, which Darwin gives in bytes and the other
// systems in KiB.
func rssBytes(ru *syscall.Rusage) int64 {
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) << 10
}
