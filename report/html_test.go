package report

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/internal/synth"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
)

// htmlTags are the elements the template writes; any other element in a
// page came from a recording that escaped the escaping.
var htmlTags = []string{"!DOCTYPE", "html", "head", "meta", "title", "style", "body", "a", "header", "h1", "h2", "h4", "p", "strong",
	"nav", "main", "section", "div", "table", "thead", "tbody", "tr", "th", "td", "span", "ul", "ol", "li", "code", "form", "label",
	"select", "option", "output", "details", "summary", "figure", "figcaption", "svg", "text", "g", "rect", "path", "dl", "dt", "dd",
	"footer", "script", "template", "mark"}

var (
	htmlTagRE  = regexp.MustCompile(`<(/?)([!A-Za-z][A-Za-z0-9-]*)([^<>]*)>`)
	htmlAttrRE = regexp.MustCompile(`\s([^\s="'<>/]+)(?:="([^"]*)")?`)
	htmlCSPRE  = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`)
)

// checkHTML holds a rendered page to what the template alone can write:
// only its elements, one script (the page's own, admitted by the policy),
// no event-handler attribute, no URL but an in-page anchor, and the
// policy itself. Every '<' of the page must open one of those elements:
// a '<' from a recording is written as &lt;.
func checkHTML(t *testing.T, out []byte) {
	t.Helper()
	s := string(out)
	if !strings.HasPrefix(s, "<!DOCTYPE html>\n") {
		t.Fatalf("html output does not start with the doctype: %.80q", s)
	}
	// The style and the script are the template's own text; the markup
	// around them is what recordings could reach.
	body := s
	for _, el := range []string{"style", "script"} {
		open, shut := strings.Index(body, "<"+el+">"), strings.Index(body, "</"+el+">")
		if open < 0 || shut < open || strings.Count(body, "<"+el) != 1 {
			t.Fatalf("html output should hold exactly one <%s> element", el)
		}
		body = body[:open+len(el)+2] + body[shut:]
	}
	if n, m := strings.Count(body, "<"), len(htmlTagRE.FindAllStringIndex(body, -1)); n != m {
		t.Fatalf("html output holds %d '<' but %d tags: a '<' stands outside a tag", n, m)
	}
	for _, m := range htmlTagRE.FindAllStringSubmatch(body, -1) {
		if !slices.Contains(htmlTags, m[2]) {
			t.Fatalf("html output holds a <%s> element the template never writes", m[2])
		}
		for _, a := range htmlAttrRE.FindAllStringSubmatch(m[3], -1) {
			name := strings.ToLower(a[1])
			switch {
			case strings.HasPrefix(name, "on"):
				t.Fatalf("html output holds an event-handler attribute %s on <%s>", name, m[2])
			case name == "href" && !strings.HasPrefix(a[2], "#"):
				t.Fatalf("html output links outside the page: href=%q", a[2])
			case name == "src" || name == "srcdoc" || name == "style" || name == "formaction":
				t.Fatalf("html output holds a %s attribute on <%s>", name, m[2])
			}
		}
	}
	m := htmlCSPRE.FindStringSubmatch(s)
	if m == nil || html.UnescapeString(m[1]) != htmlCSP {
		t.Fatal("html output lacks its Content-Security-Policy")
	}
}

// TestHTMLPolicyAdmitsOnlyThePage checks the policy lists the hashes of
// the style and script the page carries, and nothing that loads.
func TestHTMLPolicyAdmitsOnlyThePage(t *testing.T) {
	for _, part := range []string{"default-src 'none'", "style-src '" + cspHash(htmlStyle) + "'", "script-src '" + cspHash(htmlScript) + "'", "base-uri 'none'", "form-action 'none'"} {
		if !strings.Contains(htmlCSP, part) {
			t.Errorf("policy %q lacks %q", htmlCSP, part)
		}
	}
	for _, loose := range []string{"unsafe-inline", "unsafe-eval", "http:", "https:", "*", "data:"} {
		if strings.Contains(htmlCSP, loose) {
			t.Errorf("policy %q admits %q", htmlCSP, loose)
		}
	}
	rep := Build(nil, testOptions(Options{}))
	var b bytes.Buffer
	if err := RenderHTML(&b, rep, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, el := range []struct{ tag, body string }{{"style", htmlStyle}, {"script", htmlScript}} {
		if !strings.Contains(page, "<"+el.tag+">"+el.body+"</"+el.tag+">") {
			t.Errorf("the page's <%s> is not the text its hash was taken of", el.tag)
		}
	}
}

// hostileMarkupRecording is escapes.jsonl with markup in every string a
// page shows, built at test time so that no committed file holds a live
// payload.
func hostileMarkupRecording(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(renderSeedRoot, "hostile", "escapes.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return synth.WithMarkup(data)
}

// TestHTMLHostileMarkup renders the hostile recordings, and the markup
// variant of the escapes one, replayed with encounters: every payload is
// shown as text, none as markup.
func TestHTMLHostileMarkup(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(renderSeedRoot, "hostile", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no hostile fixtures (%v)", err)
	}
	inputs := map[string][]byte{"markup.jsonl": hostileMarkupRecording(t)}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(f)] = data
	}
	for _, name := range sortedKeys(inputs) {
		t.Run(name, func(t *testing.T) {
			in := replayedInputs(t, name, inputs[name])
			rep := Build(in, testOptions(Options{}))
			var b bytes.Buffer
			if err := RenderHTML(&b, rep, RenderOptions{}); err != nil {
				t.Fatal(err)
			}
			checkHTML(t, b.Bytes())
			checkNoControls(t, FormatHTML, b.Bytes())
			if name == "markup.jsonl" {
				page := b.String()
				for _, want := range []string{"&lt;script&gt;window.__fpPwned=1&lt;/script&gt;", "&lt;img src=x onerror=&#34;window.__fpPwned=2&#34;&gt;"} {
					if !strings.Contains(page, want) {
						t.Errorf("the page does not show %q as text", want)
					}
				}
			}
		})
	}
}

// replayedInputs reads an NDJSON recording and replays each run with its
// encounters and its events kept, as the CLI does for the HTML report.
func replayedInputs(t testing.TB, name string, data []byte) []InputResult {
	t.Helper()
	in := InputResult{Path: name}
	st, err := recording.LoadReader(name, bytes.NewReader(data), recording.Options{}, func(run *recording.Run) error {
		rr := NewRunResult(run)
		rr.Explain = &ExplainSource{Run: run}
		ev, err := replay.Replay(run, nil, replay.Options{Encounters: true})
		if err == nil || ev != nil {
			rr.Replayed = ev
		}
		in.Runs = append(in.Runs, rr)
		return nil
	})
	in.Stats, in.Err = st, err
	return []InputResult{in}
}

// TestHTMLTimeline lays out a run's encounters: one column per iteration
// named (and a run column for the unplaced), a lane per seam, lane totals
// that sum to the ledger rows, and a marker per listed finding in its
// cell.
func TestHTMLTimeline(t *testing.T) {
	run := &Run{
		Replayed: &Side{Encounters: []checks.Encounter{
			{Check: checks.KindInvariantViolation, Seam: checks.SeamWire, Placed: true, Iteration: 1, Disposition: checks.CheckedPass, Count: 1},
			{Check: checks.KindUnsupportedArgument, Seam: checks.SeamChoice, Placed: true, Iteration: 2, Disposition: checks.CheckedFail, Count: 1},
			{Check: checks.KindUnsupportedArgument, Seam: checks.SeamChoice, Placed: true, Iteration: 2, Disposition: checks.Unreachable, Count: 2},
			{Check: checks.KindUnsupportedArgument, Seam: checks.SeamChoice, Placed: true, Iteration: 7, Disposition: checks.CheckedPass, Count: 3},
			{Check: checks.KindEmptyLookup, Seam: checks.SeamWrite, Disposition: checks.NotApplicable, Count: 1},
		}},
	}
	findings := []*htmlFinding{
		{Anchor: "f-1-1", Number: 1, Kind: checks.KindUnsupportedArgument, Seam: checks.SeamChoice, Iteration: "2", Verdict: "defect"},
		{Anchor: "f-1-2", Number: 2, Kind: checks.KindDanglingReference, Seam: checks.SeamCompose, Verdict: "defect"},
	}
	tl := buildTimeline(run, findings)
	if tl.Source != "replay" || tl.Columns != 4 {
		t.Fatalf("source %q, %d columns; want replay and 4 (run, 1, 2, 7)", tl.Source, tl.Columns)
	}
	var lanes []string
	for _, l := range tl.Lanes {
		lanes = append(lanes, l.Seam)
	}
	if want := timelineSeams; !slices.Equal(lanes, want) {
		t.Errorf("lanes %v, want %v", lanes, want)
	}
	choice := tl.Lanes[2]
	if choice.Checked != 3 || choice.Fired != 1 || choice.Unreach != 2 {
		t.Errorf("choice lane counts %+v", choice)
	}
	var cells []string
	for _, c := range tl.Cells {
		cells = append(cells, fmt.Sprintf("%s@%s:%d", c.Seam, c.Iteration, len(c.Bands)))
	}
	if want := []string{"write@run:1", "wire@1:1", "choice@2:2", "choice@7:1"}; !slices.Equal(cells, want) {
		t.Errorf("cells %v, want %v", cells, want)
	}
	if len(tl.Markers) != 2 || tl.Markers[0].Href != "#f-1-1" || tl.Markers[1].Href != "#f-1-2" {
		t.Fatalf("markers %+v", tl.Markers)
	}
	// The unplaced finding sits in the run column, on its own lane.
	if tl.Markers[1].X >= tl.Markers[0].X {
		t.Errorf("the finding with no iteration is not drawn before iteration 2")
	}

	none := buildTimeline(&Run{}, findings)
	if none.Source != "" || none.Missing == "" || len(none.Cells) != 0 || len(none.Markers) != 2 {
		t.Errorf("a run with no placed encounters: %+v", none)
	}
}

// TestHTMLTimelineCapped draws at most tlMaxColumns columns and says how
// many iterations it left out.
func TestHTMLTimelineCapped(t *testing.T) {
	var enc []checks.Encounter
	for i := range tlMaxColumns + 25 {
		enc = append(enc, checks.Encounter{Check: checks.KindInvariantViolation, Seam: checks.SeamWire, Placed: true, Iteration: int64(i + 1), Count: 1})
	}
	tl := buildTimeline(&Run{Replayed: &Side{Encounters: enc}}, nil)
	if tl.Columns != tlMaxColumns || tl.Dropped != 25 {
		t.Errorf("%d columns, %d dropped; want %d and 25", tl.Columns, tl.Dropped, tlMaxColumns)
	}
}

// BenchmarkRenderHTMLLongRun renders the page of one 200-model-call run
// (internal/synth's default, findings on), each finding explained, as
// `analyze --format html` does once the run is judged.
func BenchmarkRenderHTMLLongRun(b *testing.B) {
	var rec bytes.Buffer
	if _, err := synth.WriteNDJSON(&rec, synth.DefaultConfig()); err != nil {
		b.Fatal(err)
	}
	rep := Build(replayedInputs(b, "long.jsonl", rec.Bytes()), testOptions(Options{}))
	var size int
	for b.Loop() {
		var out bytes.Buffer
		if err := RenderHTML(&out, rep, RenderOptions{}); err != nil {
			b.Fatal(err)
		}
		size = out.Len()
	}
	b.ReportMetric(float64(size), "bytes/page")
}

// The HTML report says what the text report says beside the runs: the
// declared tools no run showed, and the files left out.
func TestHTMLSaysUnseenAndSkipped(t *testing.T) {
	r := Build([]InputResult{readTestInput(t, filepath.Join(fixtureDir, "full.jsonl"), "full.jsonl")}, testOptions(Options{}))
	r.Declarations = &DeclarationsReport{Source: "decl.yaml", Names: 1, Strict: true,
		Unseen: []UnseenTool{{NamedTool: checks.NamedTool{Name: "backup_statu", Field: "tools", Line: 2}, Suggestion: "backup_status"}}}
	r.Skipped = append(r.Skipped, SkippedInput{Path: "runs/event.schema.json", Why: "not an agentfootprint recording"})
	r.LeaveOut(ExcludedInput("runs/old", "old"))
	var b bytes.Buffer
	if err := RenderHTML(&b, r, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"⚠ decl.yaml:2: tools names tool &#34;backup_statu&#34;, which no run of any input offered or called (did you mean backup_status?)",
		`<span class="badge b-defects">declarations</span>`,
		"SKIPPED runs/event.schema.json — not an agentfootprint recording",
		"EXCLUDED runs/old — matches --exclude &#39;old&#39;, so it was not read",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
}
