package report

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

// A saved JSON report is an input in its own right: `fpcheck merge` and
// `fpcheck diff` read the evidence it carries and judge it again with Build,
// so a report rebuilt from shards is, by construction, the report one
// invocation over every input would have given. The rendered sections
// (inputs, runs, …) are never read back: a count there can be edited, the
// evidence it was derived from is what gets judged.

// EvidenceVersion is the version of the "evidence" section of the JSON
// report. It changes when a field of the evidence is renamed, removed or
// changes meaning; a report carrying another version is refused by name.
const EvidenceVersion = 1

// Provenance is how a report's evidence was produced: what it was judged
// with, and which part of a larger set of inputs it holds.
type Provenance struct {
	// Declarations is "sha256:<hex>" of the declarations file the runs were
	// replayed with, empty for none; Posture is the replay's posture.
	Declarations string
	Posture      string
	// DeclarationsSource and DeclarationsText are the declarations file's
	// name and text, so that a report read back can hold the same
	// declarations against its recordings; empty for none.
	DeclarationsSource, DeclarationsText string
	// Shard is which shard of the inputs the report holds; nil when it
	// holds them all.
	Shard *Shard
	// Total is how many inputs the arguments named before sharding.
	Total int
	// Listing is ListingDigest of those inputs, in order: what shards of
	// one invocation split, so that shards of other listings that happen
	// to agree on the count and the total are told apart. Empty in a
	// report written before it.
	Listing string
}

