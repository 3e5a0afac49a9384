package main

import (
	"fmt"
	"strings"

	"github.com/fpcheck/fpcheck/checks"
	"github.com/spf13/cobra"
)

// NewCmdChecks lists every registered check from the registry, the same
// source docs/checks.md is generated from.
func NewCmdChecks(ios *IOStreams, runF func() error) *cobra.Command {
	var verbose bool
	cmd := &cobra.Command{
		Use:   "checks",
		Short: "List the checks this build registers, what arms each, and its ceiling",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF()
			}
			var b strings.Builder
			for _, c := range checks.Registry {
				adv := "defect"
				if c.Advisory {
					adv = "advisory"
				}
				fmt.Fprintf(&b, "%s @%s  (%s)\n  %s\n  armed by: %s\n", c.Kind, c.Seam, adv, c.Title, c.ArmedBy)
				if c.Ceiling != "" {
					fmt.Fprintf(&b, "  ceiling: %s\n", c.Ceiling)
				}
				if verbose && c.Doc != "" {
					fmt.Fprintf(&b, "\n  %s\n", strings.ReplaceAll(strings.TrimSpace(c.Doc), "\n", "\n  "))
				}
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "No check in this build files %s; fpcheck refuses questions about it rather than let silence read as absence.\n", checks.KindDuplicateExecution)
			_, err := fmt.Fprint(ios.Out, b.String())
			return err
		},
	}
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "print each check's full documentation")
	return cmd
}
