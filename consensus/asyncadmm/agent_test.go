package asyncadmm

import (
	"math"
	"testing"

	"github.com/consim/consim/async"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/exchange"
	"github.com/consim/consim/consensus/internal/agenttest"
	"github.com/consim/consim/consensus/radmm"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/problems/regression"
)

func lsProblem(t testing.TB, N, n, m int, seed uint64) *objective.Problem {
	t.Helper()
	p, err := regression.New(regression.Params{
		Kind: objective.KindLeastSquares, Dim: n, SamplesPerAgent: m, Batch: m,
		Noise: 0.1, Reg: 0.01, Heterogeneity: 0.5, Box: regression.Unbounded,
	}, N, seed)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func testGraph(t testing.TB, N int, p float64) *graph.Graph {
	t.Helper()
	var edges []graph.Edge
	for i := range N {
		edges = append(edges, graph.Edge{I: i, J: (i + 1) % N, P: p})
		if i%3 == 0 && i < N/2 {
			edges = append(edges, graph.Edge{I: i, J: i + N/2, P: p})
		}
	}
	g, err := graph.New(N, edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// sequence is the edge process of a recorded sequence of activations:
// in round k only the k-th committed edge is present.
type sequence [][2]int

func (s *sequence) Active(t, _, i, j int) bool {
	return t < len(*s) && (*s)[t] == [2]int{min(i, j), max(i, j)}
}

func newEngine(t testing.TB, g *graph.Graph, prob *objective.Problem, rho float64, x0 [][]float64, opts async.Options) (*async.Engine, []*Agent) {
	t.Helper()
	agents := make([]*Agent, g.N)
	as := make([]consensus.AsyncAgent, g.N)
	for i := range agents {
		a, err := NewAgent(i, g, opts.Clock.Seed, rho, prob.Locals[i], x0[i])
		if err != nil {
			t.Fatal(err)
		}
		agents[i], as[i] = a, a
	}
	eng, err := async.New(as, opts)
	if err != nil {
		t.Fatal(err)
	}
	return eng, agents
}

func options(g *graph.Graph, seed uint64, latency async.Dist, observe func(async.Record)) async.Options {
	return async.Options{
		Clock:   async.Clock{Dist: async.Dist{Kind: async.DistExponential, Mean: 1}, Stragglers: []int{1}, Slowdown: 10, Seed: seed},
		Link:    async.Link{Graph: g, Process: graph.Bernoulli{G: g, Seed: seed}, Slot: 1, Latency: latency, Seed: seed},
		Observe: observe,
	}
}

// TestAgentsMatchReference runs 10 agents with latency, dropout and a
// straggler and steps radmm's matrix-form Reference once per commit with
// only the committed edge present: at every commit the neighbour's x_j,
// z_e and y_e, and at every reply the initiator's x_i, z_e and y_e, must
// equal the reference's.
func TestAgentsMatchReference(t *testing.T) {
	g := testGraph(t, 10, 0.6)
	prob := lsProblem(t, g.N, 3, 20, 2)
	x0 := agenttest.StartPoints(g.N, 3, 1, 9)
	const rho = 0.7
	var seq sequence
	ref, err := radmm.NewReference(radmm.Config{Method: radmm.MethodExact, Rho: rho}, g, &seq, prob.Locals, x0)
	if err != nil {
		t.Fatal(err)
	}
	var agents []*Agent
	var worst float64
	var failed error
	var commits, replies int
	check := func(i, j int) {
		k, _ := g.EdgeIndex(i, j)
		z, y := agents[i].Edge(j)
		worst = math.Max(worst, math.Max(dist(agents[i].X(), ref.X(i)), math.Max(dist(z, ref.Z(k)), dist(y, ref.Y(k)))))
	}
	observe := func(r async.Record) {
		if failed != nil || r.Event != async.EventDeliver || !r.Updated {
			return
		}
		if r.Kind == exchange.KindRequest {
			seq = append(seq, [2]int{min(r.Agent, r.Peer), max(r.Agent, r.Peer)})
			failed = ref.Step(len(seq) - 1)
			commits++
		} else {
			replies++
		}
		check(r.Agent, r.Peer)
	}
	eng, as := newEngine(t, g, prob, rho, x0, options(g, 4, async.Dist{Kind: async.DistExponential, Mean: 0.2}, observe))
	agents = as
	if err := eng.Run(300); err != nil {
		t.Fatal(err)
	}
	if failed != nil {
		t.Fatal(failed)
	}
	if worst > 1e-12 {
		t.Errorf("agents and reference differ by %.3g", worst)
	}
	var refused, lost int64
	for _, a := range agents {
		refused, lost = refused+a.Counts().Refused, lost+a.Counts().Lost
	}
	if refused == 0 || lost == 0 || commits < 500 || replies < commits-g.N {
		t.Errorf("%d commits, %d replies, %d refused, %d lost: the test does not exercise the method", commits, replies, refused, lost)
	}
	t.Logf("%d commits, %d replies, %d refused, %d lost; max difference %.3g", commits, replies, refused, lost, worst)
}

// TestConverges: without latency or dropout the agents reach the
// optimum of the least-squares problem, solved independently by package
// objective, to 1e-8.
func TestConverges(t *testing.T) {
	g := testGraph(t, 8, 1)
	prob := lsProblem(t, g.N, 3, 20, 5)
	eng, agents := newEngine(t, g, prob, 1, agenttest.StartPoints(g.N, 3, 1, 1), options(g, 2, async.Dist{Kind: async.DistNone}, nil))
	if err := eng.Run(3000); err != nil {
		t.Fatal(err)
	}
	var worst float64
	for _, a := range agents {
		worst = math.Max(worst, dist(a.X(), prob.XStar))
	}
	if worst > 1e-8 {
		t.Errorf("max_i ||x_i - x*|| = %.3g after %d updates", worst, eng.Counters().Updates)
	}
	t.Logf("max_i ||x_i - x*|| = %.3g after %d updates", worst, eng.Counters().Updates)
}

func dist(a, b []float64) float64 {
	var s float64
	for l := range a {
		d := a[l] - b[l]
		s += d * d
	}
	return math.Sqrt(s)
}
