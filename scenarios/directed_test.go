package scenarios

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/consim/consim/graph"
)

// directedScenario is a push_sum run on the given graph block.
func directedScenario(graphBlock string) string {
	return "agents: 12\ngraph: " + graphBlock + "\nproblem: {kind: least_squares, dim: 2}\nalgorithm: {name: push_sum}\nrounds: 10\n"
}

// TestDirectedTopologiesBuild builds every directed topology and checks
// what the algorithms get: a strongly connected digraph with the arc
// probabilities of graph.p or graph.p_range, the arc process of the
// topology, and the digraph's underlying graph with its EitherArc process
// for the measures. An undirected topology leaves the digraph out, and
// Env.Directed sees its edges as arcs.
func TestDirectedTopologiesBuild(t *testing.T) {
	tests := []struct {
		name, graph string
		arcs        func(d *graph.Digraph) bool
		p           func(p float64) bool
		sequence    bool
	}{
		{"directed_ring", "{topology: directed_ring, p: 0.7}",
			func(d *graph.Digraph) bool { return len(d.Arcs) == 12 && d.Diameter() == 11 }, func(p float64) bool { return p == 0.7 }, false},
		{"digraph", "{topology: digraph, q: 0.2}",
			func(d *graph.Digraph) bool { return len(d.Arcs) > 12 }, func(p float64) bool { return p == 1 }, false},
		{"k_out", "{topology: k_out, k: 4, p_range: [0.3, 0.6]}",
			func(d *graph.Digraph) bool { return len(d.Arcs) == 48 }, func(p float64) bool { return p >= 0.3 && p < 0.6 }, false},
		{"directed_sequence", "{topology: directed_sequence, period: 4, p: 0.8}",
			func(d *graph.Digraph) bool { return len(d.Arcs) == 12 }, func(p float64) bool { return math.Abs(p-0.2) < 1e-15 }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse([]byte(directedScenario(tc.graph)), "x.yaml")
			if err != nil {
				t.Fatal(err)
			}
			st, err := s.Build()
			if err != nil {
				t.Fatal(err)
			}
			d := st.Env.Digraph
			if d == nil || d.N != 12 || !d.StronglyConnected() || !tc.arcs(d) {
				t.Fatalf("digraph %+v", d)
			}
			for _, a := range d.Arcs {
				if !tc.p(a.P) {
					t.Fatalf("arc %d->%d: p = %v", a.From, a.To, a.P)
				}
			}
			_, seq := st.Env.Arcs.(graph.SequenceArcs)
			_, bern := st.Env.Arcs.(graph.ArcBernoulli)
			if seq != tc.sequence || bern == tc.sequence {
				t.Errorf("arc process %T", st.Env.Arcs)
			}
			if st.Graph != st.Env.Graph || st.Graph.NumEdges() != d.Underlying().NumEdges() || !st.Graph.Connected() {
				t.Errorf("the run's graph is not the digraph's underlying graph")
			}
			if _, ok := st.Process.(graph.EitherArc); !ok {
				t.Errorf("edge process %T, want graph.EitherArc", st.Process)
			}
			if dd, arcs := st.Env.Directed(); dd != d || arcs != st.Env.Arcs {
				t.Error("Env.Directed does not return the run's digraph")
			}
			ds, ok, err := st.DirectedStats()
			if period := 1 + 3*b2i(tc.sequence); err != nil || !ok || ds.Period != period || ds.Arcs != len(d.Arcs) || !(ds.RateC > 0 && ds.RateC < 1) {
				t.Errorf("DirectedStats = %+v, %v, %v", ds, ok, err)
			}
			var buf bytes.Buffer
			if err := st.RecordEdges(&buf); err == nil || !strings.Contains(err.Error(), "draws arcs") {
				t.Errorf("RecordEdges on a directed topology: %v", err)
			}
			again, err := s.Build()
			if err != nil || len(again.Env.Digraph.Arcs) != len(d.Arcs) {
				t.Errorf("a second build differs: %v", err)
			}
		})
	}
	s, err := Parse([]byte(directedScenario("{topology: ring, p: 0.5}")), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := st.DirectedStats(); ok || err != nil {
		t.Errorf("ring: DirectedStats reports a digraph (%v)", err)
	}
	d, arcs := st.Env.Directed()
	if st.Env.Digraph != nil || len(d.Arcs) != 24 {
		t.Fatalf("ring: Env.Digraph %v, %d arcs", st.Env.Digraph, len(d.Arcs))
	}
	for r := range 20 {
		if arcs.ArcUp(r, 0, 3, 4) != st.Process.Active(r, 0, 3, 4) || arcs.ArcUp(r, 0, 4, 3) != st.Process.Active(r, 0, 3, 4) {
			t.Fatalf("round %d: the arcs of edge {3,4} disagree with the edge", r)
		}
	}
}

