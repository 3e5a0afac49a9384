package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
)

// TestTextStore holds the store to its promises: a text is kept once
// however often it is interned, a text past the budget is kept in the
// file and read back intact, and the file is never left in the temporary
// directory.
func TestTextStore(t *testing.T) {
	tests := []struct {
		name    string
		budget  int64
		texts   []string
		wantMem int64
		wantRef []textRef
	}{
		{"identical held once", 1 << 20, []string{"alpha-1", "alpha-1", "alpha-1"}, 7, []textRef{0, 0, 0}},
		{"distinct held each", 1 << 20, []string{"alpha-1", "beta-22"}, 14, []textRef{0, 1}},
		{"past the budget spilled", 8, []string{"alpha-1", "beta-22", "gamma-333", "beta-22"}, 7, []textRef{0, 1, 2, 1}},
		{"empty text", 1, []string{"", "x"}, 1, []textRef{0, 1}},
		{"held, then asked again once texts are spilled", 8, []string{"alpha-1", "beta-22", "alpha-1", "beta-22", "gamma-333", "alpha-1"}, 7, []textRef{0, 1, 0, 1, 2, 0}},
		{"empty text once texts are spilled", 8, []string{"alpha-1", "beta-22", "", "", "beta-22"}, 7, []textRef{0, 1, 2, 2, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("TMPDIR", dir)
			st := newTextStore(tt.budget)
			var refs []textRef
			for _, s := range tt.texts {
				refs = append(refs, st.intern(s))
			}
			if diff := cmp.Diff(tt.wantRef, refs); diff != "" {
				t.Errorf("refs (-want +got):\n%s", diff)
			}
			if st.inMemory() != tt.wantMem {
				t.Errorf("in memory %d bytes, want %d", st.inMemory(), tt.wantMem)
			}
			var distinct int64
			for i, s := range tt.texts {
				if got, err := st.text(refs[i]); err != nil || got != s {
					t.Errorf("text %d reads back %q, %v; want %q", i, got, err, s)
				}
				has, _, err := st.contains(refs[i], s, nil)
				if err != nil || !has {
					t.Errorf("text %d does not hold itself: %v, %v", i, has, err)
				}
				if has, _, _ := st.contains(refs[i], s+"-not", nil); has {
					t.Errorf("text %d holds what it does not", i)
				}
			}
			for _, it := range st.items {
				distinct += int64(it.n)
			}
			if st.kept() < distinct {
				t.Errorf("kept %d bytes, less than the %d bytes of its texts", st.kept(), distinct)
			}
			assertNoneLeft(t, dir)
			if err := st.close(); err != nil {
				t.Errorf("close: %v", err)
			}
			assertNoneLeft(t, dir)
		})
	}
}

// TestTextStoreKinds: a text kept as written and the same text kept
// lowered are two texts.
func TestTextStoreKinds(t *testing.T) {
	st := newTextStore(1 << 20)
	w := st.intern("Host-AB12")
	l := st.internLower("Host-AB12", checks.Lower)
	if w == l {
		t.Fatal("the written and the lowered text share a ref")
	}
	if got, _ := st.text(w); got != "Host-AB12" {
		t.Errorf("written text reads %q", got)
	}
	if got, _ := st.text(l); got != "host-ab12" {
		t.Errorf("lowered text reads %q", got)
	}
	if again := st.internLower("Host-AB12", checks.Lower); again != l {
		t.Errorf("the lowered text was kept twice: refs %d and %d", l, again)
	}
}

// TestTextStoreReadFailure: a spilled text that cannot be read back is an
// error, never a text that holds nothing.
func TestTextStoreReadFailure(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	st := newTextStore(1)
	r := st.intern("alpha-1")
	if !st.items[r].spilled {
		t.Fatal("the text was not spilled")
	}
	st.file.Close()
	if _, _, err := st.contains(r, "alpha", nil); err == nil || !strings.Contains(err.Error(), "could not be read back") {
		t.Errorf("contains after the file is gone: %v", err)
	}
	if _, err := st.text(r); err == nil {
		t.Error("text after the file is gone: no error")
	}
}

