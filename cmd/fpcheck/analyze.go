package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/report"
	"github.com/spf13/cobra"
)

// AnalyzeOptions are analyze's parsed flags and dependencies.
type AnalyzeOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Inputs []string
	Format string
	Kind   string
	Limit  int
	FailOn string
	Allow  bool
	// AllowDamaged is --allow-damaged; StrictDeclarations is
	// --strict-declarations.
	AllowDamaged       bool
	StrictDeclarations bool
	Load               loadOptions
	// Output is --format and --output; Baseline and WriteBaseline name
	// the baseline read and the one written.
	Output        outputFlags
	Baseline      string
	WriteBaseline string
	// Shard is --shard I/N.
	Shard string
}

// NewCmdAnalyze builds `fpcheck analyze`. runF replaces the real run in
// tests that only check flag parsing.
func NewCmdAnalyze(ios *IOStreams, g *globalOptions, runF func(*AnalyzeOptions) error) *cobra.Command {
	o := &AnalyzeOptions{IO: ios, Global: g}
	cmd := &cobra.Command{
		Use:   "analyze [flags] RECORDING...",
		Short: "Report what each run's integrity checks recorded and what a replay finds now",
		Long: `analyze loads each recording (a file, a directory of recordings, a quoted
glob such as 'runs/**/*.jsonl', or - for stdin), splits it into runs, reads the integrity evidence each run recorded,
replays the run through this build's checks, and prints the report.

Every input line is accounted for: decoded, blank, skipped as an unknown
event type, or reported as malformed with its line number.

--format picks what goes to stdout (text, json, jsonl, sarif, junit, markdown,
github, html, short; jsonl streams one line per run as each input is judged, html is
one self-contained page with a seam timeline per run); --output FORMAT=PATH,
repeatable, writes more formats of the same report, for example --output
sarif=fpcheck.sarif --output html=report.html.
--baseline FILE accepts the findings a baseline lists (see 'fpcheck baseline').

` + exitCodesHelp,
		Args: needInputs("analyze needs at least one recording (a path, a directory, or - for stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Inputs = args
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return analyzeRun(o)
		},
	}
	f := cmd.Flags()
	onceFlag(cmd, &o.Kind, "kind", "", "list only findings of this kind (see 'fpcheck checks')")
	f.IntVar(&o.Limit, "limit", 0, "list at most N findings per run (0 = all)")
	onceFlag(cmd, &o.FailOn, "fail-on", "defect", "what fails the run: defect, advisory (advisories fail too) or drift (recorded and replayed disagree)")
	f.BoolVar(&o.Allow, "allow-unmeasured", false, "do not fail (exit 3) when a run has no evidence or a registered check never ran")
	f.BoolVar(&o.AllowDamaged, "allow-damaged", false, "do not fail (exit 3) when a run's only flaw is damaged evidence (lines lost that may have been its own); the report still says so")
	f.BoolVar(&o.StrictDeclarations, "strict-declarations", false, "exit 2 when --declarations names a tool no run of any input offered or called (a typo disarms the checks it was meant to arm)")
	onceFlag(cmd, &o.Baseline, "baseline", "", "accept the findings this baseline file lists (see 'fpcheck baseline')")
	onceFlag(cmd, &o.WriteBaseline, "write-baseline", "", "also write a baseline accepting every finding of this report to FILE")
	onceFlag(cmd, &o.Shard, "shard", "", "analyze only shard I/N of the inputs (0 <= I < N <= 100000), chosen by a hash of each input's path relative to its directory argument; 'fpcheck merge' joins the N reports")
	addLoadFlags(cmd, &o.Load)
	addOutputFlags(cmd, &o.Output, report.Formats())
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"defect", "advisory", "drift"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("kind", cobra.FixedCompletions(checks.FilableKinds(), cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// addLoadFlags declares the loader and replay flags the commands that read
// and judge recordings share (analyze, diff, merge, baseline write).
func addLoadFlags(cmd *cobra.Command, o *loadOptions) {
	o.read = &declReads{}
	addExcludeFlag(cmd, &o.Exclude)
	addReplayFlags(cmd, o)
}

// addReplayFlags is addLoadFlags without --exclude, for explain, which
// reads the one recording it is named.
func addReplayFlags(cmd *cobra.Command, o *loadOptions) {
	f := cmd.Flags()
	onceFlag(cmd, &o.Declarations, "declarations", "", "YAML or JSON declarations that arm the checks (see docs/declarations.md)")
	onceFlag(cmd, &o.Posture, "posture", "", "observe, or dev to run every check's canary first (default: the declarations' posture, else observe)")
	f.IntVarP(&o.Jobs, "jobs", "j", 0, "cores to use: recordings read at once, and decoders per recording when there are fewer recordings (default: the number of CPUs; at most four per CPU)")
	f.BoolVar(&o.NoRotated, "no-rotated", false, "do not read a rotated sibling PATH.1 before PATH")
	sizeFlag(cmd, &o.MaxLineBytes, "max-line-bytes", "longest NDJSON line accepted (default 256 MiB)")
	sizeFlag(cmd, &o.MaxDecompressedBytes, "max-decompressed-bytes", "most bytes one compressed input may expand to (default 8 GiB)")
	f.IntVar(&o.MaxEventsPerRun, "max-events-per-run", 0, "most events one run may have, counted as they are read whether or not the run keeps them (--max-run-bytes bounds what it keeps); past it the run stops and the input's other runs are judged (default 5,000,000)")
	sizeFlag(cmd, &o.MaxRunBytes, "max-run-bytes", "most bytes one run may keep: what its replay keeps, in memory or in its temporary file, and the payloads of events collected before their replay; past it the run stops and the input's other runs are judged (default 512 MiB)")
	f.IntVar(&o.MaxRunsInFlight, "max-runs-in-flight", 0, "most runs of one input held at once, started and not yet judged (default 100,000)")
	f.IntVar(&o.MaxNesting, "max-nesting", 0, "deepest nesting accepted in a recording document (default 100,000 levels)")
	sizeFlag(cmd, &o.MaxPackedExpansion, "max-packed-expansion", "most bytes of plain JSON a packed recording may stand for, measured on its packed form (default 8 GiB)")
	_ = cmd.RegisterFlagCompletionFunc("posture", cobra.FixedCompletions([]string{"observe", "dev"}, cobra.ShellCompDirectiveNoFileComp))
}

// onceFlag declares a string flag that takes one value, given at most
// once and never empty: given twice, only the last value would count, and
// an empty value (an unset variable in a CI script) would read as the flag
// not given at all, a declarations file or a baseline silently dropped.
func onceFlag(cmd *cobra.Command, p *string, name, value, usage string) {
	*p = value
	cmd.Flags().Var(&onceValue{p: p}, name, usage)
}

// onceFlagEmptyOK is onceFlag for a flag whose empty value says something
// of its own, apart from the flag not given (merge --kind "": every kind,
// whatever kind the reports listed).
func onceFlagEmptyOK(cmd *cobra.Command, p *string, name, value, usage string) {
	*p = value
	cmd.Flags().Var(&onceValue{p: p, emptyOK: true}, name, usage)
}

// onceValue is onceFlag's value.
type onceValue struct {
	p       *string
	set     bool
	emptyOK bool
}

func (v *onceValue) String() string { return *v.p }
func (v *onceValue) Type() string   { return "string" }

func (v *onceValue) Set(s string) error {
	if v.set {
		return fmt.Errorf("the flag is given twice (%s and %s), and only one value counts; give it once", strconv.Quote(*v.p), strconv.Quote(s))
	}
	if s == "" && !v.emptyOK {
		return errors.New("the value is empty, which would read as the flag not given; give a value or leave the flag out")
	}
	*v.p, v.set = s, true
	return nil
}

func (o *AnalyzeOptions) validate() error {
	specs, err := o.Output.specs()
	if err != nil {
		return err
	}
	o.Format = specs[0].Format
	switch o.FailOn {
	case "defect", "advisory", "drift":
	default:
		return flagErrorf("--fail-on must be defect, advisory or drift, not %q", o.FailOn)
	}
	switch o.Global.Color {
	case "auto", "always", "never":
	default:
		return flagErrorf("--color must be auto, always or never, not %q", o.Global.Color)
	}
	if err := checkExclude(o.Load.Exclude); err != nil {
		return err
	}
	if _, err := parseShard(o.Shard); err != nil {
		return err
	}
	if o.Limit < 0 {
		return flagErrorf("--limit must be 0 (all) or more, not %d", o.Limit)
	}
	return report.ValidateKind(o.Kind, o.reportOptions())
}

func (o *AnalyzeOptions) reportOptions() report.Options {
	return report.Options{
		Kind:            o.Kind,
		Limit:           o.Limit,
		FailOn:          o.FailOn,
		AllowUnmeasured: o.Allow,
		AllowDamaged:    o.AllowDamaged,
		FilableKinds:    checks.FilableKinds(),
		KnownKinds:      checks.KnownKinds(),
		ExplainFlags:    o.Load.explainFlags(),
	}
}

// explainFlags are the load flags that change what a replay judges, as
// explain takes them.
func (o loadOptions) explainFlags() []string {
	var out []string
	if o.Declarations != "" {
		out = append(out, "--declarations", o.Declarations)
	}
	if o.Posture != "" {
		out = append(out, "--posture", o.Posture)
	}
	return out
}

func analyzeRun(o *AnalyzeOptions) error {
	specs, err := o.Output.specs()
	if err != nil {
		return err
	}
	opts := o.reportOptions()
	if err := acceptBaseline(&opts, o.Baseline); err != nil {
		return err
	}
	shard, err := parseShard(o.Shard)
	if err != nil {
		return err
	}
	entries, excluded, err := expandExcluding(o.Inputs, o.Load.Exclude, o.IO, o.Global.Store, false, o.Load.MaxDecompressedBytes)
	if err != nil {
		return err
	}
	outputs := outputsOf(specs)
	if o.WriteBaseline != "" {
		outputs = append(outputs, written{"--write-baseline " + safeName(o.WriteBaseline), o.WriteBaseline})
	}
	if err := refuseOverwrite(outputs, entryPaths(entries), o.Load.Declarations); err != nil {
		return err
	}
	// A report is never written over the baseline read; a baseline is,
	// which refreshes it in place.
	if err := refuseOverBaseline(specs, o.Baseline); err != nil {
		return err
	}
	if err := checkWritable(specs); err != nil {
		return err
	}
	var mine []entry
	for _, e := range entries {
		if inShard(e, shard) {
			mine = append(mine, e)
		}
	}
	// JSON Lines on stdout stream: each input's lines are written as soon
	// as it and those before it are judged, the summary when all are.
	// The declarations judge every input alike, the streamed ones too.
	df, err := o.Load.declarations()
	if err != nil {
		return err
	}
	if df.decls != nil {
		opts.Declared, opts.DeclaredNames = df.decls, df.names
		opts.StrictDeclarations = o.StrictDeclarations
	}
	var stream *report.JSONLWriter
	var streamErr error
	var each func(report.InputResult)
	if specs[0].Path == "-" && specs[0].Format == report.FormatJSONL {
		stream = report.NewJSONLWriter(report.LogSafe(o.IO.Out, report.FormatJSONL), opts)
		each = func(in report.InputResult) {
			if streamErr == nil {
				streamErr = stream.Input(in)
			}
		}
	}
	// Prints find a run's copies in other inputs, and a JSON report keeps
	// them for a later merge; one input read for any other report needs
	// none.
	o.Load.NoPrints = len(mine) == 1 && !slices.ContainsFunc(specs, func(s outputSpec) bool { return s.Format == report.FormatJSON })
	// The HTML report draws where each encounter happened, which the
	// replay keeps only when asked.
	for _, s := range specs {
		if s.Format == report.FormatHTML {
			o.Load.Encounters, o.Load.Explain = true, true
		}
	}
	j, err := loadEntries(mine, o.Load, o.IO, o.Global.Store, each)
	if err != nil {
		return err
	}
	// Unless a report written from them is asked for, the runs' results
	// are let go as the report is built from them: at the end of a long
	// stream each is tens of MB.
	rendered := specs
	if stream != nil {
		rendered = specs[1:]
	}
	build := report.BuildTaking
	if slices.ContainsFunc(rendered, func(s outputSpec) bool { return report.ReadsSources(s.Format) }) {
		build = report.Build
	}
	rep := build(j.inputs, opts)
	j.inputs = nil
	leaveOut(rep, excluded)
	rep.Provenance = j.prov
	rep.Provenance.Shard, rep.Provenance.Total, rep.Provenance.Listing = shard, len(entries), listing(entries)
	if stream != nil {
		if streamErr == nil {
			streamErr = stream.Summary(rep)
		}
		if streamErr != nil {
			return fmt.Errorf("writing the jsonl output: %w", streamErr)
		}
		specs = specs[1:]
	}
	if err := writeReport(o.IO, specs, o.Global.Color, rep); err != nil {
		return err
	}
	// Writing a baseline does not change the exit code: the report it
	// accepts is still the report it was.
	if o.WriteBaseline != "" {
		// What was not read would not be accepted: no baseline then, said,
		// with the report's own exit code (never 0 when evidence is
		// missing).
		if missing := evidenceMissing(rep); len(missing) > 0 {
			fmt.Fprintln(o.IO.ErrOut, report.SanitizeLines(fmt.Sprintf("fpcheck: no baseline written to %s: %v", safeName(o.WriteBaseline), errors.Join(missing...))))
		} else if err := writeBaselineFile(o.WriteBaseline, rep, opts.Baseline); err != nil {
			return err
		}
	}
	return &StatusError{Code: ExitCode(rep.ExitCode())}
}
