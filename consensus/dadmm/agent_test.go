package dadmm

import (
	"math"
	"strings"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/problems/regression"
)

// TestSingleAgent shows what the methods are with N = 1 (no edges, so no
// dual step and a = 0 throughout):
//   - exact with gamma > 0 is the proximal point method
//     x^{k+1} = argmin f(x) + (gamma/2)||x - x^k||^2, here in closed form
//     for f = (1/2) sum_k d_k (x_k - c_k)^2: x_k <- (d_k c_k + gamma x_k)/(d_k + gamma);
//   - exact with gamma = 0 is not the exact minimization x^1 = argmin f
//     that Shi et al.'s update gives with no neighbours: that step is not
//     a prox, and an agent without live edges keeps x, so x stays x^0;
//   - linearized is SGD x^{k+1} = x^k - tau G(x^k, xi_k) on the same samples.
func TestSingleAgent(t *testing.T) {
	g, err := graph.New(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	proc := graph.Bernoulli{G: g}
	d, c := []float64{2, 0.5, 3}, []float64{1, -2, 0.5}
	f := objective.QuadraticNoisy(d, c, 0.3)
	x0 := []float64{3, 1, -1}
	const rounds = 40
	tests := []struct {
		name string
		cfg  Config
		want func(k int, x []float64) // x^{k} -> x^{k+1} in place
	}{
		{"exact, gamma = 0.7: proximal point", Config{Gamma: 0.7},
			func(_ int, x []float64) {
				for l := range x {
					x[l] = (d[l]*c[l] + 0.7*x[l]) / (d[l] + 0.7)
				}
			}},
		{"exact, gamma = 0: x stays", Config{},
			func(int, []float64) {}},
		{"linearized: SGD", Config{Method: MethodLinearized, Tau: 0.2, Seed: 5},
			func(k int, x []float64) {
				rng := graph.StreamSample.Rand(5, uint64(k), 0)
				gr := make([]float64, len(x))
				f.StochGrad(x, gr, rng)
				for l := range x {
					x[l] -= 0.2 * gr[l]
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAgent(tc.cfg, 0, g, proc, f, x0)
			if err != nil {
				t.Fatal(err)
			}
			drv, err := lockstep.New([]consensus.Agent{a})
			if err != nil {
				t.Fatal(err)
			}
			want := append([]float64(nil), x0...)
			for k := range rounds {
				if err := drv.Round(k); err != nil {
					t.Fatal(err)
				}
				tc.want(k, want)
				if d := dist(a.X(), want); d > 1e-14*math.Max(1, norm(want)) {
					t.Fatalf("round %d: x = %v, single-agent method gives %v", k, a.X(), want)
				}
			}
			if norm(a.Dual()) != 0 {
				t.Errorf("a = %v, want 0 without edges", a.Dual())
			}
		})
	}
}

// TestDropouts checks the dual bookkeeping under message loss: when both
// directions of an edge are lost together, sum_i a_i stays 0 and the
// exact method still converges to x*; when single directions are lost,
// sum_i a_i drifts away from 0.
func TestDropouts(t *testing.T) {
	const N, n, rounds = 6, 3, 400
	p := quadProblem(t, N, n, 0, 11)
	g := randomGraph(t, N, 0.4, 0.9, 3)
	proc := graph.Bernoulli{G: g, Seed: 8}
	x0 := startPoints(N, n, 3, 4)
	tests := []struct {
		name string
		drop lockstep.DropFunc
		// sum a_i and x* error expectations
		symmetric bool
	}{
		{"symmetric loss", func(t, _, from, to int) bool {
			return graph.StreamLoss.Uniform(99, uint64(t), uint64(min(from, to)), uint64(max(from, to))) < 0.2
		}, true},
		{"asymmetric loss", func(t, _, from, to int) bool {
			return graph.StreamLoss.Uniform(99, uint64(t), uint64(from), uint64(to)) < 0.2
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nw := newNetwork(t, Config{C: 1}, g, proc, p, x0, lockstep.WithDrop(tc.drop))
			var maxSum float64
			for r := range rounds {
				nw.run(t, r, 1)
				maxSum = math.Max(maxSum, norm(nw.dualSum()))
			}
			tr := nw.drv.Traffic()
			t.Logf("dropped %d of %d messages; max_t ||sum_i a_i|| = %.3g; max_i ||x_i - x*|| = %.3g", tr.Dropped, tr.Sent, maxSum, nw.maxDist(p.XStar))
			if tr.Dropped == 0 {
				t.Fatal("no message was dropped")
			}
			if tc.symmetric {
				if maxSum > 1e-12 {
					t.Errorf("symmetric loss: ||sum_i a_i|| reached %.3g, want 0", maxSum)
				}
				if d := nw.maxDist(p.XStar); d > 1e-8 {
					t.Errorf("symmetric loss: max_i ||x_i - x*|| = %.3g, want < 1e-8", d)
				}
			} else if maxSum < 1e-3 {
				t.Errorf("asymmetric loss: ||sum_i a_i|| stayed at %.3g, want a drift", maxSum)
			}
		})
	}
}

// TestReport checks the report's fields against their definitions.
func TestReport(t *testing.T) {
	const N, n = 5, 3
	p := quadProblem(t, N, n, 0.2, 13)
	g := randomGraph(t, N, 0.5, 0.6, 5)
	x0 := startPoints(N, n, 2, 6)
	proc := graph.Bernoulli{G: g, Seed: 1}
	nw := newNetwork(t, Config{Method: MethodLinearized, Seed: 2}, g, proc, p, x0)
	nw.run(t, 0, 17)
	for i, a := range nw.agents {
		var steps int64 // rounds in which agent i had a present edge
		for r := range 17 {
			if presentDegree(g, proc, r, i) > 0 {
				steps++
			}
		}
		r := a.Report()
		x, y := a.X(), a.Dual()
		gr := make([]float64, n)
		p.Locals[i].Grad(x, gr)
		var kkt float64
		for l := range gr {
			v := gr[l]/N + y[l]
			kkt += v * v
		}
		switch {
		case r.ID != i || r.Round != 17:
			t.Errorf("agent %d: ID %d, Round %d; want %d, 17", i, r.ID, r.Round, i)
		case dist(r.X, x) != 0:
			t.Errorf("agent %d: X = %v, want %v", i, r.X, x)
		case len(r.Measures) != len(Measures()):
			t.Errorf("agent %d: %d measures, %d declared", i, len(r.Measures), len(Measures()))
		case math.Abs(r.Measures[0]-kkt) > 1e-14*(1+kkt):
			t.Errorf("agent %d: kkt share = %v, want %v", i, r.Measures[0], kkt)
		case math.Abs(r.Measures[1]-norm(y)*norm(y)) > 1e-14*(1+r.Measures[1]):
			t.Errorf("agent %d: dual share = %v, want ||a_i||^2 = %v", i, r.Measures[1], norm(y)*norm(y))
		case r.GradEvals != steps:
			t.Errorf("agent %d: GradEvals = %d, want one sample per round with a present edge, %d", i, r.GradEvals, steps)
		}
		if norm(y) == 0 {
			t.Errorf("agent %d: a_i = 0 after 17 rounds; the report check is vacuous", i)
		}
	}
}

// TestDefaultTau checks tau_i = N / L_i when Config.Tau is 0.
func TestDefaultTau(t *testing.T) {
	g := randomGraph(t, 4, 0, 1, 1)
	f := objective.Quadratic(2, []float64{3, 8}, nil)
	a, err := NewAgent(Config{Method: MethodLinearized}, 1, g, graph.Bernoulli{G: g}, f, []float64{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Tau(); got != 4.0/8 {
		t.Errorf("default tau = %v, want N/L = 0.5", got)
	}
}

func TestNewAgentErrors(t *testing.T) {
	g := randomGraph(t, 3, 0, 1, 1)
	proc := graph.Bernoulli{G: g}
	f := objective.Quadratic(2, nil, nil)
	logit, err := regression.New(regression.Params{Kind: objective.KindLogistic, Dim: 2, SamplesPerAgent: 4, Batch: 1, Reg: 0.1, Box: regression.Unbounded}, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	x0 := []float64{0, 0}
	cases := []struct {
		name string
		cfg  Config
		id   int
		g    *graph.Graph
		f    objective.Local
		x0   []float64
		want string
	}{
		{"bad method", Config{Method: "gauss"}, 0, g, f, x0, `method "gauss"`},
		{"negative c", Config{C: -1}, 0, g, f, x0, "c = -1"},
		{"NaN c", Config{C: math.NaN()}, 0, g, f, x0, "c = NaN"},
		{"negative gamma", Config{Gamma: -0.1}, 0, g, f, x0, "gamma = -0.1"},
		{"infinite tau", Config{Method: MethodLinearized, Tau: math.Inf(1)}, 0, g, f, x0, "tau = +Inf"},
		{"id out of range", Config{}, 3, g, f, x0, "agent id 3"},
		{"negative id", Config{}, -1, g, f, x0, "agent id -1"},
		{"nil graph", Config{}, 0, nil, f, x0, "graph, edge process and objective are required"},
		{"nil objective", Config{}, 0, g, nil, x0, "graph, edge process and objective are required"},
		{"short x0", Config{}, 0, g, f, []float64{1}, "initial point has length 1"},
		{"exact without prox", Config{}, 0, g, logit.Locals[0], x0, "no exact proximal operator"},
		{"default tau without smoothness", Config{Method: MethodLinearized}, 0, g, objective.Quadratic(2, []float64{0, 0}, nil), x0, "default tau"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewAgent(tc.cfg, tc.id, tc.g, proc, tc.f, tc.x0)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewAgent: error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// The linearized method needs no prox.
	if _, err := NewAgent(Config{Method: MethodLinearized, Tau: 1}, 0, g, proc, logit.Locals[0], x0); err != nil {
		t.Errorf("linearized with a logistic local: %v", err)
	}
}

// TestProtocolErrors checks that Receive rejects calls out of order and
// messages that do not belong to the round.
func TestProtocolErrors(t *testing.T) {
	g := randomGraph(t, 3, 0, 1, 1)
	proc := graph.Bernoulli{G: g}
	f := objective.Quadratic(2, nil, nil)
	newA := func() *Agent {
		a, err := NewAgent(Config{}, 0, g, proc, f, []float64{1, 1})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	msg := func(from, round int, data []float64) consensus.Msg {
		return consensus.Msg{From: from, To: 0, Round: round, Data: data}
	}
	cases := []struct {
		name string
		send bool
		in   consensus.Inbox
		want string
	}{
		{"receive without send", false, consensus.Inbox{}, "after its send"},
		{"unexpected sender", true, consensus.Inbox{Msgs: []consensus.Msg{msg(0, 0, []float64{0, 0})}}, "not expected"},
		{"wrong round", true, consensus.Inbox{Msgs: []consensus.Msg{msg(1, 4, []float64{0, 0})}}, "round 4"},
		{"wrong length", true, consensus.Inbox{Msgs: []consensus.Msg{msg(1, 0, []float64{0})}}, "1 values"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newA()
			if tc.send {
				if out := a.Send(0, 0); len(out.Expect) != 2 {
					t.Fatalf("Expect = %v, want both neighbours on a complete static graph", out.Expect)
				}
			}
			err := a.Receive(0, 0, tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Receive: error %v, want one containing %q", err, tc.want)
			}
		})
	}
	a := newA()
	if out := a.Send(1, 0); len(out.Msgs) != 0 || len(out.Expect) != 0 {
		t.Errorf("Send of a future round: %+v, want an empty outbox", out)
	}
}