// assertNoneLeft fails when the temporary directory holds a spill file.
func assertNoneLeft(t *testing.T, dir string) {
	t.Helper()
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range left {
		if strings.HasPrefix(f.Name(), "fpcheck-run-") {
			t.Errorf("%s is left in the temporary directory", f.Name())
		}
	}
}

// TestSpilledReplayMatchesHeld replays every equivalence case with every
// kept text spilled to the file, and holds it to the evidence of a replay
// that keeps them in memory; no file is left once the runs are judged.
func TestSpilledReplayMatchesHeld(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	forEachEquivalenceCase(t, func(name string, data []byte, runs []*recording.Run, v declVariant, decl *checks.Declarations, opts Options) {
		for _, run := range runs {
			held := replayOutcome(run, decl, opts, false)
			spilled := opts
			spilled.KeepInMemory = 1
			got := replayOutcome(run, decl, spilled, false)
			if diff := cmp.Diff(held, got); diff != "" {
				t.Errorf("%s (%s) run %s: the spilled replay differs (-held +spilled):\n%s", name, v.name, run.ID, diff)
			}
		}
	})
	assertNoneLeft(t, dir)
}

// TestKeptBytes feeds generated runs to an engine one event at a time:
// what it counts as kept grows with the distinct result bytes, not with
// the results served, and a run whose texts went to the file judges as
// one that held them, leaving no file behind.
func TestKeptBytes(t *testing.T) {
	decl, err := checks.ParseDeclarations("bench.yaml", []byte(synthArmAll))
	if err != nil {
		t.Fatal(err)
	}
	const n, size = 64, 4096
	replayKept := func(distinct bool, budget int64) (int64, *engine) {
		run := &recording.Run{Input: "kept.jsonl", ID: "run-kept"}
		e := newEngine(checks.Registry, decl, checks.PostureObserve, run, false)
		e.store.budget = budget
		keptRun(n, size, distinct, 8, e.handle)
		kept := e.keptBytes()
		e.finish()
		return kept, e
	}
	tests := []struct {
		name     string
		distinct bool
		min, max int64
	}{
		{"distinct", true, n * size, n*size + n*1024},
		{"identical", false, size, size + n*1024},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("TMPDIR", dir)
			held, he := replayKept(tt.distinct, 1<<30)
			if held < tt.min || held > tt.max {
				t.Errorf("kept %d bytes, want %d to %d", held, tt.min, tt.max)
			}
			spilled, se := replayKept(tt.distinct, 1)
			if spilled != held {
				t.Errorf("kept %d bytes spilled, %d held", spilled, held)
			}
			if diff := cmp.Diff(he.ledger.Rows(), se.ledger.Rows()); diff != "" {
				t.Errorf("the spilled run judges otherwise (-held +spilled):\n%s", diff)
			}
			if diff := cmp.Diff(he.ledger.Findings(), se.ledger.Findings()); diff != "" {
				t.Errorf("the spilled run files otherwise (-held +spilled):\n%s", diff)
			}
			assertNoneLeft(t, dir)
		})
	}
}

