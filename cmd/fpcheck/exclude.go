package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fpcheck/fpcheck/recording"
)

// addExcludeFlag declares --exclude, one definition for every command that
// reads inputs, so that a pattern means the same to each of them.
func addExcludeFlag(cmd *cobra.Command, patterns *[]string) {
	cmd.Flags().StringArrayVar(patterns, "exclude", nil, "do not read the files (or enter the directories) matching GLOB; '**' matches any number of directories, a GLOB without '/' matches a name anywhere (repeatable)")
}

// checkExclude refuses a malformed --exclude pattern before anything is read.
func checkExclude(patterns []string) error {
	for _, p := range patterns {
		if err := recording.CheckPattern(p); err != nil {
			return flagErrorf("--exclude: %v", err)
		}
	}
	return nil
}

// expandPaths expands local arguments for a command that writes no report
// (baseline write, declarations init): globs and directories as analyze
// expands them, less what --exclude keeps out, each exclusion said once on
// stderr so that what was not read is never silent.
func expandPaths(args, exclude []string, ios *IOStreams) ([]string, error) {
	if err := checkExclude(exclude); err != nil {
		return nil, err
	}
	paths, excluded, err := recording.ExpandExcluding(args, exclude)
	if err != nil {
		return nil, &FlagError{Err: err}
	}
	if kept := keptOut(excluded); len(paths) == 0 && len(kept) > 0 {
		return nil, flagErrorf("--exclude kept out every input (%s); nothing is left to read", excludedList(kept))
	}
	for _, e := range excluded {
		fmt.Fprintln(ios.ErrOut, leftOut(e).StderrLine())
	}
	return paths, nil
}
