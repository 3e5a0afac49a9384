//go:build !unix

package benchcpu

import (
	"os"
	"time"
)

// processTime is not measured here; the cpu-MB/s metric is then left out.
func processTime() time.Duration { return 0 }

// MaxRSS is not measured here.
func MaxRSS() int64 { return 0 }

// ChildMaxRSS is not measured here.
func ChildMaxRSS(*os.ProcessState) int64 { return 0 }
