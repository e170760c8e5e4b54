package adpsgd

import (
	"hash/fnv"
	"math"
	"testing"

	"github.com/consim/consim/async"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/dgd"
	"github.com/consim/consim/consensus/exchange"
	"github.com/consim/consim/consensus/internal/agenttest"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/problems/regression"
)

// lsProblem returns a least-squares problem over R^n with m rows per
// agent and minibatches of the given size.
func lsProblem(t testing.TB, N, n, m, batch int, seed uint64) *objective.Problem {
	t.Helper()
	p, err := regression.New(regression.Params{
		Kind: objective.KindLeastSquares, Dim: n, SamplesPerAgent: m, Batch: batch,
		Noise: 0.1, Reg: 0.01, Heterogeneity: 0.5, Box: regression.Unbounded,
	}, N, seed)
	if err != nil {
		t.Fatal(err)
	}
	return p
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

// options are the engine options of the tests: exponential compute times
// of mean 1 with agent 2 a 10x straggler, exponential latencies of mean
// 0.2, the Bernoulli process of g.
func options(g *graph.Graph, seed uint64, observe func(async.Record)) async.Options {
	return async.Options{
		Clock:   async.Clock{Dist: async.Dist{Kind: async.DistExponential, Mean: 1}, Stragglers: []int{2}, Slowdown: 10, Seed: seed},
		Link:    async.Link{Graph: g, Process: graph.Bernoulli{G: g, Seed: seed}, Slot: 1, Latency: async.Dist{Kind: async.DistExponential, Mean: 0.2}, Seed: seed},
		Observe: observe,
	}
}

func newEngine(t testing.TB, p Params, g *graph.Graph, prob *objective.Problem, x0 [][]float64, opts async.Options) (*async.Engine, []*Agent) {
	t.Helper()
	agents := make([]*Agent, g.N)
	as := make([]consensus.AsyncAgent, g.N)
	for i := range agents {
		a, err := NewAgent(p, i, g, prob.Locals[i], x0[i])
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

// TestAgentsMatchReference runs 10 agents with latency, dropout and a
// straggler, and replays the events the engine reports on the matrix
// form: a committed exchange averages two rows, an agent's step (at its
// reply, refusal or returned request) subtracts its gradient at its row
// of Xhat, and arming the clock (a computation starts) reads Xhat_i. The
// agent of every event that updates it must agree with its row after the
// event (an initiator's row moves when its exchange commits, its x_i when
// the reply arrives; nothing changes either in between).
func TestAgentsMatchReference(t *testing.T) {
	g := testGraph(t, 10, 0.6)
	prob := lsProblem(t, g.N, 3, 20, 4, 2)
	for _, tc := range []struct {
		name string
		p    Params
	}{
		{"stochastic constant", Params{Step: 0.05, Schedule: dgd.ScheduleConstant, Gradient: dgd.GradientStochastic, Seed: 5}},
		{"full sqrt", Params{Step: 0.2, Schedule: dgd.ScheduleSqrt, Gradient: dgd.GradientFull, Seed: 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x0 := agenttest.StartPoints(g.N, 3, 1, 9)
			ref, err := NewReference(tc.p, prob.Locals, x0)
			if err != nil {
				t.Fatal(err)
			}
			var agents []*Agent
			var worst float64
			var failed error
			var exchanges, steps int
			observe := func(r async.Record) {
				if failed != nil {
					return
				}
				switch {
				case r.Event == async.EventDeliver && r.Kind == exchange.KindRequest && r.Updated:
					failed = ref.Average(r.Peer, r.Agent)
					exchanges++
				case r.Updated:
					ref.Step(r.Agent)
					steps++
				}
				if r.Armed {
					ref.Read(r.Agent)
				}
				if r.Updated { // an initiator's row moves at the commit, its x_i at the reply
					worst = math.Max(worst, dist(agents[r.Agent].X(), ref.X(r.Agent)))
				}
			}
			eng, as := newEngine(t, tc.p, g, prob, x0, options(g, 4, observe))
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
			for i, a := range agents {
				refused, lost = refused+a.Counts().Refused, lost+a.Counts().Lost
				if a.steps != ref.steps[i] {
					t.Errorf("agent %d: %d steps, reference %d", i, a.steps, ref.steps[i])
				}
			}
			if refused == 0 || lost == 0 || exchanges < 300 || steps < 300 {
				t.Errorf("%d exchanges, %d steps, %d refused, %d lost: the test does not exercise the method", exchanges, steps, refused, lost)
			}
			if got := agents[2].steps; got > agents[3].steps/4 {
				t.Errorf("the straggler took %d steps, its neighbour %d", got, agents[3].steps)
			}
			t.Logf("%d exchanges, %d steps (%d refused, %d lost); max difference %.3g", exchanges, steps, refused, lost, worst)
		})
	}
}

// TestReplayBitIdentical runs the same scenario twice and checks that
// the iterates, the counters and the sequence of events are bit for bit
// the same, and that another seed gives another run.
func TestReplayBitIdentical(t *testing.T) {
	g := testGraph(t, 16, 0.7)
	prob := lsProblem(t, g.N, 4, 20, 4, 3)
	p := DefaultParams()
	p.Step, p.Seed = 0.05, 11
	run := func(seed uint64) (uint64, [][]float64, async.Counters) {
		h := fnv.New64a()
		var buf [8]byte
		put := func(v uint64) {
			for k := range buf {
				buf[k] = byte(v >> (8 * k))
			}
			h.Write(buf[:])
		}
		observe := func(r async.Record) {
			put(math.Float64bits(r.Time))
			put(uint64(r.Event)<<56 | uint64(r.Agent)<<32 | uint64(r.Peer+1))
			put(uint64(r.Seq))
		}
		eng, agents := newEngine(t, p, g, prob, agenttest.StartPoints(g.N, 4, 1, 1), options(g, seed, observe))
		if err := eng.Run(200); err != nil {
			t.Fatal(err)
		}
		xs := make([][]float64, len(agents))
		for i, a := range agents {
			xs[i] = append([]float64(nil), a.X()...)
			for _, v := range xs[i] {
				put(math.Float64bits(v))
			}
		}
		return h.Sum64(), xs, eng.Counters()
	}
	h1, x1, c1 := run(7)
	h2, x2, c2 := run(7)
	if h1 != h2 || c1 != c2 {
		t.Fatalf("two runs of seed 7 differ: events %x vs %x, counters %+v vs %+v", h1, h2, c1, c2)
	}
	for i := range x1 {
		for l := range x1[i] {
			if math.Float64bits(x1[i][l]) != math.Float64bits(x2[i][l]) {
				t.Fatalf("agent %d: x[%d] = %v vs %v", i, l, x1[i][l], x2[i][l])
			}
		}
	}
	if h3, _, _ := run(8); h3 == h1 {
		t.Error("seed 8 replays seed 7")
	}
	t.Logf("seed 7: %d events, %d updates, %d messages (%d lost)", c1.Events, c1.Updates, c1.Sent, c1.Lost)
}

func dist(a, b []float64) float64 {
	var s float64
	for l := range a {
		d := a[l] - b[l]
		s += d * d
	}
	return math.Sqrt(s)
}
