package synth

import (
	"errors"
	"fmt"
)

// Config describes the recording to generate. Zero Runs, Iterations and
// ToolResultBytes mean 1 run, 8 model calls and 2 KiB results, a small quick
// recording (DefaultConfig is the realistic long one); negative values are
// refused.
type Config struct {
	// Runs is the number of runs (distinct meta.runId) in the file.
	Runs int
	// Iterations is the number of model calls per run: Iterations-1 calls
	// that request tools, then one final answer.
	Iterations int
	// ToolResultBytes is the typical size of one tool result, in bytes.
	ToolResultBytes int
	// LongResultEvery makes every Nth tool result of a run long, between
	// 32 KiB and 1 MiB (0 = never).
	LongResultEvery int
	// Evictions puts a sliding window (two recent turns kept) on the run, so
	// context.evicted events remove earlier messages by content hash.
	Evictions bool
	// Findings arms the argumentsFrom check on backup_status and makes the
	// provider's wire manifest disagree on the first call, so each run files
	// integrity.context_error events (invariant-violation @wire, and with
	// Evictions dangling-reference @compose). Every run ends with an
	// integrity.disposition either way.
	Findings bool
	// Interleave interleaves the events of runs two by two, as two agents
	// writing one file do.
	Interleave bool
	// SessionID, when set, is stamped as meta.sessionId on every event.
	SessionID string
	// Seed selects the content, the clocks and the interleaving.
	Seed int64
}

// Defaults for zero Config fields.
const (
	defaultIterations      = 8
	defaultToolResultBytes = 2048
)

// DefaultConfig is one realistic long run: 200 model calls under a sliding
// window, with findings, and tool results of about 4.5 KB. Its recording
// JSON is about 83 MB, the size of a real 200-call agentfootprint
// recording; its NDJSON stream is about 9.5 MB.
func DefaultConfig() Config {
	return Config{
		Runs:            1,
		Iterations:      200,
		ToolResultBytes: 4608,
		LongResultEvery: 0,
		Evictions:       true,
		Findings:        true,
		Seed:            1,
	}
}

// normalize applies the defaults and refuses what cannot be generated.
func (c Config) normalize() (Config, error) {
	switch {
	case c.Runs < 0:
		return c, fmt.Errorf("synth: Runs must be 0 (one run) or more, not %d", c.Runs)
	case c.Iterations < 0:
		return c, fmt.Errorf("synth: Iterations must be 0 (the default) or more, not %d", c.Iterations)
	case c.ToolResultBytes < 0:
		return c, fmt.Errorf("synth: ToolResultBytes must be 0 (the default) or more, not %d", c.ToolResultBytes)
	case c.LongResultEvery < 0:
		return c, fmt.Errorf("synth: LongResultEvery must be 0 (never) or more, not %d", c.LongResultEvery)
	}
	if c.Runs == 0 {
		c.Runs = 1
	}
	if c.Iterations == 0 {
		c.Iterations = defaultIterations
	}
	if c.ToolResultBytes == 0 {
		c.ToolResultBytes = defaultToolResultBytes
	}
	for _, r := range c.SessionID {
		if r < 0x20 {
			return c, errors.New("synth: SessionID must not hold control characters")
		}
	}
	return c, nil
}