// TestServedLookupsMatchSlice holds the remembered lookups to a plain
// search of every earlier result: results of grounds, of other tools and
// of no named tool (some named later), identical and distinct texts,
// values looked up again and again and over shorter prefixes (deferred
// encounters), with and without every text spilled.
func TestServedLookupsMatchSlice(t *testing.T) {
	tools := []string{"fleet_report", "", "other_tool", "inventory"}
	values := []string{"host-01", "HOST-02", "host-03", "zz-none", "rack-a1"}
	for _, budget := range []int64{1 << 20, 1} {
		t.Run(fmt.Sprintf("budget-%d", budget), func(t *testing.T) {
			t.Setenv("TMPDIR", t.TempDir())
			run := &recording.Run{Input: "lookups.jsonl", ID: "run-lookups"}
			e := newEngine(checks.Registry, &checks.Declarations{}, checks.PostureObserve, run, false)
			e.store.budget = budget
			var plain []checks.ServedResult
			produced, unnamed := 0, 0
			seed := uint32(7)
			next := func(n int) int {
				seed = seed*1664525 + 1013904223
				return int(seed>>16) % n
			}
			for step := range 400 {
				switch next(4) {
				case 0, 1:
					tool := tools[next(len(tools))]
					id := fmt.Sprintf("c-%d", step)
					text := fmt.Sprintf("Report: %s and %s", values[next(len(values))], values[next(len(values))])
					if next(3) == 0 {
						text = "Report: HOST-01 online"
					}
					e.serve(tool, id, text)
					plain = append(plain, checks.ServedResult{Tool: tool, CallID: id, Text: text})
				case 2:
					// A result of no named tool is named later.
					for i := range e.served {
						if e.served[i].tool == "" && next(8) == 0 {
							e.served[i].tool = "fleet_report"
							plain[i].Tool = "fleet_report"
						}
					}
				default:
					grounds := [][]string{{"fleet_report"}, {"inventory", "fleet_report"}, {"other_tool"}}[next(3)]
					n := len(plain)
					if n > 0 && next(2) == 0 {
						n = next(n)
					}
					args := json.RawMessage(fmt.Sprintf(`{"a":%q,"b":%q}`, values[next(len(values))], values[next(len(values))]))
					tool := &checks.ToolDecl{Name: "lookup", ArgumentsFrom: grounds}
					got, problem, _ := e.groundKeys(tool, "q", args, n)
					want, err := checks.KeyArguments(args, grounds, plain[:n])
					if problem != "" || err != nil {
						t.Fatalf("step %d: %s %v", step, problem, err)
					}
					for i := range want {
						if want[i].ProducedBy != nil {
							want[i].ProducedBy.Text = ""
							produced++
						}
						if want[i].InUnnamedResult {
							unnamed++
						}
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Fatalf("step %d: grounds %v over %d results (-plain +remembered):\n%s", step, grounds, n, diff)
					}
				}
			}
			if produced == 0 || unnamed == 0 {
				t.Errorf("the lookups found %d produced and %d unnamed values: the case tests too little", produced, unnamed)
			}
			e.store.close()
		})
	}
}

