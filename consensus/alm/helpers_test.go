package alm

import (
	"math"
	"math/rand/v2"

	"github.com/consim/consim/consensus"
	driver "github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// quad returns f_i(x) = (a/2) ||x - c||^2 with stochastic gradient
// a (x - c) + sigma e, e ~ N(0, I).
func quad(a float64, c []float64, sigma float64) objective.Local {
	d := make([]float64, len(c))
	for k := range d {
		d[k] = a
	}
	return objective.QuadraticNoisy(d, c, sigma)
}

// quadInstance is a consensus problem with N isotropic quadratics whose
// minimizer over the box is proj_X(sum_i a_i c_i / sum_i a_i).
type quadInstance struct {
	locals []objective.Local
	box    objective.Box
	xstar  []float64
	x0     [][]float64
}

// newQuadInstance draws a_i in scale*[0.5, 1.5], centers c_i in [-2, 2]^n, and
// initial points uniform in [-spread, spread]^n (clipped to the box).
func newQuadInstance(N, n int, scale, sigma, spread float64, box objective.Box, seed uint64) quadInstance {
	rng := rand.New(rand.NewPCG(seed, 7))
	inst := quadInstance{box: box, xstar: make([]float64, n)}
	var asum float64
	for i := 0; i < N; i++ {
		a, c := scale*(0.5+rng.Float64()), make([]float64, n)
		for k := range c {
			c[k] = 4*rng.Float64() - 2
			inst.xstar[k] += a * c[k]
		}
		asum += a
		inst.locals = append(inst.locals, quad(a, c, sigma))
		x0 := make([]float64, n)
		for k := range x0 {
			x0[k] = spread * (2*rng.Float64() - 1)
		}
		box.Project(x0)
		inst.x0 = append(inst.x0, x0)
	}
	for k := range inst.xstar {
		inst.xstar[k] /= asum
	}
	box.Project(inst.xstar)
	return inst
}

// value returns f(x) = (1/N) sum_i f_i(x) at a common point x.
func (q quadInstance) value(x []float64) float64 {
	var s float64
	for _, l := range q.locals {
		s += l.Value(x)
	}
	return s / float64(len(q.locals))
}

// randomGraph returns a connected graph on N agents: a ring plus every
// other pair with probability q, every edge with presence probability p.
func randomGraph(N int, q, p float64, seed uint64) (*graph.Graph, error) {
	rng := rand.New(rand.NewPCG(seed, 11))
	var edges []graph.Edge
	for i := 0; i < N; i++ {
		for j := i + 1; j < N; j++ {
			if j == i+1 || (i == 0 && j == N-1) || rng.Float64() < q {
				edges = append(edges, graph.Edge{I: i, J: j, P: p})
			}
		}
	}
	return graph.New(N, edges)
}

// lockstep drives agents in-process with the shared synchronous driver,
// which also checks that the exchange sets of both phases are symmetric,
// and drops the messages drop selects (phase by phase).
type lockstep struct {
	agents []*Agent
	drop   func(t, ph, from, to int) bool
}

func newLockstep(cfg Config, g *graph.Graph, proc graph.EdgeProcess, inst quadInstance) (*lockstep, error) {
	ls := &lockstep{}
	for i := 0; i < g.N; i++ {
		a, err := NewAgent(cfg, i, g, proc, inst.locals[i], inst.box, inst.x0[i])
		if err != nil {
			return nil, err
		}
		ls.agents = append(ls.agents, a)
	}
	return ls, nil
}

func (ls *lockstep) round(t int) error {
	agents := make([]consensus.Agent, len(ls.agents))
	for i, a := range ls.agents {
		agents[i] = a
	}
	opts := []driver.Option{driver.Symmetric()}
	if ls.drop != nil {
		opts = append(opts, driver.WithDrop(ls.drop))
	}
	return driver.Round(agents, t, opts...)
}

// consensusErr returns (1/N) sum_i ||x_i - xbar||^2 and xbar.
func consensusErr(xs [][]float64) (float64, []float64) {
	n := len(xs[0])
	xbar := make([]float64, n)
	for _, x := range xs {
		for k, v := range x {
			xbar[k] += v / float64(len(xs))
		}
	}
	var s float64
	for _, x := range xs {
		for k, v := range x {
			d := v - xbar[k]
			s += d * d
		}
	}
	return s / float64(len(xs)), xbar
}

func (ls *lockstep) xs() [][]float64 {
	var out [][]float64
	for _, a := range ls.agents {
		out = append(out, a.X())
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
