package recording

import "runtime"

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
	// MaxRunBytes caps the bytes one run keeps in memory until it is
	// handed over: the payloads kept (see PayloadFilter) and each event's
	// own record, or, for a run folded as it is read (see Fold), what its
	// fold keeps. More is an error naming the run, the line and the
	// limit. Default 512 MiB.
	MaxRunBytes int64
	// MaxRunsInFlight caps the runs of one input held at once: started
	// and not yet handed over (still being read, or ended and waiting for
	// an earlier run, see Release). A run that would start past it stops
	// the input, named with its line and the limit: runs that never end
	// (no integrity.disposition) are all held until the input ends, so a
	// stream of a million of them would otherwise hold a million runs.
	// Default 100,000.
	MaxRunsInFlight int
	// MaxPackedExpansion caps the plain JSON a packed recording may stand
	// for, measured on its packed form before anything is expanded; it also
	// caps the packed form itself, which is held in memory while it is
	// read. Default 8 GiB (DefaultMaxPackedExpansion).
	MaxPackedExpansion int64
	// NoRotated turns off the rotated-pair rule: by default a sibling
	// "<path>.1" of an NDJSON stream is read before "<path>", as one input.
	NoRotated bool
	// MaxNesting caps how deeply a recording document may nest. Real
	// snapshots nest thousands of levels (about ten per agent iteration);
	// the cap only stops hostile input. Default 100,000.
	MaxNesting int
	// Workers is the number of cores the loader may keep busy decoding
	// events (the lines of an NDJSON stream, the elements of a document's
	// events array) while the input is read on; 0 means GOMAXPROCS, and 1
	// decodes on the caller's goroutine alone. (A stream runs one decoder
	// goroutine more than Workers, which yield to each other; see
	// readNDJSONParallel.) Whatever the number, events are accounted for
	// in input order, so Stats, problems and runs are the same; only the
	// time differs. A caller that loads several inputs at once may want
	// fewer per input.
	Workers int
	// Spare, when non-nil, lends cores that have come free to a stream
	// read on one core (Workers 1): every few hundred lines the loader asks
	// how many it may have, and once the answer is above 0 the rest of the
	// input is decoded as with Workers 1 plus that many, the cores the
	// input's until it ends. The result is the same either way. A caller
	// that loads several inputs at once can hand the cores of the inputs
	// that have ended to those still being read. A large uncompressed
	// recording document asks too, every megabyte it validates: with a
	// core, it validates the rest of the file on two (see speculator), and
	// decodes its events, if they are still to come, on the cores it has.
	Spare func() int
	// PayloadFilter, when non-nil, lets a consumer that reads only some
	// payloads spare the loader keeping the rest: most of a stream's bytes
	// are payloads (message text copied into several events) that a
	// consumer may never look at. It is called once per run of an event
	// stream, with the run's first event, and the function it returns is
	// asked for each event of that run, the first one included; false
	// drops the event's payload (Payload nil, PayloadDropped true). A
	// dropped payload is still decoded, validated and accounted for like
	// any other; only its bytes are not kept. A nil function keeps every
	// payload of the run. A recording document's runs are filtered by
	// DocumentPayloadFilter instead.
	PayloadFilter func(first *Event) func(typ string) bool
	// DocumentPayloadFilter is PayloadFilter for the runs of a recording
	// document. What the document holds besides its events (a snapshot)
	// may come after them and is only known at its end, so its consumer's
	// filter must keep what any of it could lead the consumer to read.
	// Nil keeps every payload.
	DocumentPayloadFilter func(first *Event) func(typ string) bool
	// Release, when non-nil, lets the runs of an event stream go as soon
	// as their own last event is read, instead of in the order of their
	// first events: a run that never ends (a killed writer, a stream
	// without ledgers) then holds only itself, not every run after it.
	// It is asked once per run, with the run's first event: a run it
	// calls ordered waits for the earlier ordered runs of the same group
	// to be handed over before it, one it does not goes when it ends.
	// The runs still in flight at the end of the input are handed over
	// in first-event order; Run.Seq says where each run stands. A
	// recording document's runs are handed over in order whatever
	// Release says: its snapshot, which may come after its events,
	// belongs to its last run.
	Release func(first *Event) (group string, ordered bool)
	// Fold, when non-nil, folds each run instead of collecting it: the
	// loader asks it for a run's fold when the run may start (at its first
	// event, or for a run Release calls ordered, once the earlier ordered
	// runs of its group are handed over; see StartLate for runs that start
	// later), feeds the fold each event of the
	// run as it is read, and ends it where the run would be handed over.
	// A live run keeps no events of its own: what it costs is what its
	// fold says it keeps (RunFold.Kept), held to MaxRunBytes. The events of
	// a run that may not start yet, and of a recording document's runs
	// (whose snapshot is known only at the document's end), are collected
	// as without Fold and fed to the fold when it starts, with Run.Events
	// set. The loader's callback is then called with the run, its Events
	// nil, after the fold has ended.
	Fold func(run *Run) (RunFold, error)
	// StartLate, when non-nil, is asked of a run of a stream, with its
	// first event, when the run must wait for the earlier ordered runs of
	// its group (Release) or starts while more than LateInFlight runs are
	// in flight (0 is DefaultLateInFlight, a negative number none): true lets the run's fold start
	// once the run has collected LateFoldBytes of events (0 is
	// DefaultLateFoldBytes), or when it is handed over, rather than at
	// once. Among many runs in flight, a run of a few events costs less
	// collected than folded (a fold's state is kilobytes); elsewhere
	// collecting only costs a copy of each payload kept. The caller
	// answers true only for a run whose fold will fail on none of its
	// events. A late run that waits has its fold started at that size all
	// the same and, when the fold is a BookFold, fed every event up to the
	// first one that AsksBook; that event and the rest are collected until
	// the run may start. Events collected count against MaxRunBytes,
	// beside what the fold keeps.
	StartLate     func(first *Event) bool
	LateFoldBytes int64
	LateInFlight  int

	// batchLines and batchBytes bound one batch of lines handed to a
	// worker (defaults 256 lines, 1 MiB), and inFlightBytes the batches
	// of a stream in flight (default 16 MiB); tests make them small.
	batchLines    int
	batchBytes    int
	inFlightBytes int
	// spareLines is how many lines a stream read on one core goes between
	// asking Spare for more (default a batch's worth, so that the question
	// costs nothing beside the lines); tests make it small.
	spareLines int
	// spareBytes is how many bytes a large document walked on one core
	// validates between asking Spare for a core (default spareBytes);
	// tests make it small.
	spareBytes int64
	// eagerVerdicts starts the decoders' verdict caches at the first
	// line instead of after verdictWarmup bytes (tests).
	eagerVerdicts bool
	// specMinSize and specChunk are the smallest document the speculator
	// runs on and its chunk size (defaults specMinSize, specChunk); tests
	// make them small.
	specMinSize int64
	specChunk   int
}

