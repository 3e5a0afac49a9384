// Package report turns a run's integrity evidence into fpcheck's
// find_context_errors report: one model (Build) that states, per input, what
// was read and lost, and per run, what the live integrity checks filed and
// what their disposition ledger proves about which checks ran; one mapping
// from that model to an exit code (Report.ExitCode); and renderers, one per
// output format, behind one Renderer interface.
//
// The model never lets an absence read as health. No event tail, a tail
// without integrity events, no ledger, no check registered, a registered
// check that checked nothing: each is its own coverage state with its own
// sentence and an unmeasured verdict, and every green carries its bound.
// Advisories are counted apart from defects and synthetic canaries are
// quarantined from every count.
//
// Strings from recordings are kept raw in the model; the text renderer
// passes every line through Sanitize before it reaches a terminal.
package report
