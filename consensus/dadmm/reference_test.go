package dadmm

import (
	"math"
	"testing"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// TestAgentsMatchReference drives N >= 5 agents with the lockstep driver
// and the centralized matrix form on the same edge draws (p < 1) and
// samples, and checks that every x_i and a_i agree to 1e-12 relative in
// every one of 250 rounds.
func TestAgentsMatchReference(t *testing.T) {
	const rounds = 250
	tests := []struct {
		name  string
		cfg   Config
		p     func(t *testing.T) *objective.Problem
		edgeP float64
	}{
		{"exact least squares", Config{Method: MethodExact, C: 0.3},
			func(t *testing.T) *objective.Problem { return lsProblem(t, 6, 4, 30, 5, 0.01, 1) }, 0.6},
		{"exact quadratic with gamma", Config{Method: MethodExact, C: 0.8, Gamma: 0.5},
			func(t *testing.T) *objective.Problem { return quadProblem(t, 7, 3, 0, 2) }, 0.4},
		{"linearized noisy quadratic", Config{Method: MethodLinearized, C: 0.5, Seed: 9},
			func(t *testing.T) *objective.Problem { return quadProblem(t, 5, 3, 0.5, 3) }, 0.7},
		{"linearized minibatch least squares", Config{Method: MethodLinearized, C: 0.2, Tau: 2, Seed: 4},
			func(t *testing.T) *objective.Problem { return lsProblem(t, 8, 5, 40, 4, 0.01, 2) }, 0.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p(t)
			N, n := p.N(), p.Dim()
			g := randomGraph(t, N, 0.3, tc.edgeP, 7)
			proc := graph.Bernoulli{G: g, Seed: 21}
			x0 := startPoints(N, n, 3, 8)
			nw := newNetwork(t, tc.cfg, g, proc, p, x0)
			ref, err := NewReference(tc.cfg, g, proc, p.Locals, x0)
			if err != nil {
				t.Fatal(err)
			}
			var worst, moved float64
			for r := range rounds {
				nw.run(t, r, 1)
				if err := ref.Step(r); err != nil {
					t.Fatal(err)
				}
				for i, a := range nw.agents {
					for _, pair := range [][2][]float64{{a.X(), ref.X(i)}, {a.Dual(), ref.Dual(i)}} {
						rel := dist(pair[0], pair[1]) / math.Max(1, norm(pair[1]))
						worst = math.Max(worst, rel)
					}
					moved = math.Max(moved, dist(a.X(), x0[i]))
				}
				if worst > 1e-12 {
					t.Fatalf("round %d: agents and reference differ by %.3g relative", r, worst)
				}
			}
			var evals int64
			for _, a := range nw.agents {
				evals += a.Report().GradEvals
			}
			if evals != ref.GradEvals() {
				t.Errorf("gradient samples: agents %d, reference %d", evals, ref.GradEvals())
			}
			if moved < 1e-3 {
				t.Errorf("iterates moved only %.3g from the start: the comparison is vacuous", moved)
			}
			t.Logf("max relative difference over %d rounds: %.3g", rounds, worst)
		})
	}
}

// TestReferenceSolvesMatrixForm checks the exact reference against Shi et
// al.'s stacked optimality condition, evaluated with the gradient oracle
// (not the prox): after round t,
//
//	(1/N) grad f(x^{t+1}) + a^t + 2c D_t x^{t+1} + gamma (x^{t+1} - x^t) - c (D_t + A_t) x^t = 0
//
// for every block with a live edge, x_i^{t+1} = x_i^t for the isolated
// blocks, and a^t - a^{t-1} = c (D_t - A_t) x^t.
func TestReferenceSolvesMatrixForm(t *testing.T) {
	p := lsProblem(t, 5, 4, 20, 1, 0.02, 6)
	N, n := p.N(), p.Dim()
	g := randomGraph(t, N, 0.3, 0.5, 9)
	proc := graph.Bernoulli{G: g, Seed: 2}
	for _, cfg := range []Config{{C: 0.4}, {C: 0.4, Gamma: 0.3}} {
		ref, err := NewReference(cfg, g, proc, p.Locals, startPoints(N, n, 2, 1))
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		for r := range 50 {
			xOld, aOld := ref.Primal.RawVector().Data, ref.a.RawVector().Data
			xOld, aOld = append([]float64(nil), xOld...), append([]float64(nil), aOld...)
			if err := ref.Step(r); err != nil {
				t.Fatal(err)
			}
			for i := range N {
				var d float64
				sumOld := make([]float64, n)
				for _, j := range g.Neighbors(i) {
					if proc.Active(r, graph.DrawDual, min(i, j), max(i, j)) {
						d++
						for l := range n {
							sumOld[l] += xOld[j*n+l]
						}
					}
				}
				xi, ai := ref.X(i), ref.Dual(i)
				for l := range n {
					wantA := aOld[i*n+l]
					if r > 0 {
						wantA += cfg.C * (d*xOld[i*n+l] - sumOld[l])
					}
					worst = math.Max(worst, math.Abs(ai[l]-wantA))
				}
				if d == 0 { // isolated: x_i is kept whatever gamma
					worst = math.Max(worst, dist(xi, xOld[i*n:(i+1)*n]))
					continue
				}
				gr := make([]float64, n)
				p.Locals[i].Grad(xi, gr)
				for l := range n {
					res := gr[l]/float64(N) + ai[l] + 2*cfg.C*d*xi[l] + cfg.Gamma*(xi[l]-xOld[i*n+l]) -
						cfg.C*(d*xOld[i*n+l]+sumOld[l])
					worst = math.Max(worst, math.Abs(res))
				}
			}
		}
		t.Logf("gamma = %g: max residual of the stacked equations over 50 rounds: %.3g", cfg.Gamma, worst)
		if worst > 1e-12 {
			t.Errorf("gamma = %g: the reference violates the matrix form by %.3g", cfg.Gamma, worst)
		}
	}
}
