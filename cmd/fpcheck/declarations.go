package main

import (
	"errors"
	"fmt"
	"slices"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/fpcheck/fpcheck/internal/objstore"
	"github.com/fpcheck/fpcheck/recording"
	"github.com/fpcheck/fpcheck/replay"
	"github.com/fpcheck/fpcheck/report"
	"github.com/spf13/cobra"
)

// NewCmdDeclarations builds `fpcheck declarations`, whose one subcommand,
// init, writes a declarations skeleton from recordings.
func NewCmdDeclarations(ios *IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "declarations",
		Short: "Work with declarations files (see docs/declarations.md)",
		Args:  cobra.NoArgs,
	}
	var load loadOptions
	initCmd := &cobra.Command{
		Use:   "init RECORDING...",
		Short: "Write a declarations skeleton for the tools the recordings offered or called",
		Long: `init reads the recordings and writes to stdout a declarations file that
lists every tool their runs offered (llm_start.tools) or called
(tool_start.toolName). Each key that arms a check is written out and
commented ("# "); argumentsFrom suggests the tools called before each tool.
Uncomment what is true of your agent; the dials are off. Notes are commented
twice ("## ") and stay comments.

An input that cannot be read is exit 2, as for analyze: a skeleton of part
of the recordings would silently leave tools out.`,
		Args: needInputs("declarations init needs at least one recording (a path, a directory, or - for stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return declarationsInit(ios, args, load)
		},
	}
	f := initCmd.Flags()
	f.BoolVar(&load.NoRotated, "no-rotated", false, "do not read a rotated sibling PATH.1 before PATH")
	sizeFlag(initCmd, &load.MaxLineBytes, "max-line-bytes", "longest NDJSON line accepted (default 256 MiB)")
	sizeFlag(initCmd, &load.MaxDecompressedBytes, "max-decompressed-bytes", "most bytes one compressed input may expand to (default 8 GiB)")
	addExcludeFlag(initCmd, &load.Exclude)
	cmd.AddCommand(initCmd)
	return cmd
}

func declarationsInit(ios *IOStreams, args []string, load loadOptions) error {
	for _, a := range args {
		if objstore.IsURL(a) {
			return flagErrorf("declarations init reads files and directories, not object storage (%s): copy a few recordings here first", report.Sanitize(a))
		}
	}
	entries, excluded, err := expandExcluding(args, load.Exclude, ios, nil, false, 0)
	if err != nil {
		return err
	}
	for _, e := range excluded {
		fmt.Fprintln(ios.ErrOut, leftOut(e).StderrLine())
	}
	var paths []string
	var tools []checks.SkeletonTool
	index := map[string]int{}
	tool := func(name string) *checks.SkeletonTool {
		i, ok := index[name]
		if !ok {
			i = len(tools)
			index[name] = i
			tools = append(tools, checks.SkeletonTool{Name: name})
		}
		return &tools[i]
	}
	opts := recording.Options{NoRotated: load.NoRotated, MaxLineBytes: load.MaxLineBytes, MaxDecompressedBytes: load.MaxDecompressedBytes}
	for _, e := range entries {
		p := e.path
		each := func(run *recording.Run) error {
			for _, n := range replay.ToolsSeen(run) {
				tool(n)
			}
			var before []string
			for _, n := range replay.ToolCalls(run) {
				t := tool(n)
				t.Called = true
				for _, b := range before {
					if b != n && !slices.Contains(t.Before, b) {
						t.Before = append(t.Before, b)
					}
				}
				if !slices.Contains(before, n) {
					before = append(before, n)
				}
			}
			return nil
		}
		if p == "-" {
			_, err = recording.LoadReader("-", ios.In, opts, each)
		} else {
			_, err = recording.Load(p, opts, each)
		}
		if e.root != "" && errors.Is(err, recording.ErrNotRecording) {
			// As in analyze: a walk finds more than recordings.
			fmt.Fprintln(ios.ErrOut, report.SkippedFile(p, err).StderrLine())
			continue
		}
		if err != nil {
			return err
		}
		paths = append(paths, p)
	}
	slices.SortStableFunc(tools, func(a, b checks.SkeletonTool) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	// Through the CI log guard, as a report: the skeleton names what the
	// recordings hold. A name it changes is one the skeleton writes
	// double-quoted (a plain name holds neither '#' nor ':'), where the
	// guard's \x5b is YAML's own escape of '['.
	_, err = report.LogSafe(ios.Out, report.FormatText).Write(checks.Skeleton(paths, tools))
	return err
}
