package main

import (
	"fmt"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/report"
	"github.com/spf13/cobra"
)

// MergeOptions are merge's parsed flags and dependencies.
type MergeOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Inputs []string
	Kind   string
	Limit  int
	FailOn string
	Allow  bool
	// AllowDamaged is --allow-damaged; StrictDeclarations is
	// --strict-declarations.
	AllowDamaged       bool
	StrictDeclarations bool
	Baseline           string
	Output             outputFlags
	Load               loadOptions
	cmd                *cobra.Command
}

// NewCmdMerge builds `fpcheck merge REPORT...`.
func NewCmdMerge(ios *IOStreams, g *globalOptions, runF func(*MergeOptions) error) *cobra.Command {
	o := &MergeOptions{IO: ios, Global: g}
	cmd := &cobra.Command{
		Use:   "merge [flags] REPORT|RECORDING...",
		Short: "Join saved JSON reports (shards of one analysis, or any others) into one report",
		Long: `merge reads saved JSON reports ('fpcheck analyze --format json') and
recordings, and writes the one report an analysis of all their inputs would
have given: the same runs, conversations, counts and exit code, in every
format. It is the reduce step after 'fpcheck analyze --shard I/N' has run on
N workers.

A saved report is recognised by its first key, schemaVersion; a version this
build does not read is refused by name. Each report's evidence section is
judged again, so its rendered counts are never trusted as written.

The shards of one analysis must all be given: merge refuses a set with a
shard missing or given twice, shards that do not add up to the inputs they
split, or shards of different listings (each names the inputs it split by a
digest of their directories and paths). Shards are put back in the order of the inputs they split. Reports and
recordings must have been judged with the same declarations and posture.

--kind, --limit, --fail-on, --allow-unmeasured, --allow-damaged and
--strict-declarations default to what the reports say (they must agree);
given, they apply to the merged report. A --baseline is
not carried by a report: give it again.

` + exitCodesHelp,
		Args: needInputs("merge needs at least one saved report or recording"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Inputs = args
			if _, err := o.Output.specs(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return mergeRun(o)
		},
	}
	o.cmd = cmd
	f := cmd.Flags()
	onceFlagEmptyOK(cmd, &o.Kind, "kind", "", "list only findings of this kind, or of every kind when empty (default: the reports')")
	f.IntVar(&o.Limit, "limit", 0, "list at most N findings per run, 0 = all (default: the reports')")
	onceFlag(cmd, &o.FailOn, "fail-on", "defect", "what fails the run: defect, advisory or drift")
	// The reports' own, when they agree (defect for recordings).
	cmd.Flags().Lookup("fail-on").DefValue = "the reports'"
	f.BoolVar(&o.Allow, "allow-unmeasured", false, "do not fail (exit 3) when a run is unmeasured (default: the reports')")
	f.BoolVar(&o.AllowDamaged, "allow-damaged", false, "do not fail (exit 3) when a run's only flaw is damaged evidence (default: the reports')")
	f.BoolVar(&o.StrictDeclarations, "strict-declarations", false, "exit 2 when the declarations name a tool no run offered or called (default: the reports')")
	onceFlag(cmd, &o.Baseline, "baseline", "", "accept the findings this baseline file lists (see 'fpcheck baseline')")
	addOutputFlags(cmd, &o.Output, report.Formats())
	addLoadFlags(cmd, &o.Load)
	return cmd
}

// mergedOptions are the report options of a merge: each flag given, else
// what every saved report agrees on.
func (o *MergeOptions) mergedOptions(saved []*report.Saved) (report.Options, error) {
	opts := report.Options{FilableKinds: checks.FilableKinds(), KnownKinds: checks.KnownKinds()}
	pick := func(flag string, set func(report.SavedOptions), get func(report.SavedOptions) string) error {
		if o.cmd.Flags().Changed(flag) || len(saved) == 0 {
			return nil
		}
		first := saved[0].Options
		for _, s := range saved[1:] {
			if get(s.Options) != get(first) {
				return fmt.Errorf("%s says --%s %s and %s says --%s %s; give --%s to choose",
					saved[0].Name, flag, get(first), s.Name, flag, get(s.Options), flag)
			}
		}
		set(first)
		return nil
	}
	o2 := *o
	err := firstErr(
		pick("kind", func(s report.SavedOptions) { o2.Kind = s.Kind }, func(s report.SavedOptions) string { return fmt.Sprintf("%q", s.Kind) }),
		pick("limit", func(s report.SavedOptions) { o2.Limit = s.Limit }, func(s report.SavedOptions) string { return fmt.Sprint(s.Limit) }),
		pick("fail-on", func(s report.SavedOptions) { o2.FailOn = s.FailOn }, func(s report.SavedOptions) string { return s.FailOn }),
		pick("allow-unmeasured", func(s report.SavedOptions) { o2.Allow = s.AllowUnmeasured }, func(s report.SavedOptions) string { return fmt.Sprint(s.AllowUnmeasured) }),
		pick("allow-damaged", func(s report.SavedOptions) { o2.AllowDamaged = s.AllowDamaged }, func(s report.SavedOptions) string { return fmt.Sprint(s.AllowDamaged) }),
		pick("strict-declarations", func(s report.SavedOptions) { o2.StrictDeclarations = s.StrictDeclarations }, func(s report.SavedOptions) string { return fmt.Sprint(s.StrictDeclarations) }),
	)
	if err != nil {
		return opts, err
	}
	switch o2.FailOn {
	case "defect", "advisory", "drift":
	default:
		return opts, flagErrorf("--fail-on must be defect, advisory or drift, not %q", o2.FailOn)
	}
	if o2.Limit < 0 {
		return opts, flagErrorf("--limit must be 0 (all) or more, not %d", o2.Limit)
	}
	opts.Kind, opts.Limit, opts.FailOn, opts.AllowUnmeasured, opts.AllowDamaged = o2.Kind, o2.Limit, o2.FailOn, o2.Allow, o2.AllowDamaged
	// The saved reports were judged alike (loadEntries holds them to one
	// declarations digest and posture), so the first one's explain flags
	// are every one's, unless the flags name the declarations again.
	opts.ExplainFlags = o.Load.explainFlags()
	if len(opts.ExplainFlags) == 0 && len(saved) > 0 {
		opts.ExplainFlags = saved[0].Options.ExplainFlags
	}
	opts.StrictDeclarations = o2.StrictDeclarations
	if err := report.ValidateKind(opts.Kind, opts); err != nil {
		return opts, err
	}
	return opts, acceptBaseline(&opts, o.Baseline)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func mergeRun(o *MergeOptions) error {
	specs, err := o.Output.specs()
	if err != nil {
		return err
	}
	if err := checkExclude(o.Load.Exclude); err != nil {
		return err
	}
	entries, excluded, err := expandExcluding(o.Inputs, o.Load.Exclude, o.IO, o.Global.Store, true, o.Load.MaxDecompressedBytes)
	if err != nil {
		return err
	}
	if err := refuseOverwrite(outputsOf(specs), entryPaths(entries), o.Load.Declarations); err != nil {
		return err
	}
	if err := refuseOverBaseline(specs, o.Baseline); err != nil {
		return err
	}
	if err := checkWritable(specs); err != nil {
		return err
	}
	j, err := loadEntries(entries, o.Load, o.IO, o.Global.Store, nil)
	if err != nil {
		return err
	}
	opts, err := o.mergedOptions(j.saved)
	if err != nil {
		return err
	}
	// The merged report is whole: its inputs are numbered afresh, as one
	// invocation over them would number them.
	for i := range j.inputs {
		j.inputs[i].Index = i
	}
	if j.decls != nil {
		opts.Declared, opts.DeclaredNames = j.decls, j.declNames
	}
	rep := report.Build(j.inputs, opts)
	// What the shards' own --exclude kept out, then what this one did:
	// the merged report says everything that was not read.
	for _, s := range j.saved {
		for _, e := range s.Excluded {
			rep.LeaveOut(e)
		}
	}
	leaveOut(rep, excluded)
	rep.Provenance = j.prov
	rep.Provenance.Total, rep.Provenance.Listing = len(j.inputs), report.InputsListing(j.inputs)
	if err := writeReport(o.IO, specs, o.Global.Color, rep); err != nil {
		return err
	}
	return &StatusError{Code: ExitCode(rep.ExitCode())}
}
