package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/fpcheck/fpcheck/internal/synth"
)

// browserArtifactsEnv names the directory the browser test writes its
// screenshots to (a CI job keeps it as an artifact); without it they go to
// the test's temporary directory.
const browserArtifactsEnv = "FPCHECK_BROWSER_ARTIFACTS"

// everyCheckArmed declares something for every registered check, so that
// a synthesised run meets each of them.
const everyCheckArmed = `tools:
  backup_status: { argumentsFrom: [fleet_report], noticeEmptyLookups: true }
  fleet_report:
    resultColumns: { host: string, state: string }
claims:
  machine: { entity: backup, field: machine }
maps:
  - { id: billing, tools: [charge_card, refund] }
dials:
  checkColumnTypes: warn
  noticeEmptyLookups: true
  noticePriorTurnEvidence: true
  namesAndNumbers: { minDigits: 4 }
`

// chromium finds the browser, or skips; under CI=true a missing browser
// fails, so a CI job that forgot to install it cannot pass.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (Debian: apt-get install chromium; make test-deps does it)")
	}
	t.Skip("chromium is not installed; make browser-test installs it")
	return ""
}

// pageReport is what the test reads back from a rendered page through the
// DOM, to hold against the JSON report of the same run.
type pageReport struct {
	Ready    bool   `json:"ready"`
	Exit     string `json:"exit"`
	Scripts  int    `json:"scripts"`
	Handlers int    `json:"handlers"`
	Foreign  int    `json:"foreign"`
	Pwned    any    `json:"pwned"`
	Count    string `json:"count"`
	Runs     []struct {
		Drawn    bool                `json:"drawn"`
		Findings []pageFinding       `json:"findings"`
		Markers  []pageFinding       `json:"markers"`
		Lanes    map[string][4]int64 `json:"lanes"`
		Cells    map[string][4]int64 `json:"cells"`
	} `json:"runs"`
}

type pageFinding struct {
	Kind, Seam, Verdict string
}

// readPage is the DOM walk: per run its findings, markers, lane totals and
// cell sums, and page-wide what no recording may have added.
const readPage = `(async () => {
  // A page of many runs draws a run when it is opened: open every one,
  // or of a thousand every 25th, which keeps the test quick.
  const all = [...document.querySelectorAll("details.run")];
  const stride = all.length > 50 ? 25 : 1;
  all.forEach((d, i) => { if (i % stride === 0) d.open = true; });
  for (let i = 0; i < 200 && document.querySelector("template.lazy"); i++) await new Promise(r => setTimeout(r, 25));
  const num = (el, a) => Number(el.getAttribute("data-" + a));
  const counts = el => [num(el, "checked"), num(el, "fired"), num(el, "not-applicable"), num(el, "unreachable")];
  const f = el => ({Kind: el.dataset.kind, Seam: el.dataset.seam, Verdict: el.dataset.verdict});
  let handlers = 0, foreign = 0;
  for (const el of document.querySelectorAll("*")) {
    for (const a of el.attributes) { if (a.name.startsWith("on")) handlers++; }
    if (["IMG", "IFRAME", "OBJECT", "EMBED", "B", "TEXTAREA"].includes(el.tagName)) foreign++;
  }
  return {
    ready: document.documentElement.hasAttribute("data-ready"),
    exit: document.getElementById("result").dataset.exit,
    scripts: document.scripts.length,
    handlers, foreign,
    pwned: window.__fpPwned === undefined ? null : window.__fpPwned,
    count: document.getElementById("filter-count").textContent,
    runs: [...document.querySelectorAll("details.run")].map(run => {
      const lanes = {}, cells = {};
      for (const l of run.querySelectorAll("g.lane")) lanes[l.dataset.seam] = counts(l);
      for (const c of run.querySelectorAll("g.cell")) {
        const s = cells[c.dataset.seam] || [0, 0, 0, 0];
        counts(c).forEach((n, i) => s[i] += n);
        cells[c.dataset.seam] = s;
      }
      return {
        drawn: !run.querySelector("template.lazy"),
        findings: [...run.querySelectorAll("details.finding")].map(f),
        markers: [...run.querySelectorAll("a.marker")].map(f),
        lanes, cells,
      };
    }),
  };
})()`

