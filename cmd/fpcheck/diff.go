package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// DiffOptions are diff's parsed flags and dependencies.
type DiffOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Base   string
	Head   string
	Format string
	Load   loadOptions
}

// NewCmdDiff builds `fpcheck diff BASE HEAD`.
func NewCmdDiff(ios *IOStreams, g *globalOptions, runF func(*DiffOptions) error) *cobra.Command {
	o := &DiffOptions{IO: ios, Global: g}
	cmd := &cobra.Command{
		Use:   "diff [flags] BASE HEAD",
		Short: "Compare two recordings: findings new, resolved and persisting; coverage that shrank",
		Long: `diff compares two recordings of the same scenario (before and after a prompt,
model or tool change).

` + exitCodesHelp,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return flagErrorf("diff needs exactly two recordings, BASE and HEAD (got %d)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Base, o.Head = args[0], args[1]
			if runF != nil {
				return runF(o)
			}
			return diffRun(o)
		},
	}
	cmd.Flags().StringVar(&o.Format, "format", "text", "output format: text or json")
	addLoadFlags(cmd, &o.Load)
	return cmd
}

func diffRun(o *DiffOptions) error {
	return &FlagError{Err: errors.New("diff is not available in this build yet")}
}
