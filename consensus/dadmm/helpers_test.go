package dadmm

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

// quadProblem returns N separable quadratics f_i = (1/2) sum_k d_ik (x_k -
// c_ik)^2 with d_ik in N*[0.5, 1.5] (so f_i/N has curvature about 1),
// centres in [-2, 2] and gradient noise sigma, over R^n.
func quadProblem(t testing.TB, N, n int, sigma float64, seed uint64) *objective.Problem {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	d, c := make([][]float64, N), make([][]float64, N)
	for i := range d {
		d[i], c[i] = make([]float64, n), make([]float64, n)
		for k := range n {
			d[i][k] = float64(N) * (0.5 + rng.Float64())
			c[i][k] = 4*rng.Float64() - 2
		}
	}
	p, err := objective.NewQuadraticProblem(objective.Box{Lo: math.Inf(-1), Hi: math.Inf(1)}, d, c, sigma)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// lsProblem returns a least-squares problem of regression.New over R^n.
func lsProblem(t testing.TB, N, n, m, batch int, reg float64, seed uint64) *objective.Problem {
	t.Helper()
	p, err := regression.New(regression.Params{
		Kind: objective.KindLeastSquares, Dim: n, SamplesPerAgent: m, Batch: batch,
		Noise: 0.1, Reg: reg, Heterogeneity: 0.5,
		Box: regression.Unbounded,
	}, N, seed)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// network is N agents of one run with their lockstep driver.
type network struct {
	agents []*Agent
	drv    *lockstep.Driver
}

func newNetwork(t *testing.T, cfg Config, g *graph.Graph, proc graph.EdgeProcess, p *objective.Problem, x0 [][]float64, opts ...lockstep.Option) *network {
	t.Helper()
	nw := &network{}
	as := make([]consensus.Agent, g.N)
	for i := range g.N {
		a, err := NewAgent(cfg, i, g, proc, p.Locals[i], x0[i])
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

func (nw *network) run(t *testing.T, from, rounds int) {
	t.Helper()
	if err := nw.drv.Run(from, rounds); err != nil {
		t.Fatal(err)
	}
}

// maxDist returns max_i ||x_i - x*||.
func (nw *network) maxDist(xstar []float64) float64 {
	var m float64
	for _, a := range nw.agents {
		m = math.Max(m, dist(a.X(), xstar))
	}
	return m
}

// dualSum returns sum_i a_i.
func (nw *network) dualSum() []float64 {
	s := make([]float64, len(nw.agents[0].a))
	for _, a := range nw.agents {
		for k, v := range a.Dual() {
			s[k] += v
		}
	}
	return s
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

// presentDegree returns the number of agent i's edges present in draw
// (t, graph.DrawDual).
func presentDegree(g *graph.Graph, proc graph.EdgeProcess, t, i int) int {
	var d int
	for _, j := range g.Neighbors(i) {
		if proc.Active(t, graph.DrawDual, min(i, j), max(i, j)) {
			d++
		}
	}
	return d
}

// startPoints is agenttest.StartPoints.
var startPoints = agenttest.StartPoints
