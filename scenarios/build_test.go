package scenarios

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestBuildShipped(t *testing.T) {
	for _, name := range Shipped() {
		t.Run(name, func(t *testing.T) {
			s, err := LoadShipped(name)
			if err != nil {
				t.Fatal(err)
			}
			st, err := s.Build()
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			if st.Graph.N != s.Agents || len(st.Locals) != s.Agents {
				t.Fatalf("graph has %d agents, %d locals; want %d", st.Graph.N, len(st.Locals), s.Agents)
			}
			as, err := st.Agents()
			if err != nil {
				t.Fatal(err)
			}
			if len(as) != s.Agents {
				t.Fatalf("%d agents, want %d", len(as), s.Agents)
			}
			if s.Algorithm.Name == AlgorithmALM && (st.ALM.Tau <= 0 || st.ALM.Eta <= 0 || st.ALM.Beta <= 0) {
				t.Fatalf("resolved parameters not positive: %+v", st.ALM.Params)
			}
		})
	}
}

func TestBuildDeterministicInitialPoints(t *testing.T) {
	s, err := LoadShipped("quickstart")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Build()
	b, _ := s.Build()
	x0, y0 := a.InitialPoint(3), b.InitialPoint(3)
	for k := range x0 {
		if x0[k] != y0[k] {
			t.Fatalf("initial point differs between builds at %d: %v vs %v", k, x0[k], y0[k])
		}
	}
	if z := a.InitialPoint(4); z[0] == x0[0] {
		t.Fatalf("agents 3 and 4 share an initial point")
	}
}

func TestBuildOverridesParams(t *testing.T) {
	s, err := LoadShipped("quickstart")
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range []string{"algorithm.params.rho=3.5", "algorithm.params.tau=0.001"} {
		if err := s.Set(kv); err != nil {
			t.Fatal(err)
		}
	}
	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	if st.ALM.Rho != 3.5 || st.ALM.Tau != 0.001 {
		t.Fatalf("overrides not applied: rho %v tau %v", st.ALM.Rho, st.ALM.Tau)
	}
}

func TestBuildRejectsDisconnectedGraph(t *testing.T) {
	src := `agents: 6
graph: {topology: file, file: edges.txt}
problem: {kind: least_squares, dim: 3}
algorithm: {name: alm}
rounds: 10
`
	dir := t.TempDir()
	writeFile(t, dir+"/edges.txt", "0 1\n1 2\n3 4\n4 5\n")
	writeFile(t, dir+"/s.yaml", src)
	s, err := Load(dir + "/s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Build()
	if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "disconnected") || !strings.Contains(err.Error(), "s.yaml:2") {
		t.Fatalf("Build error = %v; want a disconnected-graph error at s.yaml:2", err)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
