//go:build !unix

package benchcpu

import "time"

// processTime is not measured here; the cpu-MB/s metric is then left out.
func processTime() time.Duration { return 0 }
