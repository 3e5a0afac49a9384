package main

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/fpcheck/fpcheck/internal/objstore"
	"github.com/fpcheck/fpcheck/report"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…"; a build
// from a module download reports the module version instead.
var version = ""

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// globalOptions are the flags every command shares, and the object
// storage buckets the invocation opened.
type globalOptions struct {
	Color string
	Store *objstore.Store
}

// NewRootCmd builds the command tree. Nothing is global: tests build a fresh
// tree per run.
func NewRootCmd(ios *IOStreams) *cobra.Command {
	root, _ := newRoot(ios)
	return root
}

func newRoot(ios *IOStreams) (*cobra.Command, *globalOptions) {
	g := &globalOptions{Store: objstore.New()}
	root := &cobra.Command{
		Use:   "fpcheck",
		Short: "Replay agentfootprint recordings through the Context Integrity checks",
		Long: `fpcheck reads recordings of agentfootprint agent runs (NDJSON event streams,
recording JSON, agentfootprint.recording.v1 envelopes, recording artifacts;
zstd or gzip), replays every run through Go ports of the Context Integrity
checks, and reports what the live run recorded beside what the checks find
now. A green report is bounded: it means no REGISTERED check was violated,
never that no context error exists.

` + exitCodesHelp,
		Version:       buildVersion(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SetVersionTemplate("fpcheck {{.Version}}\n")
	root.PersistentFlags().StringVar(&g.Color, "color", "auto", "colour the text report: auto, always or never (auto honours NO_COLOR and needs a terminal)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &FlagError{Err: err} })
	root.AddCommand(
		NewCmdAnalyze(ios, g, nil),
		NewCmdDiff(ios, g, nil),
		NewCmdMerge(ios, g, nil),
		NewCmdExplain(ios, g, nil),
		NewCmdBaseline(ios, nil),
		NewCmdChecks(ios, nil),
		NewCmdDeclarations(ios),
		NewCmdVersion(ios),
	)
	return root, g
}

// Main runs fpcheck with args and returns the process exit code. It is the
// only place that prints errors, and a panic anywhere below it becomes one
// line asking for a bug report and exit 4 instead of a stack dump.
func Main(args []string, ios *IOStreams) (code int) {
	// Standard error carries file names and recording text too, into the
	// same CI logs as the report.
	guarded := *ios
	guarded.ErrOut = report.LogSafe(ios.ErrOut, report.FormatText)
	ios = &guarded
	defer func() {
		if r := recover(); r != nil {
			// The panic value and the arguments may carry bytes from a
			// recording or its file name: escaped, the line stays one line.
			fmt.Fprintf(ios.ErrOut, "fpcheck: internal error (%s) while running \"fpcheck %s\" — this is a bug in fpcheck; please report it with the input that caused it\n",
				report.Sanitize(fmt.Sprint(r)), report.Sanitize(strings.Join(args, " ")))
			code = int(ExitInternal)
		}
	}()
	root, g := newRoot(ios)
	defer g.Store.Close()
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return int(ExitGreen)
	}
	// A StatusError's report has already been written; every other error
	// is said here, once.
	if _, decided := errors.AsType[*StatusError](err); !decided {
		fmt.Fprintf(ios.ErrOut, "fpcheck: %s\n", report.SanitizeLines(err.Error()))
		if _, isFlag := errors.AsType[*FlagError](err); isFlag {
			fmt.Fprintln(ios.ErrOut, "Run 'fpcheck --help' for usage.")
		}
	}
	return int(exitCodeOf(err))
}