// Defaults of Options.
const (
	DefaultMaxLineBytes         int64 = 256 << 20
	DefaultMaxDecompressedBytes int64 = 8 << 30
	DefaultMaxEventsPerRun            = 5_000_000
	DefaultMaxRunBytes          int64 = 512 << 20
	DefaultMaxRunsInFlight            = 100_000
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
	if o.MaxPackedExpansion <= 0 {
		o.MaxPackedExpansion = DefaultMaxPackedExpansion
	}
	if o.MaxEventsPerRun <= 0 {
		o.MaxEventsPerRun = DefaultMaxEventsPerRun
	}
	if o.MaxRunBytes <= 0 {
		o.MaxRunBytes = DefaultMaxRunBytes
	}
	if o.MaxRunsInFlight <= 0 {
		o.MaxRunsInFlight = DefaultMaxRunsInFlight
	}
	if o.MaxNesting <= 0 {
		o.MaxNesting = defaultMaxNesting
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.batchLines <= 0 {
		o.batchLines = defaultBatchLines
	}
	if o.batchBytes <= 0 {
		o.batchBytes = defaultBatchBytes
	}
	if o.inFlightBytes <= 0 {
		o.inFlightBytes = defaultInFlightBytes
	}
	if o.spareLines <= 0 {
		o.spareLines = defaultBatchLines
	}
	if o.spareBytes <= 0 {
		o.spareBytes = spareBytes
	}
	if o.specMinSize <= 0 {
		o.specMinSize = specMinSize
	}
	if o.specChunk <= 0 {
		o.specChunk = specChunk
	}
	return o
}

// testHook, when a test sets it, is called at the start of the loader's
// helper goroutines' work (stage names it), so a test can make one panic.
var testHook = func(stage string) {}
