package scenarios

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: no input makes the loader panic; whatever it accepts
// validates or gives an error, and renders back to YAML that parses to
// the same scenario's keys.
func FuzzParse(f *testing.F) {
	for _, name := range Shipped() {
		if b, err := os.ReadFile(filepath.Join(".", name+".yaml")); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("agents: 2\ngraph: {topology: path}\nproblem: {kind: least_squares, dim: 2}\nalgorithm: {name: alm}\nrounds: 3\n"))
	f.Add([]byte("algorithm: {name: dadmm, penalty: .nan}\n"))
	f.Add([]byte("algorithm: {name: dadmm, params: {c: .nan}}\n"))
	f.Add([]byte("problem: {kind: portfolio, assets: -1}\nsweep: {grid: {graph.p: []}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, "fuzz.yaml")
		if err != nil {
			return
		}
		_ = s.Validate()
		out, err := s.Marshal()
		if err != nil {
			return
		}
		if _, err := Parse(out, "fuzz.yaml"); err != nil {
			t.Fatalf("Marshal output does not parse: %v\n%s", err, out)
		}
	})
}
