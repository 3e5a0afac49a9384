// Package recording turns agentfootprint recordings into ordered runs of
// events. It sniffs the format by content (NDJSON event stream, recording
// JSON, the agentfootprint.recording.v1 envelope, a recording stored as an
// artifact), undoes zstd and gzip by magic bytes, streams NDJSON line by line,
// splits events into runs by meta.runId and accounts for every input line:
// decoded, blank, skipped as an unknown type, or malformed.
//
// Everything streams, because recordings are large and CI machines are
// small: NDJSON is read a line at a time and runs are handed to the caller
// as they complete; recording documents are walked key by key with a small
// tokenizer that skips the engine snapshot (the bulk of a recording, nested
// thousands of levels deep) while picking out the few facts a replay needs.
//
// Reading is fast because decoding JSON is nearly all of its cost:
// internal/jsonfast validates each event while picking its members, and
// skips the snapshot a word at a time; encoding/json decodes only the rare
// event of an unusual shape, so its answers and messages remain the
// loader's. Events are decoded on Options.Workers goroutines and accounted
// for in input order, so the result does not depend on the number.
//
// Expand turns command-line arguments into inputs; Load and LoadReader read
// one input each. docs/recording-format.md describes the rules for users.
package recording
