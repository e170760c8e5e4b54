package buildinfo

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	main := debug.Module{Path: "github.com/consim/consim", Version: "v1.2.3"}
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want Info
	}{
		{"vcs stamped", &debug.BuildInfo{GoVersion: "go1.99.1", Main: main, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123abcd"},
			{Key: "vcs.time", Value: "2025-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"},
		}}, true, Info{"github.com/consim/consim", "v1.2.3", "0123abcd", "2025-01-02T03:04:05Z", "true", "go1.99.1", ""}},
		{"-buildvcs=false", &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Path: "github.com/consim/consim", Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "-buildvcs", Value: "false"}}},
			true, Info{"github.com/consim/consim", "(devel)", Unknown, Unknown, Unknown, "go1.99.1", ""}},
		{"no build info", nil, false, Info{Unknown, Unknown, Unknown, Unknown, Unknown, runtime.Version(), ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Read(func() (*debug.BuildInfo, bool) { return tt.bi, tt.ok })
			tt.want.Platform = runtime.GOOS + "/" + runtime.GOARCH
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			var b bytes.Buffer
			if err := got.Write(&b); err != nil || !strings.Contains(b.String(), "  revision  "+tt.want.Revision+"\n") {
				t.Errorf("write: %v\n%s", err, b.String())
			}
		})
	}
}
