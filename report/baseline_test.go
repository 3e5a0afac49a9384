package report

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// entry is a baseline entry's JSON with every field stated, changed by
// fields ("key":value, a null leaving the key out).
func entry(fields ...string) string {
	all := []string{`"identity":"a @b [] "`, `"kind":"a"`, `"seam":"b"`, `"advisory":false`, `"reason":""`, `"expires":""`}
	for _, f := range fields {
		key, value, _ := strings.Cut(f, ":")
		for i, a := range all {
			if strings.HasPrefix(a, key+":") {
				all[i] = f
				if value == "null" {
					all[i] = ""
				}
			}
		}
	}
	return "{" + strings.Join(slices.DeleteFunc(all, func(s string) bool { return s == "" }), ",") + "}"
}

func TestParseBaselineRefusals(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "the file is empty"},
		{"not json", "{", "not a baseline file"},
		{"array", "[]", "not a baseline file"},
		{"no version", `{"entries":[]}`, `no "version"`},
		{"other version", `{"version":3,"entries":[]}`, "version 3 is not one this build reads"},
		{"the version before classes", `{"version":1,"entries":[{"identity":"a @b [] ","kind":"a","seam":"b","reason":"","expires":""}]}`, "version 1, written by an earlier fpcheck: its entries do not say whether they accept the defect or the advisory of their identity, which the two share, so it accepts nothing here; refresh it once with 'fpcheck baseline write --baseline b.json RECORDING... -o b.json'"},
		{"no entries", `{"version":2}`, `no "entries" list`},
		{"version 1, no entries", `{"version":1}`, `no "entries" list`},
		{"version 1, null entries", `{"version":1,"entries":null}`, `no "entries" list`},
		{"unknown field", `{"version":2,"entries":[{"identity":"x @y [] p ","expiry":"2020-01-01"}]}`, `unknown field "expiry"`},
		{"no identity", `{"version":2,"entries":[{"reason":"r"}]}`, "entry 1 has no identity"},
		{"bad date", `{"version":2,"entries":[` + entry(`"expires":"31/12/2026"`) + `]}`, "not a date of the form YYYY-MM-DD"},
		{"duplicate", `{"version":2,"entries":[` + entry(`"advisory":true`) + `,` + entry(`"advisory":true`) + `]}`, `entries 1 and 2 accept the same advisory, identity "a @b [] "`},
		{"kind mismatch", `{"version":2,"entries":[` + entry(`"kind":"c"`) + `]}`, "do not match its identity"},
		{"no class", `{"version":2,"entries":[` + entry() + `,` + entry(`"advisory":null`) + `]}`, `entry 2 has no "advisory": say whether it accepts the advisory (true) or the defect (false)`},
		{"no kind", `{"version":2,"entries":[` + entry(`"kind":null`) + `]}`, `entry 1 has no "kind"; every entry states identity, kind, seam, advisory, reason and expires`},
		{"no seam", `{"version":2,"entries":[` + entry(`"seam":null`) + `]}`, `entry 1 has no "seam"`},
		{"no reason", `{"version":2,"entries":[` + entry() + `,` + entry(`"reason":null`, `"advisory":true`) + `]}`, `entry 2 has no "reason"`},
		{"no expiry", `{"version":2,"entries":[` + entry(`"expires":null`) + `]}`, `entry 1 has no "expires"`},
		{"trailing", `{"version":2,"entries":[]} {}`, "more than one JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The refresh's reading refuses what ParseBaseline does, but a
			// version 1 file.
			if _, err := ParsePreviousBaseline("b.json", []byte(tt.data)); err == nil && !strings.HasPrefix(tt.data, `{"version":1,`) {
				t.Errorf("ParsePreviousBaseline read %s", tt.data)
			}
			_, err := ParseBaseline("b.json", []byte(tt.data))
			var be *BaselineError
			if !errors.As(err, &be) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want a BaselineError containing %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), "b.json") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestBaselineRoundTripSortedDeterministic(t *testing.T) {
	r := Build(readInputs(t, []string{"report/mixed.jsonl", "formats/defect.jsonl", "report/synthetic.jsonl"}), testOptions(Options{Kind: "unsupported-claim", Limit: 1}))
	b := NewBaseline(r, BaselineOptions{Reason: "accepted at adoption", Expires: "2027-01-31"})
	var ids []string
	for _, e := range b.Entries {
		ids = append(ids, e.Identity)
		if e.Kind == "" || e.Seam == "" || !strings.HasPrefix(e.Identity, e.Kind+" @"+e.Seam+" [") {
			t.Errorf("entry %+v", e)
		}
	}
	// mixed: wire, dangling, claim nav, claim scope; defect.jsonl's dangling
	// defect is the same identity; synthetic canaries are never baselined;
	// the kind filter and limit do not shorten the baseline.
	if len(ids) < 4 || !slicesSorted(ids) {
		t.Fatalf("entries %q", ids)
	}
	for _, id := range ids {
		if strings.Contains(id, "canary") {
			t.Errorf("synthetic finding baselined: %q", id)
		}
	}
	var a, c bytes.Buffer
	if err := b.Encode(&a); err != nil {
		t.Fatal(err)
	}
	back, err := ParseBaseline("x", a.Bytes())
	if err != nil {
		t.Fatalf("own output does not parse: %v\n%s", err, a.String())
	}
	// Reversed input order encodes to the same bytes.
	for i, j := 0, len(back.Entries)-1; i < j; i, j = i+1, j-1 {
		back.Entries[i], back.Entries[j] = back.Entries[j], back.Entries[i]
	}
	if err := back.Encode(&c); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Errorf("encoding depends on entry order")
	}
	if !strings.HasPrefix(a.String(), "{\n  \"version\": 2,\n  \"entries\": [\n") {
		t.Errorf("unexpected layout:\n%s", a.String())
	}
	// Rewriting keeps what people wrote for entries still found.
	prev := &Baseline{Entries: []BaselineEntry{{Identity: ids[0], Reason: "kept", Expires: "2030-01-01"}, {Identity: "gone @x [] ", Reason: "stale"}}}
	nb := NewBaseline(r, BaselineOptions{Reason: "new", Previous: prev})
	for _, e := range nb.Entries {
		switch {
		case e.Identity == ids[0] && (e.Reason != "kept" || e.Expires != "2030-01-01"):
			t.Errorf("previous reason lost: %+v", e)
		case e.Identity == "gone @x [] ":
			t.Errorf("stale entry carried over")
		case e.Identity != ids[0] && e.Reason != "new":
			t.Errorf("new entry reason %+v", e)
		}
	}
}