// ListingDigest names an ordered list of inputs by the directory or
// bucket each was found under and its path, as "sha256:<hex>".
func ListingDigest(inputs []Scenario) string {
	h := sha256.New()
	for _, in := range inputs {
		root, path := listedName(in.Root), listedName(in.Path)
		// Lengths first, so that no root and path run into another's.
		fmt.Fprintf(h, "%d:%s%d:%s", len(root), root, len(path), path)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// listedName is a root or path as the listing digest takes it: one
// directory named "d", "d/" or "./d" by the shards of one invocation
// (each worker typing it its own way) is one listing, and so is a prefix
// with and without its trailing slash.
func listedName(p string) string {
	if p == "" || p == "-" {
		return p
	}
	if isURL(p) {
		return strings.TrimRight(p, "/")
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// InputsListing is ListingDigest of the inputs' roots and paths.
func InputsListing(inputs []InputResult) string {
	l := make([]Scenario, len(inputs))
	for i, in := range inputs {
		l[i] = Scenario{Root: in.Root, Path: in.Path}
	}
	return ListingDigest(l)
}

// MaxShards is the most shards one analysis may be split into: as many as
// a Kubernetes Indexed Job may have completions, far more workers than any
// listing needs, and few enough that a merge can name what is missing.
const MaxShards = 100_000

// Shard is shard Index (0-based) of Count.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// jsonEvidence is the evidence as it is read back; the report writes
// evidenceDoc[*jsonList], its runs streamed one at a time.
type jsonEvidence = evidenceDoc[[]RunResult]

type savedInput = savedInputOf[[]RunResult]

// evidenceDoc is the evidence section, R being how an input's runs are
// held.
type evidenceDoc[R any] struct {
	Version      int     `json:"version"`
	Declarations *string `json:"declarations"`
	Posture      string  `json:"posture"`
	Shard        *Shard  `json:"shard"`
	Total        int     `json:"total"`
	// Listing is Provenance.Listing; absent when not known.
	Listing string            `json:"listing,omitempty"`
	Inputs  []savedInputOf[R] `json:"inputs"`
	// ExplainFlags are Options.ExplainFlags, so that a report rebuilt
	// from this one prints the same explain commands.
	ExplainFlags []string `json:"explainFlags"`
	// DeclarationsFile is the declarations file itself; null for none.
	DeclarationsFile *savedDeclarations `json:"declarationsFile"`
	// Excluded are the paths --exclude kept out, so that a merge or a
	// diff of saved reports still says what was not read.
	Excluded []savedExcluded `json:"excluded"`
}

type savedExcluded struct {
	Path    string `json:"path"`
	Pattern string `json:"pattern"`
}

type savedDeclarations struct {
	Source string `json:"source"`
	Text   string `json:"text"`
}

type savedInputOf[R any] struct {
	Index int              `json:"index"`
	Root  string           `json:"root"`
	Path  string           `json:"path"`
	Stats *recording.Stats `json:"stats"`
	Error *string          `json:"error"`
	Runs  R                `json:"runs"`
	// NotRecording is InputResult.NotRecording.
	NotRecording bool `json:"notRecording"`
}

func jsonEvidenceOf(r *Report, s *jsonStream) *evidenceDoc[*jsonList] {
	p := r.Provenance
	ev := &evidenceDoc[*jsonList]{
		Version:      EvidenceVersion,
		Declarations: nullString(p.Declarations),
		Posture:      p.Posture,
		Shard:        p.Shard,
		Total:        p.Total,
		Listing:      p.Listing,
		Inputs:       []savedInputOf[*jsonList]{},
		ExplainFlags: nonNil(r.Options.ExplainFlags),
		Excluded:     []savedExcluded{},
	}
	for _, sk := range r.Skipped {
		if sk.Pattern != "" {
			ev.Excluded = append(ev.Excluded, savedExcluded{Path: sk.Path, Pattern: sk.Pattern})
		}
	}
	if p.Declarations != "" && p.DeclarationsSource != "" {
		ev.DeclarationsFile = &savedDeclarations{Source: p.DeclarationsSource, Text: p.DeclarationsText}
	}
	for _, in := range r.Sources {
		runs := in.Runs
		si := savedInputOf[*jsonList]{Index: in.Index, Root: in.Root, Path: in.Path, Stats: in.Stats, NotRecording: in.NotRecording,
			Runs: s.list(len(runs), func(i int) any { return savedRun(runs[i]) })}
		if in.Err != nil {
			msg := in.Err.Error()
			si.Error = &msg
		}
		ev.Inputs = append(ev.Inputs, si)
	}
	return ev
}

// Saved is a saved JSON report read back: the options it was rendered
// with, how its evidence was produced, and the evidence itself.
type Saved struct {
	Name       string
	Options    SavedOptions
	Provenance Provenance
	Inputs     []InputResult
	// Excluded are the paths the report's --exclude kept out (Pattern
	// set); a report that names none has none.
	Excluded []SkippedInput
}

// SavedOptions are the report options a saved report states.
type SavedOptions struct {
	Kind               string
	Limit              int
	FailOn             string
	AllowUnmeasured    bool
	AllowDamaged       bool
	StrictDeclarations bool
	// ExplainFlags are the flags its explain commands carry.
	ExplainFlags []string
}

// savedSniffBytes is how much of an input IsSaved looks at.
const savedSniffBytes = 512

// IsSaved reports whether head, the first bytes of an input, start a JSON
// report as fpcheck writes it: an object whose first key is schemaVersion.
// No agentfootprint recording starts that way.
func IsSaved(head []byte) bool {
	b := bytes.TrimLeft(bytes.TrimPrefix(head, []byte{0xEF, 0xBB, 0xBF}), " \t\r\n")
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	return bytes.HasPrefix(b, []byte(`"schemaVersion"`))
}

// SniffSaved peeks at r (which it wraps) and reports whether it holds a
// saved report; the returned reader yields every byte of r.
func SniffSaved(r io.Reader) (io.Reader, bool, error) {
	br := bufio.NewReaderSize(r, 4096)
	head, err := br.Peek(savedSniffBytes)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return br, false, err
	}
	return br, IsSaved(head), nil
}

// SavedError is a saved report fpcheck cannot read back; Path names it.
type SavedError struct {
	Path string
	Err  error
}

func (e *SavedError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *SavedError) Unwrap() error { return e.Err }

// ReadSaved decodes a saved JSON report of at most limit bytes (0: no
// limit). Only the options and the evidence are read; everything else in
// the document is derived from them and is judged again by whoever uses the
// result.
func ReadSaved(name string, r io.Reader, limit int64) (*Saved, error) {
	fail := func(format string, a ...any) error { return &SavedError{Path: name, Err: fmt.Errorf(format, a...)} }
	if limit > 0 {
		r = io.LimitReader(r, limit+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fail("read failed: %w", err)
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, fail("a saved report larger than %s (limit set by --max-decompressed-bytes)", humanSize(limit))
	}
	var doc struct {
		SchemaVersion *int            `json:"schemaVersion"`
		Options       json.RawMessage `json:"options"`
		Evidence      json.RawMessage `json:"evidence"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fail("not a readable fpcheck report: %s", jsonErrorText(data, err, 0))
	}
	if doc.SchemaVersion == nil {
		return nil, fail("not an fpcheck report: schemaVersion is not a number")
	}
	if *doc.SchemaVersion != SchemaVersion {
		return nil, fail("an fpcheck report of schemaVersion %d; this build reads schemaVersion %d only", *doc.SchemaVersion, SchemaVersion)
	}
	if len(doc.Evidence) == 0 || string(doc.Evidence) == "null" {
		return nil, fail("an fpcheck report without an evidence section (written by an older fpcheck build, or edited); analyze its recordings again with this build")
	}
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(doc.Evidence, &probe); err != nil || probe.Version == nil {
		return nil, fail("the report's evidence section has no version")
	}
	if *probe.Version != EvidenceVersion {
		return nil, fail("the report's evidence is version %d; this build reads evidence version %d only", *probe.Version, EvidenceVersion)
	}
	var ev jsonEvidence
	// An unknown key in the evidence is something this build would drop
	// and then judge without: refused, never skipped.
	dec := json.NewDecoder(bytes.NewReader(doc.Evidence))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ev); err != nil {
		return nil, fail("the report's evidence does not decode: %s", jsonErrorText(data, err, bytes.LastIndex(data, doc.Evidence)))
	}
	var opts struct {
		Kind            *string `json:"kind"`
		Limit           int     `json:"limit"`
		FailOn          string  `json:"failOn"`
		AllowUnmeasured bool    `json:"allowUnmeasured"`
		AllowDamaged    bool    `json:"allowDamaged"`
		Strict          bool    `json:"strictDeclarations"`
	}
	if len(doc.Options) > 0 {
		if err := json.Unmarshal(doc.Options, &opts); err != nil {
			return nil, fail("the report's options do not decode: %s", jsonErrorText(data, err, bytes.LastIndex(data, doc.Options)))
		}
	}
	s := &Saved{Name: name, Options: SavedOptions{Limit: opts.Limit, FailOn: opts.FailOn, AllowUnmeasured: opts.AllowUnmeasured, AllowDamaged: opts.AllowDamaged, StrictDeclarations: opts.Strict}}
	if opts.Kind != nil {
		s.Options.Kind = *opts.Kind
	}
	dropEncounters(&ev)
	if err := s.take(&ev); err != nil {
		return nil, fail("%w", err)
	}
	return s, nil
}

// dropEncounters lets go of where each encounter happened, which a saved
// report of an earlier build may carry: nothing holds it against the
// ledger it would be drawn beside, so a report read back shows the ledgers
// alone (see savedRun).
func dropEncounters(ev *jsonEvidence) {
	for _, si := range ev.Inputs {
		for _, sr := range si.Runs {
			for _, side := range []*replay.Evidence{sr.Recorded, sr.Replayed} {
				if side != nil {
					side.Encounters = nil
				}
			}
		}
	}
}

// savedRun is a run as its report's evidence saves it: without where each
// encounter happened, which only the HTML report draws and only a replay
// of this invocation asks for, so that the JSON report is the same with or
// without an HTML one beside it.
func savedRun(r RunResult) RunResult {
	if r.Replayed != nil && r.Replayed.Encounters != nil {
		ev := *r.Replayed
		ev.Encounters = nil
		r.Replayed = &ev
	}
	return r
}

// take checks the decoded evidence for what a crafted report could hold
// and keeps it.
func (s *Saved) take(ev *jsonEvidence) error {
	s.Provenance = Provenance{Posture: ev.Posture, Shard: ev.Shard, Total: ev.Total, Listing: ev.Listing}
	// A posture no replay runs in names no judgement; evidence claiming it
	// would be joined with whatever claimed the same.
	if ev.Posture != checks.PostureObserve && ev.Posture != checks.PostureDev {
		return fmt.Errorf("evidence.posture is %q, not %s or %s", ev.Posture, checks.PostureObserve, checks.PostureDev)
	}
	if ev.Listing != "" && !strings.HasPrefix(ev.Listing, "sha256:") {
		return fmt.Errorf("evidence.listing is %q, not a sha256: digest", ev.Listing)
	}
	s.Options.ExplainFlags = ev.ExplainFlags
	for _, e := range ev.Excluded {
		if e.Pattern == "" {
			return fmt.Errorf("evidence.excluded names %q with no pattern", e.Path)
		}
		s.Excluded = append(s.Excluded, ExcludedInput(e.Path, e.Pattern))
	}
	if ev.Declarations != nil {
		if !strings.HasPrefix(*ev.Declarations, "sha256:") {
			return fmt.Errorf("evidence.declarations is %q, not a sha256: digest", *ev.Declarations)
		}
		s.Provenance.Declarations = *ev.Declarations
	}
	if f := ev.DeclarationsFile; f != nil {
		// The text must be the file the digest names: judged alike means
		// the same declarations, not the same name.
		sum := sha256.Sum256([]byte(f.Text))
		if s.Provenance.Declarations != "sha256:"+hex.EncodeToString(sum[:]) {
			return fmt.Errorf("evidence.declarationsFile does not match the digest evidence.declarations names")
		}
		s.Provenance.DeclarationsSource, s.Provenance.DeclarationsText = f.Source, f.Text
	}
	if sh := ev.Shard; sh != nil && (sh.Count < 1 || sh.Count > MaxShards || sh.Index < 0 || sh.Index >= sh.Count) {
		return fmt.Errorf("evidence.shard is %d/%d, not a shard index below a count from 1 to %d", sh.Index, sh.Count, MaxShards)
	}
	if ev.Total < len(ev.Inputs) {
		return fmt.Errorf("evidence.total says %d inputs, but the evidence holds %d", ev.Total, len(ev.Inputs))
	}
	seen := map[int]bool{}
	for i, si := range ev.Inputs {
		if si.Index < 0 || si.Index >= ev.Total || seen[si.Index] {
			return fmt.Errorf("evidence.inputs[%d] has index %d: not a distinct position below total %d", i, si.Index, ev.Total)
		}
		seen[si.Index] = true
		in := InputResult{Stats: si.Stats, Path: si.Path, Index: si.Index, Root: si.Root, Runs: si.Runs, NotRecording: si.NotRecording && si.Root != "" && len(si.Runs) == 0}
		if si.Error != nil {
			in.Err = errors.New(*si.Error)
		}
		if in.Stats == nil && in.Err == nil {
			return fmt.Errorf("evidence.inputs[%d] (%s) has neither stats nor an error", i, si.Path)
		}
		for j, sr := range si.Runs {
			if sr.Recorded == nil {
				return fmt.Errorf("evidence.inputs[%d].runs[%d] (run %s) has no recorded evidence", i, j, sr.RunID)
			}
			// fpcheck replays every run it reports: a run without its
			// replay was edited, and read as it is, the findings only the
			// replay holds would pass for resolved.
			if sr.Replayed == nil {
				return fmt.Errorf("evidence.inputs[%d].runs[%d] (run %s) has no replayed evidence, which every run fpcheck reports carries; the report was edited", i, j, sr.RunID)
			}
		}
		s.Inputs = append(s.Inputs, in)
	}
	if ev.Shard != nil {
		// A shard's positions are proven when its set is put together.
		return nil
	}
	// A whole report holds every position below its total, once: one with
	// inputs taken out would pass for all of them.
	if len(ev.Inputs) != ev.Total {
		held := make([]int, len(ev.Inputs))
		for i, si := range ev.Inputs {
			held[i] = si.Index
		}
		return fmt.Errorf("evidence.total says %d inputs, but the evidence holds %d (%s); a report of part of its inputs never passes for all of them",
			ev.Total, len(ev.Inputs), MissingText("position", held, ev.Total))
	}
	if ev.Listing != "" && InputsListing(s.Inputs) != ev.Listing {
		return fmt.Errorf("evidence.inputs do not name the inputs of the listing the report says it read (evidence.listing); it was edited")
	}
	return nil
}

// MissingText says which of 0..n-1 are not among held (distinct, each
// below n): the first few and how many in all, for a message. It costs
// what held does, however large n is.
func MissingText(what string, held []int, n int) string {
	held = slices.Sorted(slices.Values(held))
	var first []string
	next := 0
	for _, h := range append(held, n) {
		for ; next < h && len(first) < 3; next++ {
			first = append(first, strconv.Itoa(next))
		}
		next = h + 1
		if len(first) == 3 {
			break
		}
	}
	missing := n - len(held)
	switch {
	case missing == 1:
		return fmt.Sprintf("%s %s of %d missing", what, first[0], n)
	case missing > len(first):
		return fmt.Sprintf("%d of %d %ss missing: %s, …", missing, n, what, strings.Join(first, ", "))
	}
	return fmt.Sprintf("%ss %s of %d missing", what, strings.Join(first, ", "), n)
}

// jsonErrorText words a decoding error with the line of data it happened
// on; the error's offset counts from base.
func jsonErrorText(data []byte, err error, base int) string {
	var off int64 = -1
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		off = se.Offset
	} else if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		off = te.Offset
	}
	if off < 0 || base < 0 || int64(base)+off > int64(len(data)) {
		return err.Error()
	}
	off += int64(base)
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	return fmt.Sprintf("line %d: %s", line, err)
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