// TestLookupMemoBounded: many distinct values looked up in many results
// keep the memo within its bound (past it, it forgets and starts again),
// and what is found again is what a plain search finds.
func TestLookupMemoBounded(t *testing.T) {
	run := &recording.Run{Input: "lookups.jsonl", ID: "run-lookups"}
	e := newEngine(checks.Registry, &checks.Declarations{}, checks.PostureObserve, run, false)
	const limit = 8 << 10
	e.lookups.limit = limit
	var plain []checks.ServedResult
	for i := range 600 {
		tool := []string{"fleet_report", "other_tool", ""}[i%3]
		text := fmt.Sprintf("Report %d: host-%03d and host-%03d", i, i%250, (i*7)%250)
		e.serve(tool, fmt.Sprintf("c-%d", i), text)
		plain = append(plain, checks.ServedResult{Tool: tool, CallID: fmt.Sprintf("c-%d", i), Text: text})
	}
	tool := &checks.ToolDecl{Name: "lookup", ArgumentsFrom: []string{"fleet_report"}}
	// One value's worth beside the bound: its entries, its two bits a
	// text and its hits.
	slack := int64(2*(entryCost+64) + 16*(600/64+1) + 4*600)
	forgot := false
	for round := range 2 {
		for v := range 300 {
			args := json.RawMessage(fmt.Sprintf(`{"machine":"HOST-%03d"}`, (v*13+round)%300))
			before := e.lookups.bytes
			got, problem, _ := e.groundKeys(tool, "q", args, len(plain))
			want, err := checks.KeyArguments(args, tool.ArgumentsFrom, plain)
			if problem != "" || err != nil {
				t.Fatalf("%s %v", problem, err)
			}
			for i := range want {
				if want[i].ProducedBy != nil {
					want[i].ProducedBy.Text = ""
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("round %d, value %d (-plain +remembered):\n%s", round, v, diff)
			}
			if e.lookups.bytes > limit+slack {
				t.Fatalf("the memo keeps %d bytes, past its bound of %d and one value's %d", e.lookups.bytes, limit, slack)
			}
			forgot = forgot || e.lookups.bytes < before
			if e.keptBytes() < e.store.kept()+e.lookups.bytes {
				t.Fatalf("kept bytes %d leave out the memo's %d", e.keptBytes(), e.lookups.bytes)
			}
		}
	}
	if !forgot {
		t.Error("the memo never reached its bound: the case tests too little")
	}
}

// TestLookupOfIdenticalResults: a value that every one of many identical
// results holds is searched for in their one text once, and the memo
// keeps the first result that decides it, not every result holding it.
func TestLookupOfIdenticalResults(t *testing.T) {
	run := &recording.Run{Input: "lookups.jsonl", ID: "run-lookups"}
	e := newEngine(checks.Registry, &checks.Declarations{}, checks.PostureObserve, run, false)
	for i := range 10_000 {
		e.serve("fleet_report", fmt.Sprintf("c-%d", i), "IDS screen2 screen7 rack-a1")
	}
	tool := &checks.ToolDecl{Name: "screen_fire", ArgumentsFrom: []string{"fleet_report"}}
	for range 3 {
		keys, problem, _ := e.groundKeys(tool, "f", json.RawMessage(`{"id":"screen2"}`), len(e.served))
		if problem != "" || len(keys) != 1 || keys[0].ProducedBy == nil || keys[0].ProducedBy.CallID != "c-0" {
			t.Fatalf("keys %+v, %q", keys, problem)
		}
	}
	if e.lookups.bytes > 1024 {
		t.Errorf("the memo keeps %d bytes for one value in one text", e.lookups.bytes)
	}
}

// TestLookupReadFailureIsStated: results that cannot be read back make the
// key arguments a stated problem (the empty-lookup encounter is then
// unreachable), never a value no ground produced.
func TestLookupReadFailureIsStated(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	run := &recording.Run{Input: "lookups.jsonl", ID: "run-lookups"}
	e := newEngine(checks.Registry, &checks.Declarations{}, checks.PostureObserve, run, false)
	e.store.budget = 1
	e.serve("fleet_report", "c-1", "host-01 online")
	e.store.file.Close()
	tool := &checks.ToolDecl{Name: "backup_status", ArgumentsFrom: []string{"fleet_report"}}
	keys, problem, _ := e.groundKeys(tool, "c-2", json.RawMessage(`{"machine":"host-01"}`), len(e.served))
	if keys != nil || !strings.Contains(problem, "cannot be looked up") || !strings.Contains(problem, "could not be read back") {
		t.Errorf("keys %v, problem %q", keys, problem)
	}
	v := checks.WriteView{Call: checks.ToolCall{ID: "c-2", Name: "backup_status"}, CallRecorded: true, Result: json.RawMessage(`[]`),
		Tool: tool, KeysProblem: problem, GroundsServed: []string{"fleet_report"}}
	if got := checks.EmptyLookup.OnWrite(v, &checks.Declarations{Dials: checks.Dials{NoticeEmptyLookups: ptrTrue()}}); got.Disposition != checks.Unreachable {
		t.Errorf("the encounter is %v, want unreachable", got.Disposition)
	}
}

func ptrTrue() *bool { b := true; return &b }

func TestKeepInMemoryFor(t *testing.T) {
	tests := []struct{ maxRun, want int64 }{
		{0, DefaultKeepInMemory},
		{-1, DefaultKeepInMemory},
		{64 << 10, 64 << 10},
		{8 << 20, 1 << 20},
		{512 << 20, DefaultKeepInMemory},
	}
	for _, tt := range tests {
		if got := KeepInMemoryFor(tt.maxRun); got != tt.want {
			t.Errorf("KeepInMemoryFor(%d) = %d, want %d", tt.maxRun, got, tt.want)
		}
	}
}

// TestServedIndex holds the served results' counts to what a scan of every
// result gives, through results served unnamed, named, without a call id
// and named later by a second serving or by the end of the run: how many
// wait for a name (hangsOnUnnamed), and which grounds served anything
// among the first n (groundKeys).
func TestServedIndex(t *testing.T) {
	type serving struct{ tool, callID string }
	tests := []struct {
		name  string
		steps []serving
		// named are call ids the run names at its end, with their tools.
		named map[string]string
	}{
		{"named as served", []serving{{"a", "c1"}, {"b", "c2"}, {"a", "c3"}}, nil},
		{"unnamed, then named by a second serving", []serving{{"", "c1"}, {"a", "c2"}, {"b", "c1"}, {"a", "c1"}}, nil},
		{"no call id", []serving{{"", ""}, {"", ""}, {"a", ""}}, nil},
		{"a later result named first", []serving{{"", "c1"}, {"", "c2"}, {"a", "c2"}, {"a", "c1"}}, nil},
		{"named at the end", []serving{{"", "c1"}, {"b", "c2"}, {"", "c3"}}, map[string]string{"c1": "b", "c3": "a"}},
	}
	tool := &checks.ToolDecl{Name: "q", ArgumentsFrom: []string{"a", "b", "never"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEngine(checks.Registry, &checks.Declarations{}, checks.PostureObserve, &recording.Run{Input: "served.jsonl", ID: "run-served"}, false)
			held := func(step string) {
				t.Helper()
				unnamed := 0
				for _, s := range e.served {
					if s.tool == "" && s.callID != "" {
						unnamed++
					}
				}
				if e.unnamedServed != unnamed {
					t.Errorf("%s: %d results wait for a name, the count says %d", step, unnamed, e.unnamedServed)
				}
				for n := range len(e.served) + 1 {
					var want []string
					for _, g := range tool.ArgumentsFrom {
						for _, s := range e.served[:n] {
							if s.tool == g {
								want = append(want, g)
								break
							}
						}
					}
					if _, _, got := e.groundKeys(tool, "", nil, n); !cmp.Equal(want, got) {
						t.Errorf("%s: grounds served among the first %d: %v, want %v", step, n, got, want)
					}
				}
			}
			for i, s := range tt.steps {
				e.serve(s.tool, s.callID, fmt.Sprintf("result %d", i))
				held(fmt.Sprintf("after serving %d", i))
			}
			if tt.named != nil {
				for id, name := range tt.named {
					e.nameCall(id, name)
				}
				// One deferred encounter makes the end name what it can.
				var write *checks.Check
				for _, c := range checks.Registry {
					if c.OnWrite != nil && write == nil {
						write = c
					}
				}
				e.deferred = []deferredWrite{{check: write, view: checks.WriteView{Tool: tool}}}
				e.resolveDeferred()
				held("at the end")
			}
		})
	}
}

