package tracking

import (
	"math"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// TestAgentsMatchReference steps N agents with the lockstep driver and the
// matrix form on the same edge draws (p < 1) and samples, and checks that
// every x_i and y_i agree to 1e-12 relative in every one of 200 rounds,
// and that without message loss 1^T Y_t = 1^T G_t (y tracks the average
// gradient) to 1e-12.
func TestAgentsMatchReference(t *testing.T) {
	const rounds = 200
	g := randomGraph(t, 8, 0.3, 0.6, 7)
	ge, err := graph.NewGilbertElliott(g, 9, 0.1, 0.3, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	ls := lsProblem(t, 8, 4, 30, 3, 2)
	tests := []struct {
		name string
		p    Params
		proc graph.EdgeProcess
	}{
		{"metropolis full", Params{Step: 0.05}, graph.Bernoulli{G: g, Seed: 21}},
		{"uniform stochastic", Params{Step: 0.03, Gradient: GradientStochastic, Seed: 5,
			Mixing: gossip.Mixing{Rule: graph.MixUniform, Weight: 0.9 / float64(g.MaxDegree())}}, graph.Bernoulli{G: g, Seed: 4}},
		{"metropolis gilbert-elliott", Params{Step: 0.05}, ge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x0 := startPoints(g.N, 4, 2, 8)
			nw := newNetwork(t, tc.p, g, tc.proc, ls.Locals, x0, lockstep.Symmetric())
			ref, err := NewReference(tc.p, g, tc.proc, ls.Locals, x0)
			if err != nil {
				t.Fatal(err)
			}
			var worst, moved, track float64
			for r := range rounds {
				nw.round(t, r)
				ref.Step(r)
				sumY, sumG := make([]float64, 4), make([]float64, 4)
				for i, a := range nw.agents {
					for _, pair := range [][2][]float64{{a.X(), ref.X(i)}, {a.Y(), ref.Y(i)}} {
						worst = math.Max(worst, dist(pair[0], pair[1])/math.Max(1, norm(pair[1])))
					}
					moved = math.Max(moved, dist(a.X(), x0[i]))
					for l, v := range a.Y() {
						sumY[l] += v
						sumG[l] += a.gr[l]
					}
				}
				track = math.Max(track, dist(sumY, sumG)/math.Max(1, norm(sumG)))
				if worst > 1e-12 {
					t.Fatalf("round %d: agents and reference differ by %.3g relative", r, worst)
				}
			}
			var evals int64
			for _, a := range nw.agents {
				evals += a.Report().GradEvals
			}
			if evals != ref.GradEvals() || evals == 0 {
				t.Errorf("oracle calls: agents %d, reference %d", evals, ref.GradEvals())
			}
			if moved < 0.1 {
				t.Errorf("iterates moved only %.3g: the comparison is vacuous", moved)
			}
			if track > 1e-12 {
				t.Errorf("sum_i y_i and sum_i g_i differ by %.3g relative", track)
			}
			t.Logf("max relative difference over %d rounds: %.3g; tracking error %.3g", rounds, worst, track)
		})
	}
}

// TestMissingMessage drops one message and checks the update by hand: the
// recipient uses its own [x_i, y_i] in place of the lost [x_j, y_j].
func TestMissingMessage(t *testing.T) {
	g := randomGraph(t, 5, 0.5, 1, 1)
	proc := graph.Bernoulli{G: g, Seed: 1}
	x0 := startPoints(g.N, 2, 1, 2)
	ls := lsProblem(t, 5, 2, 10, 1, 3)
	p := Params{Step: 0.1}
	const to = 2
	from := g.Neighbors(to)[0]
	nw := newNetwork(t, p, g, proc, ls.Locals, x0, lockstep.WithDrop(func(t, ph, i, j int) bool { return i == from && j == to }))
	y0 := make([][]float64, g.N)
	for i, a := range nw.agents {
		y0[i] = a.Y()
	}
	nw.round(t, 0)
	w := make([]float64, g.Degree(to))
	wii := p.Mixing.Graph().Row(g, proc, 0, gossip.EdgeDraw, to, w)
	want := make([]float64, 2)
	for l := range want {
		want[l] = wii*x0[to][l] - p.Step*y0[to][l]
		for k, j := range g.Neighbors(to) {
			src := x0[j]
			if j == from {
				src = x0[to]
			}
			want[l] += w[k] * src[l]
		}
	}
	if d := dist(nw.agents[to].X(), want); d > 1e-15 {
		t.Errorf("x_%d = %v, want %v", to, nw.agents[to].X(), want)
	}
	a := nw.agents[to]
	if err := a.Receive(5, 0, consensus.Inbox{}); err == nil {
		t.Error("receive of a round out of order: no error")
	}
	out := a.Send(1, 0)
	bad := consensus.Inbox{Msgs: []consensus.Msg{{From: out.Expect[0], To: to, Round: 1, Data: []float64{1, 2}}}}
	if err := a.Receive(1, 0, bad); err == nil {
		t.Error("message of the wrong length: no error")
	}
}

func TestParams(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Params)
		want string
	}{
		{"defaults", func(*Params) {}, ""},
		{"stochastic uniform", func(p *Params) {
			p.Gradient, p.Mixing = GradientStochastic, gossip.Mixing{Rule: graph.MixUniform, Weight: 0.3}
		}, ""},
		{"zero step", func(p *Params) { p.Step = 0 }, "step: must be a finite number > 0, got 0"},
		{"NaN step", func(p *Params) { p.Step = math.NaN() }, "step: must be a finite number > 0, got NaN"},
		{"gradient", func(p *Params) { p.Gradient = "zeroth" }, `gradient: "zeroth" is not one of stochastic, full`},
		{"mixing", func(p *Params) { p.Mixing.Rule = "max" }, `mixing.rule: "max" is not one of metropolis, uniform`},
	}
	for _, tc := range tests {
		p := DefaultParams()
		tc.edit(&p)
		err := p.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	p := DefaultParams()
	if err := yaml.Unmarshal([]byte("step: 0.02\nmixing: {rule: uniform, weight: 0.25}\n"), &p); err != nil {
		t.Fatal(err)
	}
	if want := (Params{Step: 0.02, Gradient: GradientFull, Mixing: gossip.Mixing{Rule: graph.MixUniform, Weight: 0.25}}); p != want {
		t.Errorf("decoded %+v, want %+v", p, want)
	}
	g, _ := graph.Ring(4)
	f := make([]objective.Local, 1)
	if _, err := NewAgent(DefaultParams(), 0, g, graph.Bernoulli{G: g}, f[0], []float64{1}); err == nil {
		t.Error("nil objective: no error")
	}
}
