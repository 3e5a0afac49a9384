package recording

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// StdinName is how standard input ("-") is named in Stats.Path and in
// messages.
const StdinName = "<stdin>"

// maxUnknownTypeKeys bounds the distinct keys of Stats.UnknownTypes, so a
// hostile input cannot grow it without end; the rest are counted under
// otherUnknownTypes.
const (
	maxUnknownTypeKeys = 1000
	otherUnknownTypes  = "(other unknown types)"
)

// Load reads one input ("-" = stdin) and calls fn for each run, in the
// order of the run's first event, and returns the input's loss accounting.
//
// Runs are handed over as they complete — a run is complete when its
// agentfootprint.integrity.disposition is read (always the last event of a
// run), or at the end of the input — so memory grows with the runs in
// flight, not with the file. To keep first-event order, a completed run
// waits until every run that started before it is handed over as well; for
// runs that do not interleave that is immediate.
//
// When path is a regular file with a sibling "<path>.1" and NoRotated is
// false, the sibling is the older half of a rotated NDJSON stream: it is
// read first, and the two files are one input (runs straddling the
// boundary join up). Stats.Path stays path; Stats.Rotated names the sibling.
// A sibling that cannot be read makes the input unreadable, as a read
// failure in path does.
//
// fn's error aborts loading and is returned as is. An input that cannot be
// read at all returns a *InputError. Stats is never nil: on error it holds
// what was read so far.
func Load(path string, opts Options, fn func(*Run) error) (*Stats, error) {
	if path == "-" {
		return LoadReader("-", os.Stdin, opts, fn)
	}
	opts = opts.withDefaults()
	l := newLoader(path, opts, fn)
	fi, err := os.Stat(path)
	if err != nil {
		return l.stats, &InputError{Path: path, Err: unwrapPathError(err)}
	}
	if werr := walkError(path); werr != nil {
		return l.stats, &InputError{Path: path, Err: werr}
	}
	if fi.IsDir() {
		return l.stats, &InputError{Path: path, Err: errors.New("is a directory (directories are expanded into their files before loading)")}
	}
	f, err := os.Open(path)
	if err != nil {
		return l.stats, &InputError{Path: path, Err: unwrapPathError(err)}
	}
	defer f.Close()
	if err := recheckWalked(path, f); err != nil {
		return l.stats, &InputError{Path: path, Err: err}
	}
	main, err := openSource(path, f, opts)
	if err != nil {
		l.failedSource(main)
		return l.stats, err
	}
	defer main.release()
	if fi.Mode().IsRegular() && main.compression == "none" && main.format != FormatNDJSON {
		l.docSize = fi.Size()
	}
	// A large document is validated on two cores (see speculator); read
	// on one, it takes a core that comes free while it is walked
	// (Options.Spare) for the speculator, and for the events' decoders if
	// the events are still to come.
	var bom int64
	if main.bom {
		bom = 3
	}
	size := fi.Size() - bom
	large := fi.Mode().IsRegular() && fi.Size() >= opts.specMinSize &&
		main.compression == "none" && main.format != FormatNDJSON && main.format != FormatEmpty
	switch {
	case large && opts.Workers > 1:
		l.spec = newSpeculator(f, bom, size, opts.specChunk)
	case large && opts.Workers == 1 && opts.Spare != nil:
		l.lateSpec = func(at int64) *speculator {
			n := l.opts.Spare()
			if n <= 0 {
				return nil
			}
			l.opts.Workers += n
			l.spec = speculateFrom(f, bom, size, l.opts.specChunk, lateFrom(at, size))
			return l.spec
		}
	}
	defer func() {
		if l.spec != nil {
			l.spec.close() // before f is closed
		}
	}()

	var older *source
	if !opts.NoRotated && fi.Mode().IsRegular() {
		rp := path + ".1"
		if rfi, err := os.Stat(rp); err == nil && rfi.Mode().IsRegular() {
			if main.format != FormatNDJSON && main.format != FormatEmpty {
				l.probs.add("rotated", 0, fmt.Sprintf("%s was not read: a rotated sibling <path>.1 belongs to an NDJSON stream, and %s is a %s document", safePath(rp), safePath(path), main.format))
			} else if lfi, err := os.Lstat(rp); err == nil && lfi.Mode()&os.ModeSymlink != 0 && !linkStaysInside(rp, realDir(path)) {
				l.probs.add("rotated", 0, fmt.Sprintf("%s was not read: it is a symbolic link to a file outside the directory of %s, and only a real rotated half is read with its stream", safePath(rp), safePath(path)))
			} else {
				rf, err := os.Open(rp)
				if err != nil {
					return l.stats, &InputError{Path: rp, Err: fmt.Errorf("cannot read the rotated sibling of %s: %w", safePath(path), unwrapPathError(err))}
				}
				defer rf.Close()
				older, err = openSource(rp, rf, opts)
				if err != nil {
					// The older half is the start of the one input: a
					// failure to open it leaves the input unreadable, as a
					// failure further into it does (readNDJSON), rather
					// than judging the newer half as if it were the whole.
					l.stats.Rotated, l.stats.Format = rp, FormatNDJSON
					return l.finish(rotatedOpenError(err, rp, path))
				}
				defer older.release()
				if older.format != FormatNDJSON && older.format != FormatEmpty {
					l.probs.add("rotated", 0, fmt.Sprintf("%s was not read: it sits where the rotated half of %s would, but is a %s document, not an NDJSON stream", safePath(rp), safePath(path), older.format))
					older = nil
				}
			}
		}
	}
	if older != nil {
		l.stats.Rotated = older.name
		if older.compression != main.compression {
			l.probs.add("rotated", 0, fmt.Sprintf("%s is %s-compressed and %s is %s-compressed; both were read", safePath(older.name), older.compression, safePath(path), main.compression))
		}
		l.stats.Compression = main.compression
		l.stats.Format = FormatNDJSON
		if err := l.readNDJSON(older, true); err != nil {
			return l.finish(err)
		}
		if err := l.readNDJSON(main, false); err != nil {
			return l.finish(err)
		}
		return l.finish(nil)
	}
	return l.finish(l.read(main))
}

