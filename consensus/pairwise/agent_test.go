package pairwise

import (
	"math"
	"testing"

	"github.com/consim/consim/async"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/exchange"
	"github.com/consim/consim/consensus/internal/agenttest"
	"github.com/consim/consim/graph"
)

// netOptions are the engine options of the tests: Poisson clocks of mean
// interval 1 with the given stragglers, the latency, and the Bernoulli
// process of g.
func netOptions(g *graph.Graph, seed uint64, latency async.Dist, stragglers []int, observe func(async.Record)) async.Options {
	return async.Options{
		Clock: async.Clock{Dist: async.Dist{Kind: async.DistExponential, Mean: 1}, Stragglers: stragglers, Slowdown: 10, Seed: seed},
		Link:  async.Link{Graph: g, Process: graph.Bernoulli{G: g, Seed: seed}, Slot: 1, Latency: latency, Seed: seed},
		// Observe is set by the caller.
		Observe: observe,
	}
}

// newEngine builds the agents of x0 on g and their engine.
func newEngine(t testing.TB, g *graph.Graph, seed uint64, x0 [][]float64, opts async.Options) (*async.Engine, []*Agent) {
	t.Helper()
	agents := make([]*Agent, g.N)
	as := make([]consensus.AsyncAgent, g.N)
	for i := range agents {
		a, err := NewAgent(i, g, seed, x0[i])
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

// testGraph is a ring of N plus chords, every edge present with p.
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

// TestAgentsMatchReference runs 12 agents with latency (so exchanges
// overlap and requests are refused), link dropout and a straggler, and
// replays the commits the engine reports (a neighbour handles a request)
// on the matrix form: the neighbour's x_j must equal the reference's row
// at every commit, and the initiator's x_i when its reply arrives.
func TestAgentsMatchReference(t *testing.T) {
	g := testGraph(t, 12, 0.6)
	x0 := agenttest.StartPoints(g.N, 3, 1, 7)
	ref, err := NewReference(x0)
	if err != nil {
		t.Fatal(err)
	}
	var agents []*Agent
	var worst float64
	var commits, replies int64
	var failed error
	check := func(i int) {
		worst = math.Max(worst, dist(agents[i].X(), ref.X(i)))
	}
	observe := func(r async.Record) {
		if r.Event != async.EventDeliver || !r.Updated || failed != nil {
			return
		}
		switch r.Kind {
		case exchange.KindRequest:
			commits++
			failed = ref.Average(r.Peer, r.Agent)
		case exchange.KindReply:
			replies++
		}
		check(r.Agent)
	}
	eng, as := newEngine(t, g, 3, x0, netOptions(g, 3, async.Dist{Kind: async.DistExponential, Mean: 0.2}, []int{4}, observe))
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
	var refused, lost, done, moved int64
	for i, a := range agents {
		c := a.Counts()
		refused, lost, done = refused+c.Refused, lost+c.Lost, done+c.Completed
		if dist(a.X(), x0[i]) > 0.1 {
			moved++
		}
	}
	if done != replies || commits < replies || commits > replies+int64(g.N) {
		t.Errorf("%d commits, %d replies, %d exchanges completed", commits, replies, done)
	}
	if c := eng.Counters(); c.Updates != commits+replies {
		t.Errorf("%d updates for %d commits and %d replies", c.Updates, commits, replies)
	}
	if refused == 0 || lost == 0 || done < 500 || moved < int64(g.N)/2 {
		t.Errorf("exchanges: %d completed, %d refused, %d lost, %d agents moved: the test does not exercise the protocol", done, refused, lost, moved)
	}
	t.Logf("%d exchanges, %d refused, %d lost; max difference %.3g", done, refused, lost, worst)
}

func dist(a, b []float64) float64 {
	var s float64
	for l := range a {
		d := a[l] - b[l]
		s += d * d
	}
	return math.Sqrt(s)
}
