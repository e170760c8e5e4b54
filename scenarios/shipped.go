package scenarios

import (
	"embed"
	"io/fs"
	"path"
	"strings"
)

// shipped holds the scenario files distributed with consim.
//
//go:embed *.yaml
var shipped embed.FS

// Shipped lists the names (file names without .yaml) of the scenarios
// distributed with consim, in lexical order.
func Shipped() []string {
	files, _ := fs.Glob(shipped, "*.yaml")
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(f, ".yaml")
	}
	return names
}

// LoadShipped parses the shipped scenario called name (see Shipped). It
// does not validate; call Validate after any overrides.
func LoadShipped(name string) (*Scenario, error) {
	file := path.Base(name) + ".yaml"
	data, err := shipped.ReadFile(file)
	if err != nil {
		return nil, ErrorList{{Pos: Pos{File: file},
			Msg: "no shipped scenario " + name + " (shipped: " + strings.Join(Shipped(), ", ") + ")", Err: err}}
	}
	return Parse(data, file)
}
