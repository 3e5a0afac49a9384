package main

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/internal/objstore"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/report"
	"github.com/spf13/cobra"
)

// DiffOptions are diff's parsed flags and dependencies.
type DiffOptions struct {
	IO       *IOStreams
	Global   *globalOptions
	Base     string
	Head     string
	Format   string
	FailOn   string
	Allow    bool
	Baseline string
	Output   outputFlags
	Load     loadOptions
	// BaseDeclarations judges the base with other declarations than the
	// head (--declarations); empty: the same.
	BaseDeclarations string
	// StrictDeclarations is --strict-declarations.
	StrictDeclarations bool
}

const diffExitHelp = `Exit codes (the same whatever --format says):
  0  no regression: nothing new fails and no check's coverage shrank
  1  a new defect (not accepted by --baseline; with --fail-on advisory, also a
     new advisory), a finding whose baseline entry expired, or a coverage
     regression: a check that stopped checking, a ledger row that vanished,
     unreachable encounters that grew, a coverage state that got worse,
     evidence newly missing or newly damaged, a check that judged fewer
     encounters, or a run or recording that vanished
  2  usage, declarations or baseline fpcheck cannot honour, or an input on
     either side that cannot be read
  3  the head is unmeasured (a head run proves nothing about its checks having
     run, its evidence is damaged, or a head recording holds no run), or runs
     were not compared (a scenario left runs unpaired on both sides), unless
     --allow-unmeasured
  4  internal error in fpcheck itself (please report it)
With several causes, 2 outranks 1, 1 outranks 3, and 3 outranks 0. Findings
that persist or are resolved never fail a diff.`