// LoadReader is Load over an already-open stream; name is used in
// messages ("-" is shown as StdinName). No rotated sibling is looked for.
func LoadReader(name string, r io.Reader, opts Options, fn func(*Run) error) (*Stats, error) {
	if name == "-" || name == "" {
		name = StdinName
	}
	opts = opts.withDefaults()
	l := newLoader(name, opts, fn)
	src, err := openSource(name, r, opts)
	if err != nil {
		l.failedSource(src)
		return l.stats, err
	}
	defer src.release()
	return l.finish(l.read(src))
}

// rotatedOpenError is the error of a rotated half that could not be
// opened. One that is no recording at all says so without wrapping
// ErrNotRecording: that is said of the older half, and a directory walk
// would take it for the input's own and skip the newer half as no
// recording.
func rotatedOpenError(err error, rp, path string) error {
	if !errors.Is(err, ErrNotRecording) {
		return err
	}
	return &InputError{Path: rp, Err: fmt.Errorf("it sits where the rotated half of %s would, but is %s", safePath(path), errorText(err, rp))}
}

// realDir is the directory of path with symbolic links resolved.
func realDir(path string) string {
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return filepath.Dir(path)
	}
	return dir
}

// failedSource keeps what is known of an input that could not be opened:
// its compression, so a report says "zstd" rather than "uncompressed" for a
// corrupt zstd file.
func (l *loader) failedSource(src *source) {
	if src != nil {
		l.stats.Compression = src.compression
	}
}

