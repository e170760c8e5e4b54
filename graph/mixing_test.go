package graph

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// mixTestGraph returns a connected graph on n agents: a ring plus every
// other pair with probability q, with independent p_ij uniform in
// [pLo, 1].
func mixTestGraph(t testing.TB, n int, q, pLo float64, seed uint64) *Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 17))
	var edges []Edge
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if j == i+1 || (i == 0 && j == n-1) || rng.Float64() < q {
				edges = append(edges, Edge{I: i, J: j, P: pLo + (1-pLo)*rng.Float64()})
			}
		}
	}
	g, err := New(n, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestMixingRowMatchesMatrix checks, on a random graph with p < 1 under a
// Bernoulli and a Gilbert-Elliott process, that every agent's Row is
// bit-identical to its row of Matrix, that both endpoints of an edge
// compute the same weight, and that W(zeta) is symmetric, doubly stochastic
// with a positive diagonal and has the rule's weights, recomputed here
// from the present edge list.
func TestMixingRowMatchesMatrix(t *testing.T) {
	g := mixTestGraph(t, 9, 0.3, 0.3, 1)
	ge, err := NewGilbertElliott(g, 5, 0.2, 0.4, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	procs := map[string]EdgeProcess{"bernoulli": Bernoulli{G: g, Seed: 3}, "gilbert-elliott": ge}
	rules := []Mixing{{}, {Rule: MixMetropolis}, {Rule: MixUniform, Alpha: 0.9 / float64(g.MaxDegree())}}
	for pname, proc := range procs {
		for _, m := range rules {
			var absent, present int
			for r := range 40 {
				w := m.Matrix(g, proc, r, 2)
				deg := make([]int, g.N)
				for _, e := range g.Edges {
					if proc.Active(r, 2, e.I, e.J) {
						deg[e.I]++
						deg[e.J]++
					}
				}
				rows := make([][]float64, g.N)
				for i := range g.N {
					rows[i] = make([]float64, g.Degree(i))
					wii := m.Row(g, proc, r, 2, i, rows[i])
					if wii != w.At(i, i) {
						t.Fatalf("%s %q round %d: agent %d: W_ii %v, matrix %v", pname, m.Rule, r, i, wii, w.At(i, i))
					}
					if wii <= 0 {
						t.Errorf("%s %q round %d: W_%d%d = %v is not positive", pname, m.Rule, r, i, i, wii)
					}
					sum := wii
					for k, j := range g.Neighbors(i) {
						if rows[i][k] != w.At(i, j) {
							t.Fatalf("%s %q round %d: w_%d,%d row %v, matrix %v", pname, m.Rule, r, i, j, rows[i][k], w.At(i, j))
						}
						want := 0.0
						if proc.Active(r, 2, min(i, j), max(i, j)) {
							present++
							want = m.Alpha
							if m.Rule != MixUniform {
								want = 1 / (1 + math.Max(float64(deg[i]), float64(deg[j])))
							}
						} else {
							absent++
						}
						if rows[i][k] != want {
							t.Fatalf("%s %q round %d: w_%d,%d = %v, want %v", pname, m.Rule, r, i, j, rows[i][k], want)
						}
						sum += rows[i][k]
					}
					if math.Abs(sum-1) > 1e-15 {
						t.Errorf("%s %q round %d: row %d sums to %v", pname, m.Rule, r, i, sum)
					}
				}
				for i := range g.N {
					for k, j := range g.Neighbors(i) {
						kj := indexOf(g.Neighbors(j), i)
						if rows[i][k] != rows[j][kj] {
							t.Fatalf("%s %q round %d: w_%d,%d = %v at %d but %v at %d", pname, m.Rule, r, i, j, rows[i][k], i, rows[j][kj], j)
						}
					}
				}
			}
			if absent == 0 || present == 0 {
				t.Errorf("%s %q: %d present and %d absent edge ends: the draws do not exercise both", pname, m.Rule, present, absent)
			}
		}
	}
}

func indexOf(s []int, v int) int {
	for k, x := range s {
		if x == v {
			return k
		}
	}
	return -1
}

func TestMixingValidate(t *testing.T) {
	g, err := Ring(6) // d_max = 2
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		m    Mixing
		want string // substring of the error, "" for none
	}{
		{Mixing{}, ""},
		{Mixing{Rule: MixMetropolis}, ""},
		{Mixing{Rule: MixUniform, Alpha: 0.49}, ""},
		{Mixing{Rule: MixUniform, Alpha: 0.5}, "alpha < 1/d_max = 1/2"},
		{Mixing{Rule: MixUniform, Alpha: 0}, "0 < alpha < 1/d_max"},
		{Mixing{Rule: MixUniform, Alpha: -0.1}, "0 < alpha < 1/d_max"},
		{Mixing{Rule: MixUniform, Alpha: math.NaN()}, "0 < alpha < 1/d_max"},
		{Mixing{Rule: MixMetropolis, Alpha: 0.1}, "only used by rule"},
		{Mixing{Rule: "max-degree"}, `rule "max-degree": must be "metropolis" or "uniform"`},
	}
	for _, tc := range tests {
		err := tc.m.ValidateFor(g)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: unexpected error %v", tc.m, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want one containing %q", tc.m, err, tc.want)
		}
	}
}
