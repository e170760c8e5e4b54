package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/consim/consim/internal/buildinfo"
)

// versionTemplate is the text/template of `consim --version` and -v:
// what buildinfo.Info.Write prints for this binary.
func versionTemplate() string {
	var b strings.Builder
	_ = buildinfo.Current().Write(&b)
	return strings.ReplaceAll(b.String(), "{{", "{{`{{`}}")
}

func (a *app) versionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:               "version",
		Short:             "print the module version, VCS revision and Go version",
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	withHelp(cmd, "version")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.RunE = a.runE(func(*cobra.Command, []string) error {
		v := buildinfo.Current()
		if !asJSON {
			return v.Write(a.stdout)
		}
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", b)
		return err
	})
	return cmd
}
