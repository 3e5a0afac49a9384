// Command fpcheck reads recordings of agentfootprint agent runs, replays them
// through Go ports of the framework's Context Integrity checks, and reports
// what the live run filed, what the checks find now, and which absences of
// evidence stand between the two.
package main

import "os"

func main() {
	if code, ok := supervise(os.Args[1:]); ok {
		os.Exit(code)
	}
	memLimit.start()
	os.Exit(Main(os.Args[1:], System()))
}