func slicesSorted(s []string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] > s[i] {
			return false
		}
	}
	return true
}

func TestBaselineAcceptedExpiredStale(t *testing.T) {
	wire := "invariant-violation @wire [tool ghost_tool]  "
	dangling := "dangling-reference @compose [tool screen_fire + tool whats_here]  "
	claimNav := "unsupported-claim @claim [entity screen2] nav "
	scope := "unsupported-claim @claim [entity screen2] scope "
	all := []BaselineEntry{{Identity: wire}, {Identity: dangling}, {Identity: claimNav}, {Identity: scope, Advisory: true}}
	tests := []struct {
		name       string
		entries    []BaselineEntry
		today      string
		exit       int
		defects    int
		baselined  int
		headline   HeadlineKind
		expired    int
		stale      int
		wantInText string
	}{
		{name: "no baseline entry matches", entries: []BaselineEntry{{Identity: "x @y [] "}}, today: testToday, exit: ExitDefects, defects: 3, stale: 1, headline: HeadlineFindings, wantInText: "stale: \"x @y [] \""},
		{name: "all accepted", entries: all, today: testToday, exit: ExitGreen, baselined: 4, headline: HeadlineBaselined, wantInText: "BASELINED ONLY"},
		{name: "one defect left", entries: all[:2], today: testToday, exit: ExitDefects, defects: 1, baselined: 2, headline: HeadlineFindings, wantInText: "Also listed: 2 findings accepted by the baseline"},
		{name: "expired entry fails again", entries: []BaselineEntry{{Identity: wire, Expires: "2026-11-30"}, {Identity: dangling}, {Identity: claimNav}, {Identity: scope, Advisory: true}},
			today: testToday, exit: ExitDefects, defects: 1, baselined: 3, expired: 1, headline: HeadlineFindings, wantInText: "BASELINE EXPIRED on 2026-11-30 (fails again)"},
		{name: "an entry for the defect does not accept the advisory", entries: []BaselineEntry{{Identity: wire}, {Identity: dangling}, {Identity: claimNav}, {Identity: scope}},
			today: testToday, exit: ExitGreen, baselined: 3, stale: 1, headline: HeadlineFindings, wantInText: "stale: \"" + scope + "\""},
		{name: "not yet expired", entries: []BaselineEntry{{Identity: wire, Expires: "2026-12-01"}, {Identity: dangling}, {Identity: claimNav}, {Identity: scope, Advisory: true}},
			today: testToday, exit: ExitGreen, baselined: 4, headline: HeadlineBaselined, wantInText: "until 2026-12-01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &Baseline{Path: "b.json", Entries: tt.entries}
			r := Build(readInputs(t, []string{"report/mixed.jsonl"}), testOptions(Options{Baseline: b, Today: tt.today}))
			run := r.Runs[0]
			if got := r.ExitCode(); got != tt.exit {
				t.Errorf("exit %d, want %d", got, tt.exit)
			}
			if run.Defects != tt.defects || run.Baselined != tt.baselined || run.HeadlineKind != tt.headline {
				t.Errorf("defects %d baselined %d headline %s; want %d %d %s (%s)", run.Defects, run.Baselined, run.HeadlineKind, tt.defects, tt.baselined, tt.headline, run.Headline)
			}
			if len(r.Baseline.Expired) != tt.expired || len(r.Baseline.Stale) != tt.stale {
				t.Errorf("expired %v stale %v", r.Baseline.Expired, r.Baseline.Stale)
			}
			var text bytes.Buffer
			_ = RenderText(&text, r, TextOptions{})
			if !strings.Contains(text.String(), tt.wantInText) {
				t.Errorf("text lacks %q:\n%s", tt.wantInText, text.String())
			}
			// The listed findings are never hidden by the baseline.
			if len(run.Findings) != 4 {
				t.Errorf("%d findings listed, want 4", len(run.Findings))
			}
		})
	}
}

