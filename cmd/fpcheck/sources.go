package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/internal/objstore"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/report"
)

// entry is one input the arguments name: a recording to load, or a saved
// report whose evidence is taken as it was judged.
type entry struct {
	path string
	// root is the directory argument the input was found under, empty for
	// an input named itself.
	root string
	// index is the input's position among every input the arguments name.
	index int
	saved *report.Saved
}

// scenario is the input's name relative to its root: what a shard hashes
// and what a cohort diff pairs.
func (e entry) scenario() string { return report.ScenarioName(e.root, e.path) }

// expandEntries expands the arguments as analyze always has (and lists the
// object storage URLs among them like directories), remembers the
// directory or prefix each input was found under, and reads the saved
// reports among them when readSaved is true (and refuses them otherwise, by
// name).
func expandEntries(args []string, ios *IOStreams, store *objstore.Store, readSaved bool, limit int64) ([]entry, error) {
	out, _, err := expandExcluding(args, nil, ios, store, readSaved, limit)
	return out, err
}

// expandExcluding is expandEntries with --exclude patterns; it returns
// what they kept out, to be said in the report. Nothing left to read is a
// usage error.
func expandExcluding(args, exclude []string, ios *IOStreams, store *objstore.Store, readSaved bool, limit int64) ([]entry, []recording.Excluded, error) {
	var excluded []recording.Excluded
	out, err := expandArgs(args, exclude, &excluded, ios, store, readSaved, limit)
	if err != nil {
		return nil, nil, err
	}
	if kept := keptOut(excluded); len(out) == 0 && len(kept) > 0 {
		return nil, nil, flagErrorf("--exclude kept out every input (%s); nothing is left to read", excludedList(kept))
	}
	return out, excluded, nil
}

// keptOut is the part of ex that --exclude kept out, without what a walk
// passed over for what it is.
func keptOut(ex []recording.Excluded) []recording.Excluded {
	var kept []recording.Excluded
	for _, e := range ex {
		if e.Pattern != "" {
			kept = append(kept, e)
		}
	}
	return kept
}

// leaveOut says in the report each path that was not read.
func leaveOut(rep *report.Report, ex []recording.Excluded) {
	for _, e := range ex {
		rep.LeaveOut(leftOut(e))
	}
}

// leftOut is how the report says a path that was not read.
func leftOut(e recording.Excluded) report.SkippedInput {
	if e.Pattern != "" {
		return report.ExcludedInput(e.Path, e.Pattern)
	}
	return report.SkippedInput{Path: e.Path, Why: e.Why}
}

// excludedList names the first few excluded paths.
func excludedList(ex []recording.Excluded) string {
	var names []string
	for i, e := range ex {
		if i == 3 {
			names = append(names, fmt.Sprintf("and %d more", len(ex)-3))
			break
		}
		names = append(names, safeName(e.Path))
	}
	return strings.Join(names, ", ")
}

func expandArgs(args, exclude []string, excluded *[]recording.Excluded, ios *IOStreams, store *objstore.Store, readSaved bool, limit int64) ([]entry, error) {
	if len(args) == 0 {
		_, err := recording.Expand(args)
		return nil, &FlagError{Err: err}
	}
	var out []entry
	seen := map[string]bool{}
	add := func(p, root string) {
		key := p
		if p != "-" && !objstore.IsURL(p) {
			key = filepath.Clean(p)
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, entry{path: p, root: root, index: len(out)})
		}
	}
	for _, arg := range args {
		if objstore.IsURL(arg) {
			store.Exclude = exclude
			objs, err := store.List(context.Background(), arg)
			if err != nil {
				return nil, &FlagError{Err: err}
			}
			for _, o := range objs {
				// What a directory walk passes over (a named pipe, a link
				// to nothing) or keeps out a file:// listing passes over
				// or keeps out alike, said.
				if o.Pattern != "" {
					*excluded = append(*excluded, recording.Excluded{Path: o.Name, Pattern: o.Pattern})
					continue
				}
				if o.Why != "" {
					*excluded = append(*excluded, recording.Excluded{Path: o.Name, Why: o.Why})
					continue
				}
				if at, pat, ok := recording.ExcludedObject(exclude, o.Name, o.Root); ok {
					// A prefix kept out is said once, as a directory is.
					if !slices.ContainsFunc(*excluded, func(e recording.Excluded) bool { return e.Path == at }) {
						*excluded = append(*excluded, recording.Excluded{Path: at, Pattern: pat})
					}
					continue
				}
				add(o.Name, o.Root)
			}
			continue
		}
		if arg == "-" && seen["-"] {
			_, err := recording.Expand([]string{"-", "-"})
			return nil, &FlagError{Err: err}
		}
		found, ex, err := recording.ExpandExcluding([]string{arg}, exclude)
		if err != nil {
			return nil, &FlagError{Err: err}
		}
		for _, e := range ex {
			if !slices.ContainsFunc(*excluded, func(p recording.Excluded) bool { return filepath.Clean(p.Path) == filepath.Clean(e.Path) }) {
				*excluded = append(*excluded, e)
			}
		}
		root := ""
		if base, ok := recording.GlobBase(arg); ok {
			// A glob's matches are found like a walk's: under its base.
			root = base
		} else if arg != "-" {
			if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
				root = arg
			}
		}
		for _, p := range found {
			add(p, root)
		}
	}
	for i := range out {
		s, err := sniffEntry(out[i].path, ios, store, readSaved, limit)
		if err != nil {
			return nil, err
		}
		out[i].saved = s
	}
	return out, nil
}

