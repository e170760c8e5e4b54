package scenarios

import (
	"fmt"
	"strings"
	"testing"
)

// sweepYAML is minimal (a ring of 4, seed 1) with a 3 x 2 grid and 2 seeds.
const sweepYAML = minimal + `sweep:
  grid:
    graph.p: [1, 0.5, 0.25]
    problem.box: [[-1, 1], [-.inf, 2]]
  seeds: 2
  parallel: 3
`

func TestExpandGridTimesSeeds(t *testing.T) {
	s, err := Parse([]byte(sweepYAML), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pts, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 3*2*2 {
		t.Fatalf("Expand gave %d runs, want 12", len(pts))
	}
	ps := []string{"1", "0.5", "0.25"}
	pf := []float64{1, 0.5, 0.25}
	boxes := []string{"[-1, 1]", "[-.inf, 2]"}
	his := []float64{1, 2}
	for k, pt := range pts {
		// First key slowest, seeds innermost.
		a, b, rep := k/4, (k/2)%2, k%2
		want := fmt.Sprintf("point %d replica %d graph.p=%s problem.box=%s", a*2+b, rep, ps[a], boxes[b])
		got := fmt.Sprintf("point %d replica %d %s=%s %s=%s", pt.Point, pt.Replica,
			pt.Labels[0].Key, pt.Labels[0].Value, pt.Labels[1].Key, pt.Labels[1].Value)
		if got != want {
			t.Errorf("run %d: %s, want %s", k, got, want)
		}
		sc := pt.Scenario
		if sc.Graph.P != pf[a] || regOf(sc).Box.Hi() != his[b] || sc.Seed != 1+uint64(rep) {
			t.Errorf("run %d: p %v, box %v, seed %d; want p %v, hi %v, seed %d",
				k, sc.Graph.P, regOf(sc).Box, sc.Seed, pf[a], his[b], 1+rep)
		}
		if sc.Sweep != nil {
			t.Errorf("run %d keeps a sweep block", k)
		}
		if err := sc.Validate(); err != nil {
			t.Errorf("run %d does not validate: %v", k, err)
		}
	}
	// Expand leaves the swept scenario as written.
	if s.Graph.P != 1 || s.Seed != 1 || s.Sweep == nil || s.Sweep.Parallel != 3 {
		t.Errorf("Expand changed its scenario: p %v seed %d sweep %+v", s.Graph.P, s.Seed, s.Sweep)
	}
	// A run's scenario is independent of the others.
	if err := pts[0].Scenario.Set("graph.p=0.1"); err != nil {
		t.Fatal(err)
	}
	if pts[1].Scenario.Graph.P != 1 {
		t.Errorf("changing run 0 changed run 1: p = %v", pts[1].Scenario.Graph.P)
	}
}

// A grid over seed moves each point's base seed; the replicas count up
// from it.
func TestExpandSeedAxis(t *testing.T) {
	s, err := Parse([]byte(minimal+"sweep: {grid: {seed: [10, 20]}, seeds: 3}\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pts, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	for _, p := range pts {
		got = append(got, p.Scenario.Seed)
	}
	if fmt.Sprint(got) != "[10 11 12 20 21 22]" {
		t.Errorf("seeds = %v, want [10 11 12 20 21 22]", got)
	}
}

func TestSweepDefaults(t *testing.T) {
	s, err := Parse([]byte(minimal+"sweep: {grid: {agents: [2, 3]}}\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if sw := s.Sweep; sw.Seeds != 1 || sw.Parallel != 0 || sw.Tolerance != 0 {
		t.Errorf("defaults: %+v, want seeds 1, parallel 0, tolerance 0", sw)
	}
	pts, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2 || pts[0].Scenario.Agents != 2 || pts[1].Scenario.Agents != 3 {
		t.Errorf("agents sweep gave %d runs", len(pts))
	}
}

func TestSweepErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string // appended to minimal, which has 5 lines
		want []string
	}{
		{
			name: "unknown key lists the allowed ones",
			yaml: "sweep:\n  grid:\n    graph.pp: [1]\n",
			want: []string{`x.yaml:8:5: sweep.grid.graph.pp: unknown key "pp" in graph (did you mean "p"? allowed: topology, rows, cols, q, radius, file, k, period, p, p_range)`},
		},
		{
			name: "unknown top-level key",
			yaml: "sweep: {grid: {nodes: [2, 3]}}\n",
			want: []string{`x.yaml:6:16: sweep.grid.nodes: unknown key "nodes" at top level (allowed: name, seed, agents, graph, edges, problem, algorithm, rounds, metrics, runtime, faults, async, output, sweep)`},
		},
		{
			name: "empty list, seeds, parallel, tolerance",
			yaml: "sweep:\n  grid:\n    graph.p: []\n  seeds: 0\n  parallel: -1\n  tolerance: -1\n",
			want: []string{
				`x.yaml:8:5: sweep.grid.graph.p: empty list: give at least one value`,
				`x.yaml:9:10: sweep.seeds: must be an integer >= 1, got 0`,
				`x.yaml:10:13: sweep.parallel: must be an integer >= 0, got -1`,
				`x.yaml:11:14: sweep.tolerance: must be a finite number >= 0, got -1`,
			},
		},
		{
			name: "empty grid",
			yaml: "sweep: {seeds: 2}\n",
			want: []string{`x.yaml:6:8: sweep.grid: must map at least one key to a list of values, e.g. graph.p: [1, 0.5]`},
		},
		{
			name: "value of the wrong type at its own line",
			yaml: "sweep:\n  grid:\n    graph.p: [1,\n      abc]\n",
			want: []string{`x.yaml:9:7: sweep.grid.graph.p: expected a number, got string "abc"`},
		},
		{
			name: "value out of range at its own line",
			yaml: "sweep:\n  grid:\n    graph.p:\n      - 1\n      - 1.5\n",
			want: []string{`x.yaml:10:9: graph.p: 1.5 is outside (0, 1]`},
		},
		{
			name: "the sweep block is not sweepable",
			yaml: "sweep: {grid: {sweep.seeds: [1, 2]}}\n",
			want: []string{`x.yaml:6:16: sweep.grid.sweep.seeds: a sweep cannot vary its own sweep block`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(minimal+tt.yaml), "x.yaml")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			pts, err := s.Expand()
			if err == nil {
				t.Fatalf("Expand gave %d runs; want errors %q", len(pts), tt.want)
			}
			checkErrors(t, err, tt.want)
		})
	}
}