// jsonReport is the part of the JSON report the page is held to.
type jsonReport struct {
	ExitCode int `json:"exitCode"`
	Runs     []struct {
		Findings []struct {
			Kind, Seam string
			Advisory   bool `json:"advisory"`
			Synthetic  bool `json:"synthetic"`
		} `json:"findings"`
		Replayed *struct {
			Rows []struct {
				Seam          string `json:"seam"`
				Checked       int64  `json:"checked"`
				Findings      int64  `json:"findings"`
				NotApplicable int64  `json:"notApplicable"`
				Unreachable   int64  `json:"unreachable"`
			} `json:"rows"`
		} `json:"replayed"`
	} `json:"runs"`
}

// browserCase is one report rendered as HTML and JSON from the same run of
// the CLI.
type browserCase struct {
	name string
	// wd is the directory fpcheck runs in, so that the page names its
	// inputs as a user who ran it there sees them.
	wd   string
	args []string
	// interact clicks a marker open and walks the page by keyboard.
	interact bool
	// hostile recordings must show every payload as text.
	hostile bool
}

// TestBrowser renders HTML reports (the demo, a 200-model-call recording
// with every check armed, a directory of 1,000 runs, and hostile markup),
// loads each in headless Chromium from file://, and checks through the DOM
// that findings, lanes and counts are the JSON report's, that a finding
// opens from its marker by mouse and by keyboard, that the filters filter,
// and that nothing from a recording ran. Each page leaves a screenshot.
func TestBrowser(t *testing.T) {
	exe := chromium(t)
	dir := t.TempDir()
	art := os.Getenv(browserArtifactsEnv)
	if art == "" {
		art = t.TempDir()
	} else if err := os.MkdirAll(art, 0o755); err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	demo := filepath.Join("testdata", "recordings", "demo")
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var long bytes.Buffer
	if _, err := synth.WriteNDJSON(&long, synth.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	longPath := write("long.jsonl", long.Bytes())
	decl := write("every-check.yaml", []byte(everyCheckArmed))
	for i := range 1000 {
		var b bytes.Buffer
		if _, err := synth.WriteNDJSON(&b, synth.Config{Iterations: 3, Findings: i%7 == 0, Seed: int64(i + 1)}); err != nil {
			t.Fatal(err)
		}
		write(filepath.Join("fleet", fmt.Sprintf("run-%04d.jsonl", i)), b.Bytes())
	}
	escapes, err := os.ReadFile(filepath.Join(repo, "testdata", "recordings", "hostile", "escapes.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	hostile := write("markup.jsonl", synth.WithMarkup(escapes))

	cases := []browserCase{
		{name: "demo", wd: repo, args: []string{"--declarations", filepath.Join(demo, "declarations.yaml"), filepath.Join(demo, "triage.jsonl")}, interact: true},
		{name: "long", wd: dir, args: []string{"--declarations", decl, longPath}},
		{name: "fleet", wd: dir, args: []string{filepath.Join(dir, "fleet")}},
		{name: "hostile", wd: dir, args: []string{hostile}, hostile: true},
	}

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1100, 900),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTimeout()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(tc.wd)
			for i, a := range tc.args {
				if rel, err := filepath.Rel(tc.wd, a); err == nil && filepath.IsAbs(a) && !strings.HasPrefix(rel, "..") {
					tc.args[i] = rel
				}
			}
			page := filepath.Join(dir, tc.name+".html")
			js := filepath.Join(dir, tc.name+".json")
			args := append([]string{"analyze", "--allow-unmeasured", "--format", "json", "--output", "html=" + page}, tc.args...)
			var out, errOut bytes.Buffer
			code := Main(args, &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: func(string) string { return "" }})
			if code > 1 {
				t.Fatalf("fpcheck %s: exit %d\n%s", strings.Join(args, " "), code, errOut.String())
			}
			if err := os.WriteFile(js, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			var want jsonReport
			if err := json.Unmarshal(out.Bytes(), &want); err != nil {
				t.Fatal(err)
			}

			start := time.Now()
			if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
				t.Fatal(err)
			}
			loaded := time.Since(start)
			if eval[bool](t, ctx, `!!document.querySelector("details.run:not([open])")`) != (len(want.Runs) > 20) {
				t.Errorf("a page of %d runs should open them all only when there are at most 20", len(want.Runs))
			}
			got := eval[pageReport](t, ctx, readPage)
			t.Logf("%s: %d runs, %d bytes, loaded in %v", tc.name, len(got.Runs), fileSize(t, page), loaded.Round(time.Millisecond))
			holdPageToJSON(t, &got, &want, code)
			if tc.hostile {
				if got.Pwned != nil || got.Handlers != 0 || got.Foreign != 0 || got.Scripts != 1 {
					t.Errorf("recording markup acted: __fpPwned=%v, %d event handlers, %d foreign elements, %d scripts", got.Pwned, got.Handlers, got.Foreign, got.Scripts)
				}
				text := eval[string](t, ctx, `document.body.textContent`)
				for _, p := range synth.MarkupPayloads[:3] {
					if !strings.Contains(text, p) {
						t.Errorf("the page does not show %q as text", p)
					}
				}
			}
			if tc.interact {
				interact(t, ctx)
			}
			// The whole page, up to what a screenshot can hold; a page of
			// a thousand runs is shot as the window shows it.
			shoot := chromedp.FullScreenshot(100)
			if eval[int](t, ctx, `document.documentElement.scrollHeight`) > 12000 {
				shoot = chromedp.CaptureScreenshot()
			}
			png, err := chromedp.Run(ctx, shoot)
			if err != nil {
				t.Fatal(err)
			}
			shot := filepath.Join(art, "report-"+tc.name+".png")
			if err := os.WriteFile(shot, png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot: %s", shot)
			if tc.interact {
				// The opened finding's evidence and frame, as a reader who
				// followed its marker scrolls to them.
				eval[any](t, ctx, `(() => {
				  const d = document.querySelector(document.querySelector("a.marker").getAttribute("href"));
				  d.querySelector("h4").scrollIntoView({block: "start"}); window.scrollBy(0, -60);
				})()`)
				png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				shot := filepath.Join(art, "report-"+tc.name+"-finding.png")
				if err := os.WriteFile(shot, png, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("screenshot: %s", shot)
			}
		})
	}
}