// sniffEntry reads p as a saved report when it is one, plain or
// compressed. A file that cannot be opened is left to the loader, which
// states it as an unreadable input.
func sniffEntry(p string, ios *IOStreams, store *objstore.Store, readSaved bool, limit int64) (*report.Saved, error) {
	name := p
	var src io.Reader
	switch {
	case objstore.IsURL(p):
		// The head first, so that a recording is not fetched twice whole:
		// the rest only when the head is a report or compressed.
		head, err := store.Open(context.Background(), p, 512)
		if err != nil {
			return nil, nil
		}
		b, err := io.ReadAll(head)
		head.Close()
		if err != nil || !report.IsSaved(b) && !recording.Compressed(b) {
			return nil, nil
		}
		full, err := store.Open(context.Background(), p, 0)
		if err != nil {
			if report.IsSaved(b) {
				return nil, err
			}
			return nil, nil
		}
		defer full.Close()
		src = full
	case p == "-":
		if !readSaved {
			// analyze hands standard input to the loader untouched,
			// which reads a regular file faster than a wrapped reader.
			return nil, nil
		}
		src, name = ios.In, "<stdin>"
	default:
		f, err := os.Open(p)
		if err != nil {
			return nil, nil
		}
		defer f.Close()
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			return nil, nil
		}
		src = f
	}
	raw, body, saved, done := peekSaved(src)
	defer done()
	if p == "-" {
		// The loader reads standard input on from what was peeked.
		ios.In = raw
	}
	if !saved {
		return nil, nil
	}
	if !readSaved {
		return nil, flagErrorf("%s is a saved fpcheck report, not a recording; 'fpcheck merge' and 'fpcheck diff' read saved reports", name)
	}
	return report.ReadSaved(name, body, savedLimit(limit))
}

// peekSaved reports whether r holds a saved report, plain or compressed
// (CI artifacts are often kept compressed). raw yields every byte of r as
// it came, for the loader when r holds no report; body yields the
// report's bytes, decompressed, when it does. done releases the
// decompressor.
func peekSaved(r io.Reader) (raw, body io.Reader, saved bool, done func()) {
	br := bufio.NewReaderSize(r, 4096)
	head, _ := br.Peek(4)
	// What the decompressor reads is kept until the sniff is decided, so
	// that a compressed recording still reaches the loader whole.
	tee := &keepReader{r: br, kept: &bytes.Buffer{}}
	dec, done, ok := recording.Decompressor(head, tee)
	if !ok {
		sr, saved, _ := report.SniffSaved(br)
		return sr, sr, saved, func() {}
	}
	sr, saved, _ := report.SniffSaved(dec)
	kept := tee.kept
	tee.kept = nil
	if !saved {
		done()
		return io.MultiReader(kept, br), nil, false, func() {}
	}
	return sr, sr, true, done
}

// savedKeys are the top-level keys of a saved report.
var savedKeys = []string{"schemaVersion", "inputs", "runs", "conversations", "options", "bound", "exitCode", "baseline", "declarations", "skipped", "evidence"}

