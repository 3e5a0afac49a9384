package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
	"github.com/fpcheck/fpcheck/report"
)

// ExplainOptions are explain's flags and arguments.
type ExplainOptions struct {
	IO      *IOStreams
	Global  *globalOptions
	Input   string
	RunID   string
	Finding string
	Format  string
	Width   int
	Load    loadOptions
}

// NewCmdExplain builds `fpcheck explain`. runF replaces the real run in
// tests that only check flag parsing.
func NewCmdExplain(ios *IOStreams, g *globalOptions, runF func(*ExplainOptions) error) *cobra.Command {
	o := &ExplainOptions{IO: ios, Global: g}
	cmd := &cobra.Command{
		Use:   "explain [flags] RECORDING [FINDING]",
		Short: "Show one finding whole: its witnesses, the frame the model chose from, the call and the result",
		Long: `explain replays one recording as analyze does and shows one finding whole:
the finding and every witness, where its evidence is in the recording, the
request frame the model chose from rebuilt by role (long messages folded
around the values the finding names, which are marked), the tool call with
its arguments and its result, every result of the declared grounds the
conversation recorded, what the live run and the replay each concluded, the
check's ceiling and the declaration that armed it.

FINDING is the finding's number in the report (with --run when several runs
list findings), its identity, or its SARIF fingerprint (at least 8 hex
digits). Without FINDING, explain lists the findings, each with the command
that explains it; analyze prints that command under every finding.

Give explain the --declarations and --posture analyze was given: a replayed
finding exists only under the declarations that arm its check.

The exit code is analyze's for the same recording and flags.

` + exitCodesHelp,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return flagErrorf("explain needs a recording, and optionally a finding (its number, identity or fingerprint)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Input = args[0]
			if len(args) == 2 {
				o.Finding = args[1]
			}
			switch o.Format {
			case "text", "json":
			default:
				return flagErrorf("--format must be text or json for explain, not %q", o.Format)
			}
			if err := checkWidth(cmd, &o.Width); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return explainRun(o)
		},
	}
	onceFlag(cmd, &o.RunID, "run", "", "the run the finding belongs to (its run id)")
	onceFlag(cmd, &o.Format, "format", "text", "text or json")
	addWidthFlag(cmd, &o.Width)
	addReplayFlags(cmd, &o.Load)
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func explainRun(o *ExplainOptions) error {
	if o.Input == "-" {
		return flagErrorf("explain reads a recording file, not standard input: it reads the recording again to show what a finding is about")
	}
	if fi, err := os.Stat(o.Input); err == nil && fi.IsDir() {
		return flagErrorf("explain reads one recording, and %s is a directory; %s", safeName(o.Input), recordingsIn(o.Input))
	}
	p, err := newPipeline(o.Load)
	if err != nil {
		return err
	}
	// Every payload is kept: explain shows the text the checks judged.
	ropts := p.recordingOptions()
	ropts.PayloadFilter = nil
	var runs []*recording.Run
	var results []report.RunResult
	st, err := recording.Load(o.Input, ropts, func(run *recording.Run) error {
		prep, err := replay.Prepare(run, p.decls, replay.Options{Posture: p.posture(), KeepInMemory: replay.KeepInMemoryFor(p.opts.MaxRunBytes)})
		if err != nil {
			return err
		}
		rr := report.NewRunResult(run)
		replayed, err := prep.Run()
		withReplay(&rr, replayed, err)
		runs = append(runs, run)
		results = append(results, rr)
		return nil
	})
	// An input unreadable past a point is judged, by analyze, in the runs
	// read before it; their findings are explained alike, and the error is
	// said (and sets the exit code) as analyze says it.
	var readErr error
	if _, isInput := errors.AsType[*recording.InputError](err); isInput && len(results) > 0 {
		readErr = err
		fmt.Fprintf(o.IO.ErrOut, "fpcheck: %s (the runs read before it are explained)\n", report.SanitizeLines(err.Error()))
	} else if err != nil {
		return err
	}
	opts := report.Options{
		FilableKinds: checks.FilableKinds(),
		KnownKinds:   checks.KnownKinds(),
		ExplainFlags: o.Load.explainFlags(),
	}
	rep := report.Build([]report.InputResult{{Stats: st, Runs: results, Err: readErr}}, opts)
	text := report.TextOptions{Color: o.Format == "text" && o.IO.colorEnabled(o.Global.Color), Width: textWidth(o.IO, o.Width)}
	status := &StatusError{Code: ExitCode(rep.ExitCode())}
	if o.Finding == "" {
		if o.Format == "json" {
			return flagErrorf("explain --format json shows one finding: name it (run explain without --format json to list them)")
		}
		if err := renderBuffered(o.IO.Out, "text", report.RenderOptions{}, func(w io.Writer, _ string, _ report.RenderOptions) error {
			return report.RenderFindingList(w, rep, o.RunID, text)
		}); err != nil {
			return err
		}
		return status
	}
	at, err := rep.SelectFinding(o.RunID, o.Finding)
	if err != nil {
		return err
	}
	run := &rep.Runs[at.Run]
	in := report.ExplainInput{Decl: p.decls}
	for _, r := range runs {
		if r.ID == run.RunID && r.Input == run.Input && in.Run == nil {
			in.Run = r
			continue
		}
		if in.Run == nil && run.SessionID != "" && r.SessionID == run.SessionID {
			in.Earlier = append(in.Earlier, r)
		}
	}
	x, err := rep.Explain(run, at.Finding, in)
	if err != nil {
		return err
	}
	if err := renderBuffered(o.IO.Out, o.Format, report.RenderOptions{}, func(w io.Writer, format string, _ report.RenderOptions) error {
		if format == "json" {
			return report.RenderExplainJSON(w, x)
		}
		return report.RenderExplainText(w, x, text)
	}); err != nil {
		return err
	}
	return status
}

// recordingsIn names, for a message, the first few files a walk of dir
// finds, which explain could be given instead.
func recordingsIn(dir string) string {
	found, err := recording.Expand([]string{dir})
	if err != nil || len(found) == 0 {
		return "it holds no recording to name instead"
	}
	names := make([]string, 0, 3)
	for _, p := range found[:min(3, len(found))] {
		names = append(names, safeName(p))
	}
	if len(found) > 3 {
		names = append(names, fmt.Sprintf("and %d more", len(found)-3))
	}
	return "name one of its files: " + strings.Join(names, ", ") + " ('fpcheck analyze " + safeName(dir) + "' lists the findings of all of them)"
}

// addWidthFlag declares --width, which every text output shares.
func addWidthFlag(cmd *cobra.Command, width *int) {
	cmd.Flags().IntVar(width, "width", 0, "wrap text at this many columns; 0 never wraps")
	cmd.Flags().Lookup("width").DefValue = "the terminal's width, else $COLUMNS, else 80"
}

// checkWidth validates --width and leaves -1 in width when it was not
// given, for textWidth to decide.
func checkWidth(cmd *cobra.Command, width *int) error {
	if !cmd.Flags().Changed("width") {
		*width = -1
		return nil
	}
	if *width < 0 {
		return flagErrorf("--width must be 0 (never wrap) or more, not %d", *width)
	}
	return nil
}

// defaultWidth is the wrap width when stdout is not a terminal.
const defaultWidth = 80

// textWidth is the column count text wraps at: --width when given, else
// the terminal's width (or $COLUMNS), else 80.
func textWidth(ios *IOStreams, flag int) int {
	if flag >= 0 {
		return flag
	}
	if ios.OutTTY {
		if w := ios.width(); w > 0 {
			return w
		}
	}
	// COLUMNS, as shells export it, when set; 0 there never wraps.
	if ios.Getenv != nil {
		if n, err := strconv.Atoi(ios.Getenv("COLUMNS")); err == nil && n >= 0 {
			return n
		}
	}
	return defaultWidth
}