// TestBaselineUnchangedWithout: a report built without a baseline is byte
// for byte what it was before baselines existed (no new JSON keys).
func TestBaselineUnchangedWithout(t *testing.T) {
	r := Build(readInputs(t, []string{"report/mixed.jsonl"}), testOptions(Options{}))
	var js bytes.Buffer
	_ = RenderJSON(&js, r)
	for _, key := range []string{`"baseline"`, `"baselined"`} {
		if strings.Contains(js.String(), key) {
			t.Errorf("JSON carries %s without a baseline", key)
		}
	}
}

// TestBaselineLinesNameTheAdvisoryClass: an expired or stale entry that
// accepts an advisory is named with its class, since the defect of the
// same identity may be the finding the report lists beside it.
// TestPreviousBaselineVersion1: the refresh reads a version 1 file, each
// entry lending its reason and expiry to both classes of its identity,
// and refuses one that names an identity twice, as version 2 does.
func TestPreviousBaselineVersion1(t *testing.T) {
	b, err := ParsePreviousBaseline("b.json", []byte(`{"version":1,"entries":[{"identity":"a @b [] ","kind":"a","seam":"b","reason":"r","expires":"2099-01-01"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []BaselineEntry{{Identity: "a @b [] ", Reason: "r", Expires: "2099-01-01"}, {Identity: "a @b [] ", Advisory: true, Reason: "r", Expires: "2099-01-01"}}
	if diff := cmp.Diff(want, b.Entries); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	_, err = ParsePreviousBaseline("b.json", []byte(`{"version":1,"entries":[{"identity":"a @b [] ","expires":"2020-01-01"},{"identity":"a @b [] ","expires":""}]}`))
	if err == nil || !strings.Contains(err.Error(), `entries 1 and 2 name the same identity "a @b [] "`) {
		t.Errorf("err = %v, want the twice-named identity refused", err)
	}
}

func TestBaselineLinesNameTheAdvisoryClass(t *testing.T) {
	br := &BaselineReport{Path: "b.json", Entries: 2,
		Expired: []BaselineEntry{{Identity: "a @b [] ", Advisory: true, Expires: "2020-01-01"}},
		Stale:   []BaselineEntry{{Identity: "a @b [] ", Advisory: true}, {Identity: "c @d [] "}}}
	_, lines := baselineSentences(br)
	want := []string{`⚠ expired on 2020-01-01: advisory "a @b [] "`, `stale: advisory "a @b [] "`, `stale: "c @d [] "`}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}