// reorderedSaved reports whether the input at p, which the loader found
// to be no recording, is a JSON object, plain or compressed, whose
// top-level keys include schemaVersion and evidence: a saved report that
// was not recognised as one because another key comes first. Standard
// input, read once, is not looked at again.
func reorderedSaved(p string, store *objstore.Store, limit int64) bool {
	var src io.ReadCloser
	var err error
	switch {
	case p == "-":
		return false
	case objstore.IsURL(p):
		src, err = store.Open(context.Background(), p, 0)
	default:
		src, err = os.Open(p)
	}
	if err != nil {
		return false
	}
	defer src.Close()
	br := bufio.NewReader(src)
	var r io.Reader = br
	head, _ := br.Peek(4)
	if dec, done, ok := recording.Decompressor(head, br); ok {
		defer done()
		r = dec
	}
	d := json.NewDecoder(io.LimitReader(r, savedLimit(limit)))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	var schema, evidence bool
	// A report has a dozen top-level keys; a file that starts with
	// another key, or holds more, is no report, and is not read on.
	for n := 0; d.More() && n < 16; n++ {
		key, err := d.Token()
		if err != nil {
			return false
		}
		if k, _ := key.(string); n == 0 && !slices.Contains(savedKeys, k) {
			return false
		}
		schema = schema || key == "schemaVersion"
		evidence = evidence || key == "evidence"
		if schema && evidence {
			return true
		}
		// Skip the value, token by token: no value is held whole.
		depth := 0
		for {
			t, err := d.Token()
			if err != nil {
				return false
			}
			switch t {
			case json.Delim('{'), json.Delim('['):
				depth++
			case json.Delim('}'), json.Delim(']'):
				depth--
			}
			if depth == 0 {
				break
			}
		}
	}
	return false
}

// keepReader keeps a copy of what is read through it while kept is set.
type keepReader struct {
	r    io.Reader
	kept *bytes.Buffer
}

func (k *keepReader) Read(p []byte) (int, error) {
	n, err := k.r.Read(p)
	if k.kept != nil {
		k.kept.Write(p[:n])
	}
	return n, err
}

// savedLimit is the most bytes a saved report may hold: the
// --max-decompressed-bytes of any input.
func savedLimit(limit int64) int64 {
	if limit <= 0 {
		return recording.DefaultMaxDecompressedBytes
	}
	return limit
}

// parseShard reads --shard I/N: shard I (0-based, as Kubernetes numbers
// JOB_COMPLETION_INDEX) of N.
func parseShard(v string) (*report.Shard, error) {
	if v == "" {
		return nil, nil
	}
	is, ns, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return nil, flagErrorf("--shard takes I/N with 0 <= I < N (for example 0/4 for the first of four shards), not %q", v)
	}
	if n > report.MaxShards {
		return nil, flagErrorf("--shard %s: at most %d shards (N), as many as a Kubernetes Indexed Job has completions", v, report.MaxShards)
	}
	return &report.Shard{Index: i, Count: n}, nil
}

// inShard reports whether the input belongs to shard s: the FNV-1a hash of
// its name relative to its root, modulo the shard count. The name, not the
// position, is hashed, so every worker agrees without coordination even
// when their listings come in different orders.
func inShard(e entry, s *report.Shard) bool {
	if s == nil {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(e.scenario()))
	return h.Sum64()%uint64(s.Count) == uint64(s.Index)
}

// judged is what loading a set of entries gives: every input's result in
// order, and how the evidence was produced.
type judged struct {
	inputs []report.InputResult
	prov   report.Provenance
	// saved are the saved reports read, in argument order.
	saved []*report.Saved
	// decls and declNames are the declarations file and the places it
	// names a tool; nil without one.
	decls     *checks.Declarations
	declNames []checks.NamedTool
}

