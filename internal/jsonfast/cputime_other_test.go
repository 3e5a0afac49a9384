//go:build !unix

package jsonfast

import "time"

// cpuTime is not measured here; the cpu-MB/s metric is then left out.
func cpuTime() time.Duration { return 0 }
