package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

// NewCmdVersion prints the build's version.
func NewCmdVersion(ios *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print fpcheck's version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(ios.Out, "fpcheck %s (%s, %s/%s)\n", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
