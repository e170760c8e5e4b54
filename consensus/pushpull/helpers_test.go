package pushpull

import (
	"math"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/internal/agenttest"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/problems/regression"
)

// randomDigraph returns graph.RandomDigraph(n, q, seed) with every arc
// present with probability p.
func randomDigraph(t testing.TB, n int, q, p float64, seed uint64) *graph.Digraph {
	t.Helper()
	d, err := graph.RandomDigraph(n, q, seed)
	if err != nil {
		t.Fatal(err)
	}
	if d, err = d.WithUniformP(p); err != nil {
		t.Fatal(err)
	}
	return d
}

// problem returns a generated regression problem (problems/regression) of
// the given kind over R^n with m rows per agent.
func problem(t testing.TB, kind string, N, n, m int, seed uint64) *objective.Problem {
	t.Helper()
	p, err := regression.New(regression.Params{
		Kind: kind, Dim: n, SamplesPerAgent: m, Batch: m,
		Noise: 0.1, Reg: 0.05, Heterogeneity: 0.5, Box: regression.Unbounded,
	}, N, seed)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// network is the agents of one run with their lockstep driver.
type network struct {
	agents []*Agent
	drv    *lockstep.Driver
}

// newNetwork builds the agents.
func newNetwork(t testing.TB, p Params, d *graph.Digraph, arcs graph.ArcProcess, locals []objective.Local, x0 [][]float64, opts ...lockstep.Option) *network {
	t.Helper()
	nw := &network{}
	as := make([]consensus.Agent, d.N)
	for i := range d.N {
		a, err := NewAgent(p, i, d, arcs, locals[i], x0[i])
		if err != nil {
			t.Fatal(err)
		}
		nw.agents = append(nw.agents, a)
		as[i] = a
	}
	drv, err := lockstep.New(as, opts...)
	if err != nil {
		t.Fatal(err)
	}
	nw.drv = drv
	return nw
}

func (nw *network) round(t testing.TB, r int) {
	t.Helper()
	if err := nw.drv.Round(r); err != nil {
		t.Fatal(err)
	}
}

// maxAbsDiff returns max_l |a_l - b_l|.
func maxAbsDiff(a, b []float64) float64 {
	var m float64
	for l := range a {
		m = math.Max(m, math.Abs(a[l]-b[l]))
	}
	return m
}

// startPoints is agenttest.StartPoints.
var startPoints = agenttest.StartPoints