// loadEntries loads the recordings among entries through the pipeline (built
// only when there is one) and takes the saved reports' evidence. Saved
// evidence must have been judged as the recordings are now, with the same
// declarations and posture; otherwise the two halves of the result would
// answer different questions.
//
// each, when not nil, is handed every recording's result in entry order as
// soon as it and those before it are read (saved reports are not streamed).
func loadEntries(entries []entry, load loadOptions, ios *IOStreams, store *objstore.Store, each func(report.InputResult)) (*judged, error) {
	digest, err := load.declarationsDigest()
	if err != nil {
		return nil, err
	}
	j := &judged{}
	var recs []entry
	for _, e := range entries {
		if e.saved != nil {
			j.saved = append(j.saved, e.saved)
		} else {
			recs = append(recs, e)
		}
	}
	p, err := newPipeline(load)
	if err != nil {
		return nil, err
	}
	j.decls, j.declNames = p.decls, p.declNames
	p.store = store
	place := func(i int, res *report.InputResult) {
		res.Index, res.Root = recs[i].index, recs[i].root
		if res.Path == "" {
			res.Path = recs[i].path
		}
		if errors.Is(res.Err, recording.ErrNotRecording) && reorderedSaved(recs[i].path, store, load.MaxDecompressedBytes) {
			res.Err = &recording.InputError{Path: recs[i].path, Err: errors.New(
				"looks like a saved fpcheck report (its top-level keys include schemaVersion and evidence), but it does not start with \"schemaVersion\", which is how a saved report is recognised: its keys were re-ordered (jq -S, sort_keys) or it was written by another tool; give 'fpcheck merge' or 'fpcheck diff' the report as fpcheck wrote it")}
		}
		// A directory holds more than recordings (a schema, notes): what
		// a walk found that is no recording at all is skipped, while a
		// file named itself, or a damaged recording, is still reported.
		res.NotRecording = res.Root != "" && len(res.Runs) == 0 && errors.Is(res.Err, recording.ErrNotRecording)
	}
	if each != nil {
		p.finished = inOrder(func(i int, res report.InputResult) {
			place(i, &res)
			each(res)
		})
	}
	var loaded []report.InputResult
	if len(recs) > 0 {
		paths := make([]string, len(recs))
		for i, e := range recs {
			paths[i] = e.path
		}
		loaded = loadInputs(p, paths, ios)
		for i := range loaded {
			place(i, &loaded[i])
		}
	}
	// The judgement to agree on: the recordings' when there are any or
	// the flags name one, else the first saved report's.
	want := report.Provenance{Declarations: digest, Posture: p.posture()}
	if p.decls != nil {
		want.DeclarationsSource, want.DeclarationsText = load.Declarations, p.declText
	}
	wantFrom := "the recordings beside it are"
	if len(recs) == 0 {
		wantFrom = "the flags given ask to be"
	}
	if len(recs) == 0 && load.Declarations == "" && load.Posture == "" && len(j.saved) > 0 {
		want, wantFrom = j.saved[0].Provenance, j.saved[0].Name+" was"
	}
	for _, s := range j.saved {
		if s.Provenance.Declarations != want.Declarations || s.Provenance.Posture != want.Posture {
			return nil, fmt.Errorf("%s was judged with %s, but %s judged with %s; a report joins only evidence judged alike, so analyze them with the same declarations and posture",
				s.Name, judgementName(s.Provenance), wantFrom, judgementName(want))
		}
	}
	j.prov = report.Provenance{Declarations: want.Declarations, Posture: want.Posture,
		DeclarationsSource: want.DeclarationsSource, DeclarationsText: want.DeclarationsText}
	if j.decls == nil && j.prov.DeclarationsText != "" {
		// Saved reports alone: their declarations are held against their
		// runs as the invocation that wrote them held them.
		d, err := checks.ParseDeclarations(j.prov.DeclarationsSource, []byte(j.prov.DeclarationsText))
		if err != nil {
			return nil, err
		}
		j.decls, j.declNames = d, checks.PlaceToolNames(d.ToolNames(), []byte(j.prov.DeclarationsText))
	}

	inputs, err := combine(entries, loaded)
	if err != nil {
		return nil, err
	}
	j.inputs = inputs
	return j, nil
}

// inOrder turns results that arrive in any order, from any goroutine, into
// calls of fn in index order, each as soon as every one before it arrived.
func inOrder(fn func(i int, res report.InputResult)) func(i int, res report.InputResult) {
	var mu sync.Mutex
	pending := map[int]report.InputResult{}
	next := 0
	return func(i int, res report.InputResult) {
		mu.Lock()
		defer mu.Unlock()
		pending[i] = res
		for {
			r, ok := pending[next]
			if !ok {
				return
			}
			delete(pending, next)
			fn(next, r)
			next++
		}
	}
}

func judgementName(p report.Provenance) string {
	d := "no declarations"
	if p.Declarations != "" {
		d = "declarations " + p.Declarations
	}
	return d + " in " + p.Posture + " posture"
}

// shardSet is the saved shard reports of one analysis: same shard count,
// same total, same listing.
type shardSet struct {
	count, total int
	have         map[int]string
	inputs       []report.InputResult
	at           int // position of the first member among the chunks
	// first is the first member read, whose listing every other member
	// must carry.
	first *report.Saved
}

// listing is the digest of what the entries list, in order: what a shard
// says it split.
func listing(entries []entry) string {
	l := make([]report.Scenario, len(entries))
	for i, e := range entries {
		l[i] = report.Scenario{Root: e.root, Path: e.path}
	}
	return report.ListingDigest(l)
}

