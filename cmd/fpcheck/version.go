package main

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fpcheck/fpcheck/internal/objstore"
)

// NewCmdVersion prints the build's version, and the object storage schemes
// it reads: a build may leave cloud drivers out (internal/objstore).
func NewCmdVersion(ios *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print fpcheck's version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(ios.Out, "fpcheck %s (%s, %s/%s; object storage: %s)\n", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH,
				strings.Join(objstore.Drivers(), ", "))
			return err
		},
	}
}
