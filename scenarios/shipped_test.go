package scenarios

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestShippedScenariosValidate(t *testing.T) {
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("found %d shipped scenarios, want at least 3", len(files))
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(f, ".yaml"))
		t.Run(f, func(t *testing.T) {
			s, err := LoadWith(f)
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.TrimSuffix(f, ".yaml"); s.Name != want {
				t.Errorf("name = %q, want the file name %q", s.Name, want)
			}
			roundTrip(t, s)
		})
	}
	if got := Shipped(); !slices.Equal(got, names) {
		t.Errorf("Shipped() = %v, want %v", got, names)
	}
}

func TestShippedContents(t *testing.T) {
	tests := []struct {
		name            string
		agents          int
		kinds, topology []string
	}{
		{"quickstart", 8, []string{"least_squares"}, []string{TopologyErdosRenyi, TopologyRing}},
		{"logistic32", 32, []string{"logistic"}, []string{TopologyErdosRenyi}},
		{"nonconvex", 16, []string{"nonconvex_regression"}, []string{TopologyRing, TopologyGeometric}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := LoadShipped(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			if s.Agents != tt.agents || !slices.Contains(tt.kinds, s.Problem.Kind) || !slices.Contains(tt.topology, s.Graph.Topology) {
				t.Errorf("%s: agents %d, kind %s, topology %s", tt.name, s.Agents, s.Problem.Kind, s.Graph.Topology)
			}
		})
	}
	if _, err := LoadShipped("nosuch"); err == nil || !strings.Contains(err.Error(), "no shipped scenario nosuch (shipped: "+strings.Join(Shipped(), ", ")+")") {
		t.Errorf("LoadShipped(nosuch) = %v", err)
	}
}
