package report

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fpcheck/fpcheck/checks"
)

func TestMatches(t *testing.T) {
	tests := []struct {
		name, text string
		needles    []string
		want       []Match
	}{
		{"none", "nothing here", []string{"4417-ganymede"}, nil},
		{"case-insensitive, offsets of the text", "Job BKP-4417-GANYMEDE done", []string{"4417-ganymede"},
			[]Match{{Start: 8, End: 21, Needle: "4417-ganymede"}}},
		{"every occurrence, in order", "a-1 b a-1", []string{"a-1"},
			[]Match{{Start: 0, End: 3, Needle: "a-1"}, {Start: 6, End: 9, Needle: "a-1"}}},
		{"overlaps keep the first", "rack-4417-x", []string{"rack-4417", "4417-x"},
			[]Match{{Start: 0, End: 9, Needle: "rack-4417"}}},
		{"no needles", "text", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Matches(tt.text, tt.needles)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFold(t *testing.T) {
	long := strings.Repeat("x", 500) + " 4417-ganymede " + strings.Repeat("y", 500)
	tests := []struct {
		name    string
		text    string
		needles []string
		context int
		want    []Segment
	}{
		{"short text whole", "job 4417-ganymede ok", []string{"4417-ganymede"}, 10,
			[]Segment{{Text: "job "}, {Text: "4417-ganymede", Match: true}, {Text: " ok"}}},
		{"long text folded around the match", long, []string{"4417-ganymede"}, 3,
			[]Segment{{Folded: 498}, {Text: "xx "}, {Text: "4417-ganymede", Match: true}, {Text: " yy"}, {Folded: 498}}},
		{"long text without a match keeps its head", strings.Repeat("z", 40), nil, 5,
			[]Segment{{Text: strings.Repeat("z", 10)}, {Folded: 30}}},
		{"folding counts characters, not bytes", strings.Repeat("é", 40), nil, 5,
			[]Segment{{Text: strings.Repeat("é", 10)}, {Folded: 30}}},
		{"a match longer than a value is shown is marked at both ends", "job " + strings.Repeat("é", 1000) + " ok", []string{strings.Repeat("é", 1000)}, 5,
			[]Segment{{Text: "job "}, {Text: strings.Repeat("é", maxShown/2), Match: true}, {Folded: 1000 - maxShown}, {Text: strings.Repeat("é", maxShown/2), Match: true}, {Text: " ok"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Fold(tt.text, Matches(tt.text, tt.needles), tt.context)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestGroundVerdict(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name    string
		holds   []string
		needles []string
		want    string
	}{
		{"holds", []string{"4417-ganymede"}, []string{"4417-ganymede"}, `holds "4417-ganymede"`},
		{"does not hold", nil, []string{"4417-ganymede"}, `does not hold "4417-ganymede"`},
		{"nothing looked for says nothing", nil, nil, ""},
		{"a long value is quoted clipped", nil, []string{long}, `does not hold "` + Shorten(long, maxShown) + `"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := groundVerdict(GroundResult{Holds: tt.holds}, tt.needles); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestShellWord(t *testing.T) {
	tests := []struct{ in, want string }{
		{"run-1", "run-1"},
		{"", "''"},
		{"my run", "'my run'"},
		{"it's", `'it'\''s'`},
		{`run-\x1b-2`, `'run-\x1b-2'`},
		{"run-\x1b-2", `$'run-\x1b-2'`},
		{"a\nb", `$'a\x0ab'`},
		{"it's\x1b", `$'it\'s\x1b'`},
		{"back\\slash\x07", `$'back\\slash\x07'`},
		{"caf\xe9", `$'caf\xe9'`},
		{"é\u202e", `$'é\xe2\x80\xae'`},
		{"##[warning]r", `$'##\x5bwarning]r'`},
		{"a#[b##", "'a#[b##'"},
	}
	for _, tt := range tests {
		if got := ShellWord(tt.in); got != tt.want {
			t.Errorf("ShellWord(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if got := ShellWord(tt.in); !printsAsIs(got) {
			t.Errorf("ShellWord(%q) = %q, which a terminal or a CI log does not show as it is", tt.in, got)
		}
	}
	// bash reads every word back as it was.
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to read the words back")
	}
	for _, tt := range tests {
		out, err := exec.Command(bash, "-c", "printf %s "+ShellWord(tt.in)).Output()
		if err != nil || string(out) != tt.in {
			t.Errorf("bash reads %s as %q (%v), want %q", ShellWord(tt.in), out, err, tt.in)
		}
	}
}

// TestExplainArgsRunIDs: a run id a terminal cannot show as it is never
// reaches the command as its sanitized look-alike: the fingerprint names
// the finding alone when it can, else the id is written in $'…'.
func TestExplainArgsRunIDs(t *testing.T) {
	mk := func(kind string) Finding {
		cf := checks.Finding{Kind: kind, Seam: checks.SeamChoice, Subjects: []checks.Subject{{Kind: "tool", ID: "t"}}}
		return Finding{Finding: cf, Identity: cf.Identity()}
	}
	a, b := mk("unsupported-argument"), mk("dangling-reference")
	print := func(f Finding) string { return Fingerprint(f.Identity)[:12] }
	tests := []struct {
		name string
		runs []Run
		want string
	}{
		{"a plain id by --run", []Run{{RunID: "run-1", Input: "x.jsonl", Findings: []Finding{a}}},
			"fpcheck explain x.jsonl --run run-1 1"},
		{"an id with a control character by the fingerprint", []Run{{RunID: "run-\x1b-2", Input: "x.jsonl", Findings: []Finding{a}}, {RunID: "run-\\x1b-2", Input: "x.jsonl", Findings: []Finding{b}}},
			"fpcheck explain x.jsonl " + print(a)},
		{"the same finding in another input does not matter", []Run{{RunID: "run-\n", Input: "x.jsonl", Findings: []Finding{a}}, {RunID: "run-\n", Input: "y.jsonl", Findings: []Finding{a}}},
			"fpcheck explain x.jsonl " + print(a)},
		{"the same finding in another run of the input: $'…'", []Run{{RunID: "run-\xff", Input: "x.jsonl", Findings: []Finding{a}}, {RunID: "run-2", Input: "x.jsonl", Findings: []Finding{a}}},
			`fpcheck explain x.jsonl --run $'run-\xff' 1`},
		{"a path with a control character", []Run{{RunID: "run-1", Input: "x\x1b.jsonl", Findings: []Finding{a}}},
			`fpcheck explain $'x\x1b.jsonl' --run run-1 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Report{Runs: tt.runs}
			if got := r.ExplainCommand(&r.Runs[0], 0); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestSelectFinding(t *testing.T) {
	f := func(kind, tool string) Finding {
		cf := checks.Finding{Kind: kind, Seam: checks.SeamChoice, Subjects: []checks.Subject{{Kind: "tool", ID: tool}}}
		return Finding{Finding: cf, Identity: cf.Identity()}
	}
	r := &Report{Runs: []Run{
		{RunID: "r1", Findings: []Finding{f("unsupported-argument", "a"), f("unsupported-argument", "b")}},
		{RunID: "r2"},
		{RunID: "r3", Findings: []Finding{f("unsupported-argument", "a")}},
		{RunID: "r\x1b"},
	}}
	idA := r.Runs[0].Findings[0].Identity
	tests := []struct {
		name, run, ref string
		want           FindingAt
		err            string
	}{
		{name: "number in a named run", run: "r1", ref: "2", want: FindingAt{Run: 0, Finding: 1}},
		{name: "number without a run, several runs list findings", ref: "1", err: "2 runs list findings; name the run with --run (one of: r1, r3)"},
		{name: "number out of range", run: "r3", ref: "2", err: "run r3 lists 1 finding; there is no finding 2"},
		{name: "identity in one run", run: "r3", ref: idA, want: FindingAt{Run: 2, Finding: 0}},
		{name: "identity in several runs", ref: idA, err: "names 2 listed findings"},
		{name: "fingerprint prefix", run: "r1", ref: Fingerprint(r.Runs[0].Findings[1].Identity)[:10], want: FindingAt{Run: 0, Finding: 1}},
		{name: "fingerprint in upper case", run: "r1", ref: strings.ToUpper(Fingerprint(idA)), want: FindingAt{Run: 0, Finding: 0}},
		{name: "short hex", ref: "abc", err: "too short for a fingerprint"},
		{name: "unknown run", run: "nope", ref: "1", err: "no run nope in this recording; its runs: r1, r2, r3"},
		{name: "run without findings", run: "r2", ref: "1", err: "no run of this recording lists a finding"},
		{name: "nothing matches", ref: "not-a-finding", err: "no listed finding is not-a-finding"},
		{name: "ids a terminal shows alike read apart", run: `r\x1b`, ref: "1", err: `no run 'r\x1b' in this recording; its runs: r1, r2, r3, $'r\x1b'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.SelectFinding(tt.run, tt.ref)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestAnchorIsTheJudgedCall: a finding whose evidence holds two tool
// calls, the one whose result grounded the other and the other, judged, is
// placed at the judged one, the later.
func TestAnchorIsTheJudgedCall(t *testing.T) {
	ground := checks.Position{What: checks.EvidenceToolCall, Line: 14, Index: 13, ToolCallID: "g1"}
	judged := checks.Position{What: checks.EvidenceToolCall, Line: 30, Index: 29, ToolCallID: "g2"}
	model := checks.Position{What: checks.EvidenceModelCall, Line: 27, Index: 26}
	f := Finding{Finding: checks.Finding{Evidence: []checks.Position{judged, model, ground}}}
	if p, ok := f.Anchor(); !ok || p.ToolCallID != "g2" {
		t.Errorf("anchor %+v, want the judged call g2", p)
	}
}