// NewCmdDiff builds `fpcheck diff BASE HEAD`.
func NewCmdDiff(ios *IOStreams, g *globalOptions, runF func(*DiffOptions) error) *cobra.Command {
	o := &DiffOptions{IO: ios, Global: g}
	cmd := &cobra.Command{
		Use:   "diff [flags] BASE HEAD",
		Short: "Compare two recordings: findings new, resolved and persisting; coverage that shrank",
		Long: `diff compares two recordings of the same scenario (before and after a prompt,
model or tool change), or two directories of them.

BASE and HEAD are two files, or two directories. Directories are expanded as
analyze expands them, and a recording is matched with the recording of the
same path relative to the other directory; one with no counterpart is listed
as base-only (its evidence vanished: a regression) or head-only (all its
findings are new). Either side may be a saved JSON report (fpcheck analyze
--format json, or fpcheck merge) instead: it stands for the inputs it holds,
judged as they were, and a report of a directory pairs as that directory.
--base-declarations judges a recorded BASE with other declarations than the
head's --declarations; a saved side must have been judged with its side's.

Each matched pair of recordings is a scenario. Its runs are paired by run id
where both sides carry the same id (the same recording analyzed again, for
example with other declarations), then by the user prompt of their first turn
(run and session ids are minted anew on every recording; the scenario's
prompts are not), in recording order among runs of one prompt, and, when each
recording holds exactly one run, the two by scenario. Runs are never paired by
position. A run left over is base only (its evidence vanished: a regression)
or head only (its findings are new); when both sides have runs left over,
they are all listed as not compared, and the diff cannot be green.

Findings are matched by identity (kind, seam, sorted subjects, predicate;
neither the epoch nor the run id is part of it) and class across the whole
scenario, so the same defect found at another iteration, or in another run of
the scenario, persists, while an advisory that became a defect of the same
identity is a new defect (and a defect that became an advisory, a resolved
defect and a new advisory). For each paired run and check, diff compares the recorded
ledger, and the replayed ledger too: a check that stopped checking or judged
fewer encounters, a row that vanished, unreachable encounters that grew, a
coverage state that got worse (full, then partial, then the four absences,
then no-tail), and evidence damaged in the head only are regressions.
Advisories are counted apart. With several scenarios, every format sums up
each with the exit code it alone would give.

` + diffExitHelp,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return flagErrorf("diff needs exactly two recordings, BASE and HEAD (got %d)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Base, o.Head = args[0], args[1]
			if _, err := o.Output.specs(); err != nil {
				return err
			}
			if err := report.ValidateDiffOptions(report.DiffOptions{FailOn: o.FailOn}); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return diffRun(o)
		},
	}
	f := cmd.Flags()
	onceFlag(cmd, &o.FailOn, "fail-on", report.FailOnDefect, "what new finding fails: defect, or advisory (new advisories fail too)")
	f.BoolVar(&o.Allow, "allow-unmeasured", false, "do not fail (exit 3) when the head is unmeasured or runs were not compared")
	onceFlag(cmd, &o.Baseline, "baseline", "", "accept the findings this baseline file lists (see 'fpcheck baseline')")
	f.BoolVar(&o.StrictDeclarations, "strict-declarations", false, "exit 2 when the declarations of either side name a tool no run of that side offered or called")
	onceFlag(cmd, &o.BaseDeclarations, "base-declarations", "", "judge BASE with these declarations instead of --declarations (the head keeps --declarations)")
	addOutputFlags(cmd, &o.Output, report.DiffFormats())
	addLoadFlags(cmd, &o.Load)
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{report.FailOnDefect, report.FailOnAdvisory}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// diffSide is BASE or HEAD read: its inputs, what each pairs by, and
// whether it is a cohort (a directory, or a saved report of several inputs
// or of a directory) rather than one recording.
type diffSide struct {
	inputs    []report.InputResult
	scenarios []report.Scenario
	cohort    bool
	// decls and declNames are the side's declarations and the places they
	// name a tool, to be held against the side's recordings.
	decls     *checks.Declarations
	declNames []checks.NamedTool
	// excluded are the paths the side's expansion did not read.
	excluded []recording.Excluded
}

func loadSide(side, arg string, load loadOptions, ios *IOStreams, store *objstore.Store) (*diffSide, error) {
	entries, excluded, err := expandExcluding([]string{arg}, load.Exclude, ios, store, true, load.MaxDecompressedBytes)
	if err != nil {
		return nil, err
	}
	j, err := loadEntries(entries, load, ios, store, nil)
	if err != nil {
		return nil, err
	}
	s := &diffSide{inputs: j.inputs, decls: j.decls, declNames: j.declNames, excluded: excluded}
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		s.cohort = true
	}
	named := map[string]report.InputResult{}
	for _, in := range j.inputs {
		if in.Root != "" {
			s.cohort = true
		}
		// The report skips a file the walk found that is no recording,
		// so its inputs, which the scenarios pair by position, do not
		// hold it.
		if in.NotRecording {
			continue
		}
		sc := report.Scenario{Root: in.Root, Path: inputPath(in)}
		// Inputs pair by name: two of one name (a saved report among a
		// directory's recordings, holding a recording of the same name)
		// would leave one paired with nothing to say why.
		name := report.ScenarioName(sc.Root, sc.Path)
		if prev, dup := named[name]; dup {
			return nil, fmt.Errorf("the %s holds two inputs named %s: %s and %s; diff pairs inputs by their name relative to their directory, so each name must be one input",
				side, safeName(name), sideInputName(prev, j.saved), sideInputName(in, j.saved))
		}
		named[name] = in
		s.scenarios = append(s.scenarios, sc)
	}
	if len(j.inputs) > 1 {
		s.cohort = true
	}
	return s, nil
}

