//go:build !unix

package replay

import "time"

// benchCPUTime is not measured here; the cpu-MB/s metric is then left out.
func benchCPUTime() time.Duration { return 0 }
