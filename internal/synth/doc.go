// Package synth generates agentfootprint 9.62.0 recordings of any size for
// benchmarks and memory tests, so that no large recording has to be committed.
//
// A Config describes the workload (runs per file, model calls per run, tool
// result sizes, window evictions, integrity findings, interleaving). The
// same Config always yields the same bytes: every value, wall clocks
// included, is derived from Config.Seed, never from the clock or the
// environment.
//
// Three writers cover the formats fpcheck reads:
//
//   - WriteNDJSON: format A, the standard-tier NDJSON stream of
//     fileObservability (no stream.token events).
//   - WriteRecordingJSON: format B, {snapshot, events, structure}, with an
//     engine snapshot as large and as deep as a real one (the execution tree
//     nests about ten levels per model call, so a 200-call run nests beyond
//     2,000 levels) and events that include stream.token.
//   - WriteEnvelope: format C, the agentfootprint.recording.v1 envelope,
//     pretty-printed with a 2-space indent like the library writes it.
//
// The writers stream: they hold one model call's worth of state per run, never
// the output, so a gigabyte can be produced in a few megabytes of memory.
// Sections of the snapshot that the format places before the events (the
// final shared state, the execution tree, the commit log) are produced by
// simulating the run again for each section, which is cheaper than keeping
// it.
package synth