// TestDirectedValidateErrors: each key of a directed topology is required
// where it applies and refused elsewhere, and a directed topology refuses
// the edge models and schedules it cannot draw and the algorithms that do
// not run on arcs.
func TestDirectedValidateErrors(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"digraph without q", directedScenario("{topology: digraph}"),
			[]string{`x.yaml:2:8: graph.q: missing (required: for topology digraph, the probability in (0, 1] of each arc beyond a random Hamiltonian cycle)`}},
		{"digraph q above 1", directedScenario("{topology: digraph, q: 2}"),
			[]string{`x.yaml:2:31: graph.q: 2 is outside (0, 1]`}},
		{"k_out without k", directedScenario("{topology: k_out}"),
			[]string{`x.yaml:2:8: graph.k: missing (required: for topology k_out, an integer in [1, agents-1])`}},
		{"k_out k too large", directedScenario("{topology: k_out, k: 12}"),
			[]string{`x.yaml:2:29: graph.k: must be at most agents-1 = 11, got 12`}},
		{"sequence without period", directedScenario("{topology: directed_sequence, q: -0.5}"),
			[]string{`x.yaml:2:8: graph.period: missing (required: for topology directed_sequence, the number of digraphs, an integer >= 1)`,
				`x.yaml:2:41: graph.q: -0.5 is outside [0, 1]`}},
		{"keys of other topologies", directedScenario("{topology: directed_ring, k: 2, period: 3}"),
			[]string{`x.yaml:2:37: graph.k: only used with topology k_out, not directed_ring`,
				`x.yaml:2:48: graph.period: only used with topology directed_sequence, not directed_ring`}},
		{"edge model and schedules", directedScenario("{topology: directed_ring}") +
			"edges: {model: gilbert_elliott, gilbert_elliott: {p_gb: 0.1, p_bg: 0.5}, cuts: [{edges: [[0, 1]], from: 2}]}\n",
			[]string{`x.yaml:6:16: edges.model: topology directed_ring draws each arc with the bernoulli model: must be bernoulli, got gilbert_elliott`,
				`x.yaml:6:80: edges.cuts: topology directed_ring draws each arc with the bernoulli model and has no edge schedules or recordings: leave edges.cuts out`}},
		{"undirected algorithm", strings.Replace(directedScenario("{topology: k_out, k: 2}"), "push_sum", "alm", 1),
			[]string{`x.yaml:4:19: algorithm.name: alm exchanges along undirected edges; topology k_out has directed arcs (algorithms on arcs: push_pull, push_sum, subgradient_push)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.yaml), "x.yaml")
			if err == nil {
				err = s.Validate()
			}
			if err == nil {
				t.Fatalf("Validate succeeded; want %q", tt.want)
			}
			checkErrors(t, err, tt.want)
		})
	}
}

// TestDirectedMemoryEstimate: the memory estimate counts the arcs of every
// directed topology.
func TestDirectedMemoryEstimate(t *testing.T) {
	for _, g := range []string{"{topology: directed_ring}", "{topology: digraph, q: 0.5}", "{topology: k_out, k: 3}",
		"{topology: directed_sequence, period: 2}"} {
		s, err := Parse([]byte(directedScenario(g)), "x.yaml")
		if err != nil {
			t.Fatal(err)
		}
		e, err := EstimateMemory(s)
		if err != nil || !(e.MeanDegree > 0) || e.MaxDegree > 11 || e.MaxDegree < e.MeanDegree {
			t.Errorf("%s: estimate %+v, %v", g, e, err)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