// TestTextStoreRefsFollowEquality interns texts as written and lowered, in
// a mixed order, under budgets that hold all, some or none of them in
// memory: two asks share a ref exactly when they ask the same text the
// same way, and every ref reads back its text.
func TestTextStoreRefsFollowEquality(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	var pool []string
	for i := range 24 {
		pool = append(pool, strings.Repeat(string(rune('A'+i%5)), i%7)+fmt.Sprintf("-Text%d", i%11))
	}
	pool = append(pool, "")
	for _, budget := range []int64{1, 16, 64, 1 << 20} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			st := newTextStore(budget)
			defer st.close()
			type ask struct {
				s     string
				lower bool
			}
			refs := map[ask]textRef{}
			seen := map[textRef]ask{}
			x := uint32(budget) + 7
			for range 400 {
				x = x*1664525 + 1013904223
				a := ask{s: pool[int(x>>8)%len(pool)], lower: x>>4&1 == 1}
				var r textRef
				want := a.s
				if a.lower {
					r, want = st.internLower(a.s, checks.Lower), checks.Lower(a.s)
				} else {
					r = st.intern(a.s)
				}
				if prev, ok := refs[a]; ok && prev != r {
					t.Fatalf("%+v asked again: ref %d, was %d", a, r, prev)
				}
				if other, ok := seen[r]; ok && other != a {
					t.Fatalf("%+v and %+v share ref %d", a, other, r)
				}
				refs[a], seen[r] = r, a
				if got, err := st.text(r); err != nil || got != want {
					t.Fatalf("ref %d of %+v reads back %q, %v; want %q", r, a, got, err, want)
				}
			}
		})
	}
}