func TestSweepParseErrors(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"grid not a mapping", "sweep: {grid: [graph.p]}\n", []string{`x.yaml:6:15: sweep.grid: expected a mapping from dotted key to a list of values, got a sequence of 1`}},
		{"values not a list", "sweep: {grid: {graph.p: 0.5}}\n", []string{`x.yaml:6:25: sweep.grid.graph.p: expected a list of values, e.g. [1, 0.5], got 0.5`}},
		{"repeated key", "sweep:\n  grid:\n    graph.p: [1]\n    graph.p: [2]\n", []string{`x.yaml:9:5: sweep.grid.graph.p: repeated key (first set at line 8)`}},
		{"unknown sweep key", "sweep: {grid: {graph.p: [1]}, seed: 3}\n", []string{`x.yaml:6:31: unknown key "seed" in sweep (did you mean "seeds"? allowed: grid, seeds, parallel, tolerance)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(minimal+tt.yaml), "x.yaml")
			if err == nil {
				t.Fatalf("Parse succeeded; want %q", tt.want)
			}
			checkErrors(t, err, tt.want)
		})
	}
}

func TestExpandWithoutSweep(t *testing.T) {
	s := parseMinimal(t)
	_, err := s.Expand()
	if err == nil || !strings.Contains(err.Error(), "sweep: missing") {
		t.Errorf("Expand without a sweep block: %v", err)
	}
}

func TestSweepRoundTripAndSet(t *testing.T) {
	s, err := Parse([]byte(sweepYAML), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, s)
	if err := s.Set("sweep={grid: {graph.q: [0.5]}, seeds: 4}"); err != nil {
		t.Fatal(err)
	}
	if len(s.Sweep.Grid) != 1 || s.Sweep.Grid[0].Key != "graph.q" || s.Sweep.Seeds != 4 {
		t.Errorf("after Set: %+v", s.Sweep)
	}
	// graph.q only applies to erdos_renyi: the ring rejects it per point.
	if _, err := s.Expand(); err == nil || !strings.Contains(err.Error(), "graph.q: only used with topology erdos_renyi") {
		t.Errorf("Expand: %v", err)
	}
	if err := s.Set("sweep=null"); err != nil || s.Sweep != nil {
		t.Errorf("sweep=null: err %v, sweep %+v", err, s.Sweep)
	}
}
