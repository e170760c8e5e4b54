package radmm

import (
	"math"
	"testing"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// TestAgentsMatchReference drives N >= 5 agents with the lockstep driver
// and the centralized matrix form on the same edge draws and samples, and
// checks in every one of 250 rounds that every x_i, both endpoints'
// replicas of every z_e and y_e, and every Lambda_i agree with the
// reference to 1e-12 relative.
func TestAgentsMatchReference(t *testing.T) {
	const rounds = 250
	tests := []struct {
		name  string
		cfg   Config
		p     func(t *testing.T) *objective.Problem
		edgeP float64
	}{
		{"exact least squares p = 0.6", Config{Method: MethodExact, Rho: 0.3},
			func(t *testing.T) *objective.Problem { return lsProblem(t, 6, 4, 30, 5, 0.01, 1) }, 0.6},
		{"exact quadratic p = 0.2", Config{Method: MethodExact, Rho: 0.8},
			func(t *testing.T) *objective.Problem { return quadProblem(t, 7, 3, 0.5, 0, 2) }, 0.2},
		{"exact least squares p = 1", Config{Method: MethodExact, Rho: 0.1},
			func(t *testing.T) *objective.Problem { return lsProblem(t, 5, 3, 20, 5, 0, 4) }, 1},
		{"linearized noisy quadratic p = 0.7", Config{Method: MethodLinearized, Rho: 0.5, Seed: 9},
			func(t *testing.T) *objective.Problem { return quadProblem(t, 5, 3, 0.5, 0.5, 3) }, 0.7},
		{"linearized minibatch least squares p = 0.3", Config{Method: MethodLinearized, Rho: 0.2, Tau: 2, Seed: 4},
			func(t *testing.T) *objective.Problem { return lsProblem(t, 8, 5, 40, 4, 0.01, 2) }, 0.3},
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
			rel := func(a, b []float64) float64 { return dist(a, b) / math.Max(1, norm(b)) }
			var worst, moved, dualMax float64
			for r := range rounds {
				nw.run(t, r, 1)
				if err := ref.Step(r); err != nil {
					t.Fatal(err)
				}
				for i, a := range nw.agents {
					worst = math.Max(worst, rel(a.X(), ref.X(i)))
					worst = math.Max(worst, rel(a.Lambda(), ref.Lambda(i)))
					moved = math.Max(moved, dist(a.X(), x0[i]))
				}
				for k, e := range g.Edges {
					for _, pair := range [][2]int{{e.I, e.J}, {e.J, e.I}} {
						a := nw.agents[pair[0]]
						worst = math.Max(worst, rel(a.EdgeZ(pair[1]), ref.Z(k)))
						worst = math.Max(worst, rel(a.EdgeY(pair[1]), ref.Y(k)))
					}
					dualMax = math.Max(dualMax, norm(ref.Y(k)))
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
			if moved < 1e-3 || dualMax < 1e-3 {
				t.Errorf("iterates moved %.3g, duals reached %.3g: the comparison is vacuous", moved, dualMax)
			}
			if dy, dz := nw.drift(g); dy != 0 || dz != 0 {
				t.Errorf("edge replicas differ between endpoints without loss: y by %.3g, z by %.3g", dy, dz)
			}
			t.Logf("max relative difference over %d rounds: %.3g", rounds, worst)
		})
	}
}

// TestReferenceSolvesMatrixForm checks the exact reference against the
// stacked optimality condition of the x-step, evaluated with the gradient
// oracle (not the prox): after round t, on the blocks of the agents with a
// present edge,
//
//	(1/N) grad f_i(x_i^{t+1}) + (B^T y^t)_i + rho d_i x_i^{t+1} - rho (|B|^T z^t)_i = 0,
//
// x_i^{t+1} = x_i^t on the others, and on every edge z_e^{t+1} = (x_i^{t+1} +
// x_j^{t+1})/2, y_e^{t+1} = y_e^t + (rho/2)(x_i^{t+1} - x_j^{t+1}) if present,
// z_e and y_e unchanged otherwise (checked from the definitions, edge by
// edge).
func TestReferenceSolvesMatrixForm(t *testing.T) {
	p := lsProblem(t, 6, 4, 20, 1, 0.02, 6)
	N, n := p.N(), p.Dim()
	g := randomGraph(t, N, 0.3, 0.4, 9)
	proc := graph.Bernoulli{G: g, Seed: 2}
	cfg := Config{Rho: 0.4}
	ref, err := NewReference(cfg, g, proc, p.Locals, startPoints(N, n, 2, 1))
	if err != nil {
		t.Fatal(err)
	}
	var worst float64
	var kept int
	for r := range 60 {
		xOld := make([][]float64, N)
		for i := range N {
			xOld[i] = ref.X(i)
		}
		zOld, yOld := make([][]float64, len(g.Edges)), make([][]float64, len(g.Edges))
		for k := range g.Edges {
			zOld[k], yOld[k] = ref.Z(k), ref.Y(k)
		}
		if err := ref.Step(r); err != nil {
			t.Fatal(err)
		}
		active := make([]bool, N)
		for k, e := range g.Edges {
			xi, xj := ref.X(e.I), ref.X(e.J)
			wantZ, wantY := zOld[k], yOld[k]
			if proc.Active(r, graph.DrawDual, e.I, e.J) {
				active[e.I], active[e.J] = true, true
				wantZ, wantY = make([]float64, n), make([]float64, n)
				for l := range n {
					wantZ[l] = (xi[l] + xj[l]) / 2
					wantY[l] = yOld[k][l] + cfg.Rho/2*(xi[l]-xj[l])
				}
			}
			worst = math.Max(worst, dist(ref.Z(k), wantZ))
			worst = math.Max(worst, dist(ref.Y(k), wantY))
		}
		for i := range N {
			xi := ref.X(i)
			if !active[i] {
				kept++
				worst = math.Max(worst, dist(xi, xOld[i]))
				continue
			}
			gr := make([]float64, n)
			p.Locals[i].Grad(xi, gr)
			d := float64(len(g.Neighbors(i)))
			for l := range n {
				res := gr[l]/float64(N) + cfg.Rho*d*xi[l]
				for _, j := range g.Neighbors(i) {
					k, _ := g.EdgeIndex(i, j)
					res += graph.Sign(i, j)*yOld[k][l] - cfg.Rho*zOld[k][l]
				}
				worst = math.Max(worst, math.Abs(res))
			}
		}
	}
	t.Logf("max residual of the stacked equations over 60 rounds: %.3g (%d inactive agent-rounds)", worst, kept)
	if worst > 1e-12 {
		t.Errorf("the reference violates the matrix form by %.3g", worst)
	}
	if kept == 0 {
		t.Errorf("no inactive agent-round: the check of x+ = x off P_t is vacuous")
	}
}