// errorText is an input error's message without the file name in front,
// for a sentence that names the file itself.
func errorText(err error, path string) string {
	var ie *InputError
	if errors.As(err, &ie) && ie.Path == path {
		msg := ie.Err.Error()
		if ie.Line > 0 {
			msg = fmt.Sprintf("line %d: %s", ie.Line, msg)
		}
		return msg
	}
	return err.Error()
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// loader holds the state of loading one input.
type loader struct {
	name      string
	opts      Options
	stats     *Stats
	probs     problemLog
	losses    lossLog
	split     *splitter
	nextIndex int64 // Index of the next NDJSON event
	snapshot  *SnapshotFacts
	spec      *speculator // for a large document, see speculator
	// lateSpec starts a speculator for a large document read on one core
	// once a core comes free (see scanner.lend); nil otherwise.
	lateSpec func(at int64) *speculator
	// docSize is the byte size of a document read from a regular,
	// uncompressed file, 0 otherwise (see docWalker.events).
	docSize int64
	dec     eventDecoder // for events decoded on the loader's goroutine
	// runStop is the first run stopped at a limit of its own (see
	// RunStop), the load's error once every other run is handed over.
	runStop *InputError
	// stopLines, when not negative, is the line on which the event that
	// stopped a document's load ends (see eventPipe).
	stopLines int64
	// stopLine is the line reading stopped on when it failed part-way;
	// 0 when not known, or in a document of one line, where it says
	// nothing (see where).
	stopLine int64
}

func newLoader(name string, opts Options, fn func(*Run) error) *loader {
	return &loader{
		name: name,
		opts: opts,
		stats: &Stats{
			Path:         name,
			Compression:  "none",
			UnknownTypes: map[string]int64{},
			WrongTypes:   map[string]int64{},
			Problems:     []Problem{},
		},
		split:     newSplitter(name, opts.MaxEventsPerRun, fn).withMaxBytes(opts.MaxRunBytes).withMaxInFlight(opts.MaxRunsInFlight),
		dec:       eventDecoder{legacy: legacyCodec, verdicts: verdicts{eager: opts.eagerVerdicts}},
		stopLines: -1,
	}
}

// workerDecoder is a decoder for a worker goroutine: it decodes as the
// loader's own does (legacy, alias), with caches of its own.
func (l *loader) workerDecoder() eventDecoder {
	return eventDecoder{legacy: l.dec.legacy, alias: l.dec.alias, verdicts: verdicts{eager: l.opts.eagerVerdicts}}
}

// read dispatches one source by its sniffed format.
func (l *loader) read(src *source) error {
	l.stats.Format = src.format
	if src.format == formatPacked {
		// A packed recording reads as the plain one it stands for.
		l.stats.Format = FormatRecording
	}
	l.stats.Compression = src.compression
	switch src.format {
	case FormatEmpty:
		return nil
	case FormatNDJSON:
		return l.readNDJSON(src, false)
	default:
		return l.readDocument(src)
	}
}

// finish hands over the runs still in flight and closes the accounting.
// A callback's error comes back unchanged.
func (l *loader) finish(err error) (*Stats, error) {
	_, stoppedByCallback := errors.AsType[*callbackError](err)
	switch {
	case err == nil:
		if l.snapshot != nil {
			if r := l.split.lastRun(); r != nil {
				r.Snapshot = l.snapshot
			}
		}
		err = l.split.flush(true)
	case !stoppedByCallback:
		// Reading stopped part-way: the runs it cut short are handed over
		// as far as they were read, each charged with a loss, so that
		// every event read is in a run and none of those runs is judged
		// as if it were whole.
		for _, id := range l.split.cutShort() {
			l.losses.add("unread", l.stopLine, id)
		}
		if ferr := l.split.flush(true); ferr != nil {
			err = ferr
		}
	}
	if err == nil && l.runStop != nil {
		err = l.runStop
	}
	l.stats.Problems = l.probs.finish()
	l.stats.Losses = l.losses.finish()
	var cb *callbackError
	if errors.As(err, &cb) {
		return l.stats, cb.err
	}
	return l.stats, err
}

// where locates an event for messages: a line, an index in a document's
// events array, or both; rotated marks the older file of a rotated pair.
type where struct {
	line    int64
	index   int64 // -1: not in an array
	rotated string
}

// String is the location as a message prefix. In the older file of a
// rotated pair the line is left out: the message
// names that file, and the problem's Line field carries its line (a
// "line N" right after the name would read as a line of the newer file
// once a reader puts Line in front).
func (w where) String() string {
	var sb strings.Builder
	if w.rotated != "" {
		sb.WriteString(safePath(w.rotated))
	} else if w.line > 0 {
		fmt.Fprintf(&sb, "line %d", w.line)
	}
	if w.index >= 0 {
		if sb.Len() > 0 {
			sb.WriteString(": ")
		}
		fmt.Fprintf(&sb, "events[%d]", w.index)
	}
	return sb.String()
}

// account states what decoding one event found, in input order.
func (l *loader) account(r *decodedEvent, w where) (bool, error) {
	if r.err != nil {
		return false, r.err
	}
	if r.invalidUTF8 {
		l.stats.InvalidUTF8++
		l.probs.add("invalid UTF-8", w.line, fmt.Sprintf("%s: invalid UTF-8 replaced with U+FFFD", w))
	}
	if r.dups != nil {
		l.reportDuplicateKeys(*r.dups, w, &r.ev)
	}
	if id := r.ev.Meta.RunID; r.notes.InvalidRunID && l.split.live[id] == nil && l.split.segments[id] == 0 {
		l.probs.add("invalid run id", w.line, fmt.Sprintf("%s: meta.runId %s is not valid text (invalid UTF-8 or a lone surrogate); runs are told apart by its exact bytes, so ids that only look alike are different runs", w, quoteName(id)))
	}
	for _, f := range r.notes.WrongTypes {
		l.stats.WrongTypes[f]++
		l.probs.add("wrong type", w.line, fmt.Sprintf("%s: %s has the wrong JSON type for %s; read as absent", w, f, quoteName(r.ev.Type)))
	}
	return true, nil
}

func (l *loader) reportDuplicateKeys(kc keyCounts, w where, ev *Event) {
	report := func(key string, n int, kept string) {
		if n > 1 {
			l.probs.add("duplicate key", w.line, fmt.Sprintf("%s: key %q appears %d times; %s", w, key, n, kept))
		}
	}
	report("type", kc.typ, "the last value ("+quoteName(ev.Type)+") was kept")
	report("payload", kc.payload, "the last value was kept")
	// Repeated meta objects are read into one meta, member by member: a
	// later member replaces an earlier one of the same name, and a member
	// that is null or absent later leaves the earlier value standing.
	report("meta", kc.meta, "their members were merged, a later member replacing an earlier one of the same name")
	report("meta.runId", kc.runID, "the last value ("+quoteName(ev.Meta.RunID)+") was kept")
}

// accept counts a decoded event and puts it in its run.
func (l *loader) accept(ev Event, w where) error {
	l.stats.Events++
	if !KnownType(ev.Type) {
		key := ev.Type
		if len(key) > 200 {
			key = key[:200] + "…"
		}
		if _, ok := l.stats.UnknownTypes[key]; !ok && len(l.stats.UnknownTypes) >= maxUnknownTypeKeys {
			key = otherUnknownTypes
		}
		l.stats.UnknownTypes[key]++
	}
	switch ev.Meta.RunID {
	case "":
		l.stats.Orphans++
		l.probs.add("no runId", w.line, fmt.Sprintf("%s: %s event has no meta.runId; counted, but in no run", w, quoteName(ev.Type)))
		return nil
	case ConsumerScope:
		l.stats.ConsumerScope++
		return nil
	}
	continued, err := l.split.add(ev)
	if continued {
		l.probs.add("after disposition", w.line, fmt.Sprintf("%s: run %s has events after its integrity.disposition; they are handed over as a further segment of the run", w, quoteName(ev.Meta.RunID)))
	}
	if err != nil {
		var cb *callbackError
		if errors.As(err, &cb) {
			return err
		}
		path := l.name
		if w.rotated != "" {
			path = w.rotated
		}
		_, stopped := errors.AsType[*RunStop](err)
		if w.index >= 0 {
			err = fmt.Errorf("events[%d]: %w", w.index, err)
		}
		ie := &InputError{Path: path, Line: w.line, Err: err}
		if !stopped {
			l.stopLine = w.line
			return ie
		}
		// One run past its own limit stops alone: the input's other
		// runs are read and judged, and the load ends with the first
		// such stop.
		l.stats.StoppedRuns = append(l.stats.StoppedRuns, StoppedRun{RunID: ev.Meta.RunID, Line: w.line, Message: ie.Error()})
		if l.runStop == nil {
			l.runStop = ie
		}
	}
	return nil
}