// sameListing refuses a shard whose listing is not the first member's: the
// workers were given other inputs, or found them under other directories,
// and the count and total agreeing by chance proves nothing.
func (set *shardSet) sameListing(s *report.Saved) error {
	if s.Provenance.Listing == "" {
		return fmt.Errorf("%s is shard %s written without the listing it split (evidence.listing), so a merge cannot tell that its shards split one listing; analyze its inputs again with this build",
			s.Name, s.Provenance.Shard)
	}
	if set.first == nil {
		set.first = s
		return nil
	}
	if s.Provenance.Listing == set.first.Provenance.Listing {
		return nil
	}
	what := "other inputs"
	if a, b := rootsOf(set.first), rootsOf(s); a != "" && b != "" && a != b {
		what = fmt.Sprintf("inputs under %s and under %s", a, b)
	}
	return fmt.Errorf("%s (shard %s) and %s (shard %s) split different listings of %d inputs: %s; shards merge only when every worker was given the same inputs under the same directory arguments",
		set.first.Name, set.first.Provenance.Shard, s.Name, s.Provenance.Shard, set.total, what)
}

// rootsOf names the directories a saved report's inputs were found under,
// the first few, for a message; empty when it holds no input.
func rootsOf(s *report.Saved) string {
	var roots []string
	for _, in := range s.Inputs {
		r := in.Root
		if r == "" {
			r = "files named themselves"
		} else {
			r = safeName(r)
		}
		if !slices.Contains(roots, r) {
			roots = append(roots, r)
		}
	}
	slices.Sort(roots)
	if len(roots) > 3 {
		roots = append(roots[:3], fmt.Sprintf("%d more", len(roots)-3))
	}
	return strings.Join(roots, ", ")
}

// combine puts the inputs in the order one invocation would have read
// them. Recordings and whole saved reports keep argument order; the shards
// of one analysis are gathered at the place of the first one and put back
// in the order of the inputs they split, after proving that every shard is
// there and that together they hold every input.
func combine(entries []entry, loaded []report.InputResult) ([]report.InputResult, error) {
	type chunk struct{ inputs []report.InputResult }
	var chunks []chunk
	sets := map[[2]int]*shardSet{}
	var order [][2]int
	next := 0
	for _, e := range entries {
		if e.saved == nil {
			chunks = append(chunks, chunk{inputs: []report.InputResult{loaded[next]}})
			next++
			continue
		}
		sh := e.saved.Provenance.Shard
		if sh == nil {
			chunks = append(chunks, chunk{inputs: e.saved.Inputs})
			continue
		}
		key := [2]int{sh.Count, e.saved.Provenance.Total}
		set := sets[key]
		if set == nil {
			set = &shardSet{count: sh.Count, total: e.saved.Provenance.Total, have: map[int]string{}, at: len(chunks)}
			sets[key] = set
			order = append(order, key)
			chunks = append(chunks, chunk{})
		}
		if err := set.sameListing(e.saved); err != nil {
			return nil, err
		}
		if prev, dup := set.have[sh.Index]; dup {
			return nil, fmt.Errorf("%s and %s are both shard %s; each shard is merged once", prev, e.saved.Name, sh)
		}
		set.have[sh.Index] = e.saved.Name
		set.inputs = append(set.inputs, e.saved.Inputs...)
	}
	for _, key := range order {
		set := sets[key]
		if len(set.have) < set.count {
			return nil, fmt.Errorf("%s (the shards given split %d inputs); a merge without every shard would judge part of the inputs as if it were all of them",
				report.MissingText("shard", slices.Collect(maps.Keys(set.have)), set.count), set.total)
		}
		if len(set.inputs) != set.total {
			return nil, fmt.Errorf("the %d shards hold %d inputs, but they split %d; were they analyzed over the same inputs?", set.count, len(set.inputs), set.total)
		}
		slices.SortStableFunc(set.inputs, func(a, b report.InputResult) int { return cmp.Compare(a.Index, b.Index) })
		for i, in := range set.inputs {
			if in.Index != i {
				return nil, fmt.Errorf("the %d shards do not split one listing of inputs (input position %d is held twice or not at all); were they analyzed over the same inputs?", set.count, i)
			}
		}
		if report.InputsListing(set.inputs) != set.first.Provenance.Listing {
			return nil, fmt.Errorf("the %d shards hold inputs whose names are not those of the listing they say they split (evidence.listing); were they analyzed over the same inputs, or edited?", set.count)
		}
		chunks[set.at].inputs = set.inputs
	}
	var out []report.InputResult
	seen := map[string]bool{}
	for _, c := range chunks {
		for _, in := range c.inputs {
			name := inputPath(in)
			if name != "<stdin>" && seen[name] {
				return nil, fmt.Errorf("input %s appears twice among the inputs and reports given; its runs would be counted twice", name)
			}
			seen[name] = true
			out = append(out, in)
		}
	}
	return out, nil
}

func inputPath(in report.InputResult) string {
	if in.Stats != nil && in.Stats.Path != "" {
		return in.Stats.Path
	}
	return in.Path
}
