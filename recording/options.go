package recording

// Options bound what the loader accepts; zero values mean the documented
// defaults.
type Options struct {
	// MaxLineBytes caps one NDJSON line (and one event of a recording
	// document); a longer one is an error naming the line and the limit.
	// Default 256 MiB.
	MaxLineBytes int64
	// MaxDecompressedBytes caps what a compressed input may expand to, so a
	// decompression bomb stops with an error naming the limit. Default 8 GiB.
	MaxDecompressedBytes int64
	// MaxEventsPerRun caps the events of one run; more is an error naming
	// the run and the limit. Default 5,000,000.
	MaxEventsPerRun int
	// NoRotated turns off the rotated-pair rule: by default a sibling
	// "<path>.1" of an NDJSON stream is read before "<path>", as one input.
	NoRotated bool
	// MaxNesting caps how deeply a recording document may nest. Real
	// snapshots nest thousands of levels (about ten per agent iteration);
	// the cap only stops hostile input. Default 100,000.
	MaxNesting int
}

// Defaults of Options.
const (
	DefaultMaxLineBytes         int64 = 256 << 20
	DefaultMaxDecompressedBytes int64 = 8 << 30
	DefaultMaxEventsPerRun            = 5_000_000
	defaultMaxNesting                 = 100_000
	// DefaultMaxNesting is the default of Options.MaxNesting.
	DefaultMaxNesting = defaultMaxNesting
	// MaxZstdWindow is the largest zstd window the loader accepts (what
	// "zstd --long" writes by default); a bigger one would need that much
	// memory before a single byte is decoded.
	MaxZstdWindow = 128 << 20
)

func (o Options) withDefaults() Options {
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.MaxDecompressedBytes <= 0 {
		o.MaxDecompressedBytes = DefaultMaxDecompressedBytes
	}
	if o.MaxEventsPerRun <= 0 {
		o.MaxEventsPerRun = DefaultMaxEventsPerRun
	}
	if o.MaxNesting <= 0 {
		o.MaxNesting = defaultMaxNesting
	}
	return o
}