func diffRun(o *DiffOptions) error {
	specs, err := o.Output.specs()
	if err != nil {
		return err
	}
	if o.Base == "-" && o.Head == "-" {
		return flagErrorf("diff can read standard input for BASE or HEAD, not both")
	}
	opts := report.Options{
		FilableKinds:    checks.FilableKinds(),
		KnownKinds:      checks.KnownKinds(),
		AllowUnmeasured: o.Allow,
	}
	if err := acceptBaseline(&opts, o.Baseline); err != nil {
		return err
	}
	// The sides are expanded again when they load; an error there is
	// theirs to report.
	inputs, _ := recording.Expand([]string{o.Base, o.Head})
	if err := refuseOverwrite(outputsOf(specs), inputs, o.Load.Declarations, o.BaseDeclarations); err != nil {
		return err
	}
	if err := refuseOverBaseline(specs, o.Baseline); err != nil {
		return err
	}
	if err := checkWritable(specs); err != nil {
		return err
	}
	baseLoad := o.Load
	if o.BaseDeclarations != "" {
		baseLoad.Declarations = o.BaseDeclarations
	}
	base, err := loadSide("base", o.Base, baseLoad, o.IO, o.Global.Store)
	if err != nil {
		return err
	}
	head, err := loadSide("head", o.Head, o.Load, o.IO, o.Global.Store)
	if err != nil {
		return err
	}
	if base.cohort != head.cohort {
		return flagErrorf("diff compares two files or two directories (or saved reports of them); %s and %s are one of each", o.Base, o.Head)
	}
	baseRep := report.Build(base.inputs, base.judgedWith(opts, o.StrictDeclarations))
	headRep := report.Build(head.inputs, head.judgedWith(opts, o.StrictDeclarations))
	// The diff's formats compare runs; what either side did not read is
	// said on stderr, one line each, so that it is never silent.
	for _, side := range []struct {
		name string
		rep  *report.Report
		s    *diffSide
	}{{"base", baseRep, base}, {"head", headRep, head}} {
		leaveOut(side.rep, side.s.excluded)
		for _, sk := range side.rep.Skipped {
			fmt.Fprintln(o.IO.ErrOut, report.Sanitize("fpcheck: "+side.name+": "+sk.Line()+"."))
		}
	}
	d := report.NewDiff(baseRep, headRep, report.PairScenarios(base.scenarios, head.scenarios),
		report.DiffOptions{FailOn: o.FailOn, AllowUnmeasured: o.Allow})
	d.BaseName, d.HeadName = o.Base, o.Head
	if o.StrictDeclarations {
		// Set before any format is written, so that every one states the
		// exit code the command gives.
		d.Totals.DeclaredUnseen = declaredUnseen(baseRep, headRep)
	}
	err = writeOutputs(o.IO, specs, o.Global.Color, func(w io.Writer, format string, ro report.RenderOptions) error {
		r, err := report.NewDiffRenderer(format, ro)
		if err != nil {
			return err
		}
		return r.RenderDiff(w, d)
	})
	if err != nil {
		return err
	}
	// A typo in a declared tool name disarms both sides alike, so the diff
	// of two disarmed sides is green: say so on stderr whatever the format,
	// and with --strict-declarations fail as analyze does (the totals hold
	// the count, set before the diff was written).
	said := map[string]bool{}
	for _, rep := range []*report.Report{baseRep, headRep} {
		for _, line := range rep.StderrLines(true) {
			if !said[line] {
				said[line] = true
				fmt.Fprintln(o.IO.ErrOut, line)
			}
		}
	}
	// A machine format on stdout says nothing a CI log shows: stderr does.
	if !slices.ContainsFunc(specs, func(s outputSpec) bool { return s.Path == "-" && s.Format == report.FormatText }) {
		fmt.Fprintln(o.IO.ErrOut, d.StderrLine())
	}
	return &StatusError{Code: ExitCode(d.ExitCode())}
}

// declaredUnseen counts the distinct declared tool names that no run of a
// side offered or called, on either side (each side holds its own
// declarations against its own runs).
func declaredUnseen(reps ...*report.Report) int {
	names := map[string]bool{}
	for _, rep := range reps {
		if dr := rep.Declarations; dr != nil {
			for _, u := range dr.Unseen {
				names[u.Name] = true
			}
		}
	}
	return len(names)
}

// sideInputName names an input of a diff side for a message, with the
// saved report it came from, if any.
func sideInputName(in report.InputResult, saved []*report.Saved) string {
	name := safeName(inputPath(in))
	for _, s := range saved {
		if slices.ContainsFunc(s.Inputs, func(si report.InputResult) bool { return si.Root == in.Root && si.Path == in.Path }) {
			return name + " (held by the saved report " + safeName(s.Name) + ")"
		}
	}
	return name
}

// judgedWith is opts with the side's declarations to hold against its
// recordings.
func (s *diffSide) judgedWith(opts report.Options, strict bool) report.Options {
	if s.decls != nil {
		opts.Declared, opts.DeclaredNames = s.decls, s.declNames
		opts.StrictDeclarations = strict
	}
	return opts
}
