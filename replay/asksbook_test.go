package replay

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/internal/hostile"
	"github.com/fpcheck/fpcheck/recording"
)

// TestAsksBookBeforeEveryLookup holds Fold.AsksBook to what folding an
// event does: no event looks the book of call names up unless AsksBook
// said it may, just before it was added, over every fixture and corpus
// recording and follow-up turns that do look names up, under every
// variant of declarations, with the runs of each input sharing one book
// as the pipeline's do.
func TestAsksBookBeforeEveryLookup(t *testing.T) {
	lookups, asked := 0, 0
	check := func(name string, runs []*recording.Run, decl *checks.Declarations, opts Options) {
		l, a := assertAsksBookBeforeLookups(t, name, runs, decl, opts)
		lookups, asked = lookups+l, asked+a
	}
	forEachEquivalenceCase(t, func(name string, _ []byte, runs []*recording.Run, _ declVariant, decl *checks.Declarations, opts Options) {
		check(name, runs, decl, opts)
	})
	dir := filepath.Join(claimsRoot, "empty-lookup-earlier-turn")
	data, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	yaml, err := os.ReadFile(filepath.Join(dir, "declarations.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	decl, err := checks.ParseDeclarations("declarations.yaml", yaml)
	if err != nil {
		t.Fatal(err)
	}
	// The second turn no longer names call-1 itself: its tool-result
	// message and history ask the first turn's names.
	follow := hostile.NamelessFollowUps(data, 3)
	check("follow-up turns", loadAll(t, "follow.jsonl", follow), decl, Options{})
	if lookups == 0 {
		t.Fatal("no event looked the book up: the test shows nothing")
	}
	t.Logf("%d events looked the book up, %d were said to", lookups, asked)
}

// assertAsksBookBeforeLookups folds runs in order with one book, as the
// pipeline does, and fails where an event looked the book up although
// AsksBook said it would not. It returns how many events looked it up
// and how many AsksBook named.
func assertAsksBookBeforeLookups(t *testing.T, name string, runs []*recording.Run, decl *checks.Declarations, opts Options) (lookups, asked int) {
	t.Helper()
	book := NewCallNames()
	opts.Names = book
	for _, whole := range runs {
		header := *whole
		header.Events = nil
		f, err := NewFold(&header, decl, opts)
		if err != nil {
			return lookups, asked
		}
		for i := range whole.Events {
			ev := &whole.Events[i]
			asks := f.AsksBook(ev)
			before := book.lookups
			if f.Add(ev) != nil {
				break
			}
			if asks {
				asked++
			}
			if book.lookups > before {
				lookups++
				if !asks {
					t.Errorf("%s run %s: line %d (%s) looked the book up, but AsksBook said it would not", name, whole.ID, ev.Line, ev.Type)
				}
			}
		}
		f.End()
	}
	return lookups, asked
}

// FuzzAsksBook holds AsksBook to the lookups of the runs of a fuzzed
// stream, under every variant of declarations.
func FuzzAsksBook(f *testing.F) {
	decls := seedReplayFuzz(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var runs []*recording.Run
		recording.LoadReader("fuzz.jsonl", bytes.NewReader(data), recording.Options{MaxNesting: 2000}, func(run *recording.Run) error {
			runs = append(runs, run)
			return nil
		})
		for _, d := range decls {
			assertAsksBookBeforeLookups(t, "fuzz", runs, d, Options{})
		}
	})
}
