// Package buildinfo reads what a consim binary records about its own
// build: the module and its version, the VCS revision, its time and
// whether the tree was modified, and the Go toolchain and platform. It
// owns that reading and its text form only; it imports nothing of consim.
package buildinfo

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// Unknown stands for a build fact the binary does not carry: a build
// without module information, or without VCS stamping (-buildvcs=false).
const Unknown = "unknown"

// Info is what `consim version` prints: the module and its version, the
// VCS revision it was built from, and the Go toolchain.
type Info struct {
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

// Current returns the Info of the running binary (Read of
// debug.ReadBuildInfo).
func Current() Info { return Read(debug.ReadBuildInfo) }

// Read returns the Info of the build information that read returns (as
// debug.ReadBuildInfo does); every fact the build does not carry is
// Unknown.
func Read(read func() (*debug.BuildInfo, bool)) Info {
	v := Info{
		Module: Unknown, Version: Unknown, Revision: Unknown, Time: Unknown, Modified: Unknown,
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

// Write prints v as aligned "key value" lines, the first naming the
// version.
func (v Info) Write(w io.Writer) error {
	_, err := fmt.Fprintf(w, "consim %s\n  module    %s\n  revision  %s\n  time      %s\n  modified  %s\n  go        %s %s\n",
		v.Version, v.Module, v.Revision, v.Time, v.Modified, v.Go, v.Platform)
	return err
}
