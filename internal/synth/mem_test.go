package synth

import "runtime"

type runtimeMem = runtime.MemStats

func readMem(m *runtime.MemStats) { runtime.ReadMemStats(m) }
