package tracking

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/internal/agenttest"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/problems/regression"
)

// randomGraph returns a connected graph on N agents: a ring plus every
// other pair with probability q, every edge with presence probability p.
func randomGraph(t testing.TB, N int, q, p float64, seed uint64) *graph.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	var edges []graph.Edge
	for i := 0; i < N; i++ {
		for j := i + 1; j < N; j++ {
			if j == i+1 || (i == 0 && j == N-1) || rng.Float64() < q {
				edges = append(edges, graph.Edge{I: i, J: j, P: p})
			}
		}
	}
	g, err := graph.New(N, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// lsProblem returns a least-squares problem of package objective over R^n
// with m rows per agent and minibatches of the given size.
func lsProblem(t testing.TB, N, n, m, batch int, seed uint64) *objective.Problem {
	t.Helper()
	p, err := regression.New(regression.Params{
		Kind: objective.KindLeastSquares, Dim: n, SamplesPerAgent: m, Batch: batch,
		Noise: 0.1, Reg: 0.01, Heterogeneity: 0.5,
		Box: regression.Unbounded,
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
func newNetwork(t testing.TB, p Params, g *graph.Graph, proc graph.EdgeProcess, locals []objective.Local, x0 [][]float64, opts ...lockstep.Option) *network {
	t.Helper()
	nw := &network{}
	as := make([]consensus.Agent, g.N)
	for i := range g.N {
		a, err := NewAgent(p, i, g, proc, locals[i], x0[i])
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

// xs returns the agents' iterates.
func (nw *network) xs() [][]float64 {
	out := make([][]float64, len(nw.agents))
	for i, a := range nw.agents {
		out[i] = a.X()
	}
	return out
}

func dist(a, b []float64) float64 {
	var s float64
	for k := range a {
		d := a[k] - b[k]
		s += d * d
	}
	return math.Sqrt(s)
}

func norm(a []float64) float64 { return dist(a, make([]float64, len(a))) }

// startPoints is agenttest.StartPoints.
var startPoints = agenttest.StartPoints
