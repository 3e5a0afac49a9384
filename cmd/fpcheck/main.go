// Command fpcheck reads recordings of agentfootprint agent runs, replays them
// through Go ports of the framework's Context Integrity checks, and reports
// what the live run filed, what the checks find now, and which absences of
// evidence stand between the two.
package main

import (
	"os"
	"runtime/debug"
)

// softMemoryLimit keeps fpcheck's footprint near its live data. CI machines
// are small, and the collector's default headroom lets the heap grow to
// twice what is live before it collects; under this soft limit it collects
// earlier instead (and gives up the limit rather than thrash when the live
// data really is larger). A GOMEMLIMIT set in the environment wins.
const softMemoryLimit = 80 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
	os.Exit(Main(os.Args[1:], System()))
}
