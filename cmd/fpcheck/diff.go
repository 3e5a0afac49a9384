package main

import (
	"io"
	"os"

	"github.com/fpcheck/fpcheck/checks"
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
}

const diffExitHelp = `Exit codes (the same whatever --format says):
  0  no regression: nothing new fails and no check's coverage shrank
  1  a new defect (not accepted by --baseline; with --fail-on advisory, also a
     new advisory), a finding whose baseline entry expired, or a coverage
     regression: a check that stopped checking, a ledger row that vanished,
     unreachable encounters that grew, a coverage state that got worse,
     evidence newly missing, or a run or recording that vanished
  2  usage, declarations or baseline fpcheck cannot honour, or an input on
     either side that cannot be read
  3  the head is unmeasured: a head run proves nothing about its checks having
     run, or a head recording holds no run (unless --allow-unmeasured)
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
findings are new).

Within a matched pair, runs are matched by run id where both sides carry the
same id (the same recording analyzed again, for example with other
declarations), and otherwise by position: the first run of the base with the
first run of the head, in order of first appearance. Run ids and session ids
are minted anew on every recording, so they cannot match two recordings of
the same scenario.

Findings are matched by identity (kind, seam, sorted subjects, predicate;
the epoch is left out), so the same defect found at another iteration
persists. For each check, diff compares the recorded ledger of the two runs,
and the replayed ledger too: a check that stopped checking, a row that
vanished, unreachable encounters that grew, and a coverage state that got
worse (full, then partial, then the four absences, then no-tail) are
regressions. Advisories are counted apart.

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
	f.StringVar(&o.FailOn, "fail-on", report.FailOnDefect, "what new finding fails: defect, or advisory (new advisories fail too)")
	f.BoolVar(&o.Allow, "allow-unmeasured", false, "do not fail (exit 3) when the head is unmeasured")
	f.StringVar(&o.Baseline, "baseline", "", "accept the findings this baseline file lists (see 'fpcheck baseline')")
	addOutputFlags(cmd, &o.Output)
	addLoadFlags(cmd, &o.Load)
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{report.FailOnDefect, report.FailOnAdvisory}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// diffSide is BASE or HEAD expanded: its inputs, and its root when it is a
// directory.
type diffSide struct {
	inputs []string
	root   string
}

func expandSide(arg string) (diffSide, error) {
	if arg == "-" {
		return diffSide{inputs: []string{"-"}}, nil
	}
	inputs, err := recording.Expand([]string{arg})
	if err != nil {
		return diffSide{}, &FlagError{Err: err}
	}
	s := diffSide{inputs: inputs}
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		s.root = arg
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
	base, err := expandSide(o.Base)
	if err != nil {
		return err
	}
	head, err := expandSide(o.Head)
	if err != nil {
		return err
	}
	if (base.root == "") != (head.root == "") {
		return flagErrorf("diff compares two files or two directories; %s and %s are one of each", o.Base, o.Head)
	}
	opts := report.Options{
		FilableKinds:    checks.FilableKinds(),
		KnownKinds:      checks.KnownKinds(),
		AllowUnmeasured: o.Allow,
	}
	if err := acceptBaseline(&opts, o.Baseline); err != nil {
		return err
	}
	if err := checkWritable(specs); err != nil {
		return err
	}
	p, err := newPipeline(o.Load)
	if err != nil {
		return err
	}
	baseRep := report.Build(loadInputs(p, base.inputs, o.IO), opts)
	headRep := report.Build(loadInputs(p, head.inputs, o.IO), opts)
	d := report.NewDiff(baseRep, headRep, report.PairInputs(base.root, base.inputs, head.root, head.inputs),
		report.DiffOptions{FailOn: o.FailOn, AllowUnmeasured: o.Allow})
	d.BaseName, d.HeadName = o.Base, o.Head
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
	return &StatusError{Code: ExitCode(d.ExitCode())}
}
