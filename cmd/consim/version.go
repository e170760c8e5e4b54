package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// unknown stands for a build fact the binary does not carry: a build
// without module information, or without VCS stamping (-buildvcs=false).
const unknown = "unknown"

// versionInfo is what `consim version` prints: the module and its version,
// the VCS revision it was built from, and the Go toolchain.
type versionInfo struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Revision string `json:"revision"`
	// Time is the commit time of Revision (RFC 3339).
	Time string `json:"time"`
	// Modified is "true" when the working tree had uncommitted changes.
	Modified string `json:"modified"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// buildVersion reads versionInfo from the build information that read
// returns (debug.ReadBuildInfo); every fact the build does not carry is
// "unknown".
func buildVersion(read func() (*debug.BuildInfo, bool)) versionInfo {
	v := versionInfo{
		Module: unknown, Version: unknown, Revision: unknown, Time: unknown, Modified: unknown,
		Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
	}
	bi, ok := read()
	if !ok || bi == nil {
		return v
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	if bi.Main.Path != "" {
		v.Module = bi.Main.Path
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		if s.Value == "" {
			continue
		}
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value
		}
	}
	return v
}

// write prints v as aligned "key value" lines, the first naming the
// version.
func (v versionInfo) write(w io.Writer) error {
	_, err := fmt.Fprintf(w, "consim %s\n  module    %s\n  revision  %s\n  time      %s\n  modified  %s\n  go        %s %s\n",
		v.Version, v.Module, v.Revision, v.Time, v.Modified, v.Go, v.Platform)
	return err
}

// versionTemplate is the text/template of `consim --version` and -v:
// what write prints, from the build information.
func versionTemplate() string {
	var b strings.Builder
	_ = buildVersion(debug.ReadBuildInfo).write(&b)
	return strings.ReplaceAll(b.String(), "{{", "{{`{{`}}")
}

func (a *app) versionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "print the module version, VCS revision and Go version",
		Long: `Version prints the version of the consim module this binary was built
from, the VCS revision, its time and whether the tree was modified, and
the Go toolchain and platform, as recorded in the binary's build
information. Facts the build did not record (a build with
-buildvcs=false has no revision) print as "unknown".`,
		Example: `  consim version
  consim version --json`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.RunE = a.runE(func(*cobra.Command, []string) error {
		v := buildVersion(debug.ReadBuildInfo)
		if !asJSON {
			return v.write(a.stdout)
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
