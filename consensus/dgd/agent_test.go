package dgd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/observe"
)

// TestAgentsMatchReference steps N agents with the lockstep driver and the
// matrix form X_{t+1} = W(zeta_t) X_t - alpha_t G_t on the same edge draws
// (p < 1) and samples, and checks that every x_i agrees to 1e-12 relative
// in every one of 200 rounds.
func TestAgentsMatchReference(t *testing.T) {
	const rounds = 200
	g := randomGraph(t, 8, 0.3, 0.6, 7)
	ge, err := graph.NewGilbertElliott(g, 9, 0.1, 0.3, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	ls := lsProblem(t, 8, 4, 30, 3, 2)
	tests := []struct {
		name   string
		p      Params
		proc   graph.EdgeProcess
		locals []objective.Local
	}{
		{"metropolis stochastic constant", Params{Step: 0.05, Seed: 3}, graph.Bernoulli{G: g, Seed: 21}, ls.Locals},
		{"uniform full sqrt", Params{Step: 0.2, Schedule: ScheduleSqrt, Gradient: GradientFull,
			Mixing: gossip.Mixing{Rule: graph.MixUniform, Weight: 0.9 / float64(g.MaxDegree())}}, graph.Bernoulli{G: g, Seed: 4}, ls.Locals},
		{"metropolis gilbert-elliott", Params{Step: 0.05, Gradient: GradientFull}, ge, ls.Locals},
		{"pure gossip", DefaultParams(), graph.Bernoulli{G: g, Seed: 5}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x0 := startPoints(g.N, 4, 2, 8)
			nw := newNetwork(t, tc.p, g, tc.proc, tc.locals, x0, lockstep.Symmetric())
			ref, err := NewReference(tc.p, g, tc.proc, tc.locals, x0)
			if err != nil {
				t.Fatal(err)
			}
			var worst, moved float64
			for r := range rounds {
				nw.round(t, r)
				ref.Step(r)
				for i, x := range nw.xs() {
					worst = math.Max(worst, dist(x, ref.X(i))/math.Max(1, norm(ref.X(i))))
					moved = math.Max(moved, dist(x, x0[i]))
				}
				if worst > 1e-12 {
					t.Fatalf("round %d: agents and reference differ by %.3g relative", r, worst)
				}
			}
			var evals int64
			for _, a := range nw.agents {
				evals += a.Report().GradEvals
			}
			if evals != ref.GradEvals() || (tc.locals != nil) != (evals > 0) {
				t.Errorf("oracle calls: agents %d, reference %d", evals, ref.GradEvals())
			}
			if moved < 0.1 {
				t.Errorf("iterates moved only %.3g: the comparison is vacuous", moved)
			}
			t.Logf("max relative difference over %d rounds: %.3g", rounds, worst)
		})
	}
}

// zeroLocal is f_i = 0.
type zeroLocal struct{ n int }

func (z zeroLocal) Dim() int                                   { return z.n }
func (z zeroLocal) Value([]float64) float64                    { return 0 }
func (z zeroLocal) Grad(_, g []float64)                        { clear(g) }
func (z zeroLocal) StochGrad(_, g []float64, _ *rand.Rand) int { clear(g); return 1 }
func (z zeroLocal) Smoothness() float64                        { return 0 }

// TestZeroGradientIsGossip checks that agents with a zero objective take
// bit for bit the steps of agents without one, that both keep the average
// of the x_i (W(zeta) is doubly stochastic) and that they reach consensus.
func TestZeroGradientIsGossip(t *testing.T) {
	g := randomGraph(t, 7, 0.2, 0.5, 3)
	proc := graph.Bernoulli{G: g, Seed: 2}
	x0 := startPoints(g.N, 3, 1, 4)
	zeros := make([]objective.Local, g.N)
	for i := range zeros {
		zeros[i] = zeroLocal{3}
	}
	p := Params{Step: 0.3}
	none, zero := newNetwork(t, p, g, proc, nil, x0), newNetwork(t, p, g, proc, zeros, x0)
	mean := func(xs [][]float64) []float64 {
		m := make([]float64, len(xs[0]))
		for _, x := range xs {
			for l, v := range x {
				m[l] += v / float64(len(xs))
			}
		}
		return m
	}
	m0 := mean(x0)
	for r := range 300 {
		none.round(t, r)
		zero.round(t, r)
	}
	for i, x := range none.xs() {
		if y := zero.xs()[i]; dist(x, y) != 0 {
			t.Errorf("agent %d: zero objective %v, no objective %v", i, y, x)
		}
	}
	if d := dist(mean(none.xs()), m0); d > 1e-13 {
		t.Errorf("the average moved by %.3g", d)
	}
	if e := observe.Disagreement(none.xs()); e > 1e-20 {
		t.Errorf("disagreement after 300 rounds %.3g: no consensus", e)
	}
}

// TestMissingMessage drops one message and checks the update by hand: the
// recipient uses its own x_i in place of the lost x_j.
func TestMissingMessage(t *testing.T) {
	g := randomGraph(t, 5, 0.5, 1, 1)
	proc := graph.Bernoulli{G: g, Seed: 1}
	x0 := startPoints(g.N, 2, 1, 2)
	p := Params{Step: 0.1}
	const to = 2
	from := g.Neighbors(to)[0]
	nw := newNetwork(t, p, g, proc, nil, x0, lockstep.WithDrop(func(t, ph, i, j int) bool { return i == from && j == to }))
	nw.round(t, 0)
	w := make([]float64, g.Degree(to))
	wii := p.Mixing.Graph().Row(g, proc, 0, gossip.EdgeDraw, to, w)
	want := make([]float64, 2)
	for l := range want {
		want[l] = wii * x0[to][l]
		for k, j := range g.Neighbors(to) {
			src := x0[j]
			if j == from {
				src = x0[to]
			}
			want[l] += w[k] * src[l]
		}
	}
	if d := dist(nw.agents[to].Report().X, want); d > 1e-15 {
		t.Errorf("x_%d = %v, want %v", to, nw.agents[to].Report().X, want)
	}
	if err := nw.agents[to].Receive(5, 0, consensus.Inbox{}); err == nil {
		t.Error("receive of a round out of order: no error")
	}
	a := nw.agents[to]
	out := a.Send(1, 0)
	bad := consensus.Inbox{Msgs: []consensus.Msg{{From: out.Expect[0], To: to, Round: 1, Data: []float64{1}}}}
	if err := a.Receive(1, 0, bad); err == nil {
		t.Error("message of the wrong length: no error")
	}
}