func fileSize(t *testing.T, p string) int64 {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// holdPageToJSON compares what the browser shows with the JSON report:
// the exit code, each run's findings in order, one marker per finding,
// and each lane's totals equal to the replayed ledger's rows of its seam
// and to the sum of its cells.
func holdPageToJSON(t *testing.T, got *pageReport, want *jsonReport, code int) {
	t.Helper()
	if !got.Ready {
		t.Error("the page's script did not run")
	}
	if got.Scripts != 1 {
		t.Errorf("%d scripts on the page, want its own one", got.Scripts)
	}
	if got.Exit != fmt.Sprint(want.ExitCode) || want.ExitCode != code {
		t.Errorf("page exit %s, JSON exit %d, process exit %d", got.Exit, want.ExitCode, code)
	}
	if len(got.Runs) != len(want.Runs) {
		t.Fatalf("%d runs on the page, %d in the JSON report", len(got.Runs), len(want.Runs))
	}
	total, drawn := 0, 0
	for i, run := range want.Runs {
		pr := got.Runs[i]
		total += len(run.Findings)
		if len(pr.Findings) != len(run.Findings) {
			t.Errorf("run %d: %d findings on the page, %d in JSON", i+1, len(pr.Findings), len(run.Findings))
			continue
		}
		for j, f := range run.Findings {
			if pr.Findings[j].Kind != f.Kind || pr.Findings[j].Seam != f.Seam {
				t.Errorf("run %d finding %d: page %s@%s, JSON %s@%s", i+1, j+1, pr.Findings[j].Kind, pr.Findings[j].Seam, f.Kind, f.Seam)
			}
		}
		if !pr.Drawn {
			continue
		}
		drawn++
		if len(pr.Markers) != len(pr.Findings) {
			t.Errorf("run %d: %d markers for %d findings", i+1, len(pr.Markers), len(pr.Findings))
		}
		if run.Replayed == nil {
			continue
		}
		rows := map[string][4]int64{}
		for _, r := range run.Replayed.Rows {
			s := rows[r.Seam]
			s[0] += r.Checked - r.Findings
			s[1] += r.Findings
			s[2] += r.NotApplicable
			s[3] += r.Unreachable
			rows[r.Seam] = s
		}
		for seam, want := range rows {
			if pr.Lanes[seam] != want {
				t.Errorf("run %d: %s lane totals %v (checked, fired, not-applicable, unreachable), ledger rows %v", i+1, seam, pr.Lanes[seam], want)
			}
			if pr.Cells[seam] != want {
				t.Errorf("run %d: %s lane cells sum to %v, ledger rows %v", i+1, seam, pr.Cells[seam], want)
			}
		}
	}
	if drawn == 0 {
		t.Error("no run's timeline was drawn")
	}
	if wantCount := fmt.Sprintf("%d of %d findings shown", total, total); got.Count != wantCount {
		t.Errorf("filter count %q, want %q", got.Count, wantCount)
	}
}

// interact opens the first finding from its timeline marker by mouse,
// reaches a marker with the Tab key alone and opens its finding with
// Enter, and filters the findings by a kind none has.
func interact(t *testing.T, ctx context.Context) {
	t.Helper()
	eval[any](t, ctx, `document.querySelectorAll("details.finding").forEach(d => d.open = false)`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("a.marker"))); err != nil {
		t.Fatal(err)
	}
	if !eval[bool](t, ctx, `document.querySelector(document.querySelector("a.marker").getAttribute("href")).open`) {
		t.Error("clicking a marker did not open its finding")
	}
	if eval[string](t, ctx, `document.activeElement.parentElement.id`) == "" {
		t.Error("clicking a marker did not move the focus to its finding")
	}
	// The panel shows what explain shows: the frame with the value the
	// finding names marked inside the model's own earlier answer, and the
	// ground's result that never held it.
	panel := eval[string](t, ctx, `(() => {
	  const d = document.querySelector(document.querySelector("a.marker").getAttribute("href"));
	  const own = [...d.querySelectorAll("li.message.r-assistant mark")].map(m => m.textContent).join(",");
	  const ground = [...d.querySelectorAll("ul.grounds li")].map(l => l.textContent).join("|");
	  return own + "\n" + ground;
	})()`)
	own, ground, _ := strings.Cut(panel, "\n")
	if own != "4417-ganymede" {
		t.Errorf("the demo finding's frame marks %q in the assistant's answer, want 4417-ganymede", own)
	}
	if !strings.Contains(ground, "FLEET:") || !strings.Contains(ground, `does not hold "4417-ganymede"`) {
		t.Errorf("the demo finding's panel does not show the fleet_report result that never held the value: %q", ground)
	}

	// From the top of the page, Tab until a marker has the focus.
	eval[any](t, ctx, `document.querySelectorAll("details.finding").forEach(d => d.open = false); document.activeElement.blur(); window.scrollTo(0, 0)`)
	reached := false
	var stops []string
	for range 60 {
		if err := chromedp.Do(ctx, chromedp.KeyEvent("\t")); err != nil {
			t.Fatal(err)
		}
		where := eval[string](t, ctx, `(() => { const a = document.activeElement; return a.tagName + "." + (a.getAttribute("class") || ""); })()`)
		stops = append(stops, where)
		if strings.HasPrefix(where, "a.marker") {
			reached = true
			break
		}
	}
	if !reached {
		t.Fatalf("Tab never reached a timeline marker; stops: %v", stops)
	}
	for _, want := range []string{"SELECT.", "SUMMARY."} {
		if !slices.Contains(stops, want) {
			t.Errorf("Tab passed no %s on its way to the marker: %v", strings.TrimSuffix(want, "."), stops)
		}
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
	if !eval[bool](t, ctx, `(async () => {
	  for (let i = 0; i < 40; i++) {
	    const a = document.activeElement;
	    if (a.tagName === "SUMMARY" && a.parentElement.open) return true;
	    await new Promise(r => setTimeout(r, 25));
	  }
	  return false;
	})()`) {
		t.Errorf("Enter on a focused marker did not open its finding and focus it: %s", eval[string](t, ctx, `document.activeElement.outerHTML.slice(0, 200)`))
	}

	// A seam no finding has hides every finding and dims every marker.
	eval[any](t, ctx, `(() => {
	  const s = document.getElementById("filter-seam");
	  const o = document.createElement("option"); o.value = "nowhere"; s.appendChild(o); s.value = "nowhere";
	  s.dispatchEvent(new Event("change"));
	})()`)
	count := eval[string](t, ctx, `document.getElementById("filter-count").textContent`)
	hidden := eval[int](t, ctx, `[...document.querySelectorAll("li.finding-item")].filter(l => l.hidden).length`)
	dimmed := eval[int](t, ctx, `document.querySelectorAll("a.marker.filtered").length`)
	if !strings.HasPrefix(count, "0 of ") || hidden == 0 || dimmed == 0 {
		t.Errorf("filtering by a seam no finding has: count %q, %d hidden, %d markers dimmed", count, hidden, dimmed)
	}
	// Reset the filter and leave the first finding open, as a reader who
	// followed its marker sees it, for the screenshot.
	eval[any](t, ctx, `(() => {
	  const s = document.getElementById("filter-seam"); s.value = ""; s.dispatchEvent(new Event("change"));
	  document.querySelector("a.marker").dispatchEvent(new MouseEvent("click", {bubbles: true}));
	  document.activeElement.blur(); window.scrollTo(0, 0);
	})()`)
}

// eval evaluates a JavaScript expression in the page and decodes its value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluating %.60q: %v", expr, err)
	}
	return v
}
