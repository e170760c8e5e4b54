package almstorm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/problems/regression"
)

// testInstance is a small consensus problem: N noisy quadratics (or generated
// nonconvex regressions) on a ring with presence probability p.
type testInstance struct {
	g      *graph.Graph
	proc   graph.EdgeProcess
	locals []objective.Local
	box    objective.Box
	x0     [][]float64
}

func ringInstance(t *testing.T, N, n int, p float64, nonconvex bool) testInstance {
	t.Helper()
	var edges []graph.Edge
	for i := range N {
		j := (i + 1) % N
		edges = append(edges, graph.Edge{I: min(i, j), J: max(i, j), P: p})
	}
	g, err := graph.New(N, edges)
	if err != nil {
		t.Fatal(err)
	}
	inst := testInstance{g: g, proc: graph.Bernoulli{G: g, Seed: 3}, box: objective.Box{Lo: -3, Hi: 3}}
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range N {
		var f objective.Local
		if nonconvex {
			spec := regression.Params{Kind: objective.KindNonconvex, Dim: n, SamplesPerAgent: 20, Batch: 2, Noise: 0.1, Reg: 0.1, Heterogeneity: 1, Scale: 1, Box: regression.Unbounded}
			if f, err = regression.NewLocal(spec, N, 4, i); err != nil {
				t.Fatal(err)
			}
		} else {
			d, c := make([]float64, n), make([]float64, n)
			for k := range d {
				d[k], c[k] = 0.5+rng.Float64(), 4*rng.Float64()-2
			}
			f = objective.QuadraticNoisy(d, c, 0.5)
		}
		inst.locals = append(inst.locals, f)
		x0 := make([]float64, n)
		for k := range x0 {
			x0[k] = 2*rng.Float64() - 1
		}
		inst.x0 = append(inst.x0, x0)
	}
	return inst
}

func stormAgents(t *testing.T, cfg alm.Config, inst testInstance, alpha float64, n0 int) []consensus.Agent {
	t.Helper()
	var agents []consensus.Agent
	for i, f := range inst.locals {
		e, err := NewEstimator(f, alpha, n0)
		if err != nil {
			t.Fatal(err)
		}
		a, err := alm.NewAgent(cfg, i, inst.g, inst.proc, e, inst.box, inst.x0[i])
		if err != nil {
			t.Fatal(err)
		}
		agents = append(agents, a)
	}
	return agents
}

// plainStorm is ALM-STORM written out in stacked matrix form, independently
// of Estimator and of alm: x, z in R^{nN}, y in R^{|E| n},
// A(zeta) = W(zeta) kron I_n from graph.Incidence, and the STORM recursion on
// the stacked gradient, on the same edge draws and sample streams (round t's
// sample of agent i: two words of SeedSample(seed, t, i) seed one PCG that is
// used once at x_t and once, re-seeded, at x_{t-1}).
func plainStorm(inst testInstance, cfg alm.Config, alpha float64, n0, T int) [][]float64 {
	N, n := inst.g.N, inst.locals[0].Dim()
	x := mat.NewVecDense(N*n, nil)
	for i := range N {
		for k := range n {
			x.SetVec(i*n+k, inst.x0[i][k])
		}
	}
	z := mat.VecDenseCopyOf(x)
	y := mat.NewVecDense(len(inst.g.Edges)*n, nil)
	d := mat.NewVecDense(N*n, nil)
	xPrev := mat.NewVecDense(N*n, nil)
	var pcg, sub rand.PCG
	rng, srng := rand.New(&pcg), rand.New(&sub)
	block := func(v *mat.VecDense, i int) []float64 { return v.RawVector().Data[i*n : (i+1)*n] }
	gi, go_ := make([]float64, n), make([]float64, n)
	for t := range T {
		A := func(draw int) *mat.Dense { return graph.KronIdentity(inst.g.Incidence(inst.proc, t, draw), n) }
		// d_t
		for i, f := range inst.locals {
			graph.SeedSample(&pcg, cfg.Seed, t, i)
			di := block(d, i)
			if t == 0 {
				clear(di)
				for range n0 {
					f.StochGrad(block(x, i), gi, rng)
					for k := range di {
						di[k] += gi[k] / float64(n0)
					}
				}
				continue
			}
			s0, s1 := rng.Uint64(), rng.Uint64()
			sub.Seed(s0, s1)
			f.StochGrad(block(x, i), gi, srng)
			sub.Seed(s0, s1)
			f.StochGrad(block(xPrev, i), go_, srng)
			for k := range di {
				di[k] = gi[k] + (1-alpha)*(di[k]-go_[k])
			}
		}
		var ax mat.VecDense
		ax.MulVec(A(graph.DrawDual), x)
		y.AddScaledVec(y, cfg.Eta, &ax)
		a1, a2 := A(graph.DrawAdjoint), A(graph.DrawPenalty)
		var G, aty, a2x, pen mat.VecDense
		aty.MulVec(a1.T(), y)
		a2x.MulVec(a2, x)
		pen.MulVec(a1.T(), &a2x)
		G.ScaleVec(cfg.Scale/float64(N), d)
		G.AddVec(&G, &aty)
		G.AddScaledVec(&G, cfg.Rho, &pen)
		var xz mat.VecDense
		xz.SubVec(x, z)
		G.AddScaledVec(&G, cfg.Mu, &xz)
		xPrev.CopyVec(x)
		z.AddScaledVec(z, cfg.Beta, &xz)
		x.AddScaledVec(x, -cfg.Tau, &G)
		inst.box.Project(x.RawVector().Data)
	}
	out := make([][]float64, N)
	for i := range out {
		out[i] = append([]float64(nil), block(x, i)...)
	}
	return out
}

func testConfig() alm.Config {
	return alm.Config{Steps: alm.Steps{Eta: 0.05, Tau: 0.05, Rho: 1, Mu: 2, Beta: 0.1, My: math.Inf(1)},
		Safeguard: alm.SafeguardNone, Seed: 11, Scale: 1}
}

// TestAgentsMatchPlainStorm: alm's agents on the STORM estimators, in
// lockstep, reproduce the plain stacked ALM-STORM to 1e-12 on a random ring.
func TestAgentsMatchPlainStorm(t *testing.T) {
	for _, nc := range []bool{false, true} {
		inst := ringInstance(t, 5, 3, 0.6, nc)
		cfg := testConfig()
		const T, alpha, n0 = 40, 0.3, 3
		agents := stormAgents(t, cfg, inst, alpha, n0)
		d, err := lockstep.New(agents, lockstep.Symmetric())
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Run(0, T); err != nil {
			t.Fatal(err)
		}
		want := plainStorm(inst, cfg, alpha, n0, T)
		var worst float64
		for i, a := range agents {
			x := a.Report().X
			for k := range x {
				worst = math.Max(worst, math.Abs(x[k]-want[i][k]))
			}
		}
		if worst > 1e-12 {
			t.Errorf("nonconvex=%v: agents differ from the plain ALM-STORM by %.3g", nc, worst)
		}
		// Sample count: N0 b at round 0, 2b after, per agent.
		b := int64(1)
		if nc {
			b = 2
		}
		if got, want := agents[0].Report().GradEvals, b*(n0+2*(T-1)); got != want {
			t.Errorf("nonconvex=%v: GradEvals = %d, want %d", nc, got, want)
		}
	}
}

// TestAlphaOneIsALM: with alpha = 1 and N_0 = 1 the estimator is the
// round's plain stochastic gradient, so ALM-STORM is the ALM bit for bit.
func TestAlphaOneIsALM(t *testing.T) {
	inst := ringInstance(t, 4, 2, 0.7, true)
	cfg := testConfig()
	storm := stormAgents(t, cfg, inst, 1, 1)
	var plain []consensus.Agent
	for i, f := range inst.locals {
		a, err := alm.NewAgent(cfg, i, inst.g, inst.proc, f, inst.box, inst.x0[i])
		if err != nil {
			t.Fatal(err)
		}
		plain = append(plain, a)
	}
	for _, set := range [][]consensus.Agent{storm, plain} {
		d, err := lockstep.New(set)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Run(0, 30); err != nil {
			t.Fatal(err)
		}
	}
	for i := range storm {
		a, b := storm[i].Report(), plain[i].Report()
		for k := range a.X {
			if a.X[k] != b.X[k] {
				t.Fatalf("agent %d: x[%d] = %v under STORM with alpha = 1, %v under the ALM", i, k, a.X[k], b.X[k])
			}
		}
		if a.GradEvals != b.GradEvals {
			t.Fatalf("agent %d: %d samples under STORM with alpha = 1, %d under the ALM", i, a.GradEvals, b.GradEvals)
		}
	}
}

// TestEstimatorVariance: with additive noise G(x; xi) = grad f(x) + s e(xi)
// the same sample at both points cancels the correction's noise, so the
// error e_t = d_t - grad f(x_t) obeys e_t = alpha s e(xi_t) + (1 - alpha)
// e_{t-1}, of stationary mean square alpha/(2 - alpha) s^2 per coordinate.
// Two independent samples would give (1 + (1-alpha)^2)/(1 - (1-alpha)^2) s^2
// instead (about 9.5 s^2 at alpha = 0.1).
func TestEstimatorVariance(t *testing.T) {
	const n, s, alpha, T = 4, 1.0, 0.1, 20000
	d := []float64{1, 2, 0.5, 1.5}
	f := objective.QuadraticNoisy(d, make([]float64, n), s)
	e, err := NewEstimator(f, alpha, 1)
	if err != nil {
		t.Fatal(err)
	}
	var pcg rand.PCG
	rng := rand.New(&pcg)
	x, g, gf := make([]float64, n), make([]float64, n), make([]float64, n)
	walk := rand.New(rand.NewPCG(1, 2))
	var ms float64
	var cnt int
	for t := range T {
		for k := range x {
			x[k] += 0.1 * walk.NormFloat64()
		}
		graph.SeedSample(&pcg, 5, t, 0)
		e.StochGrad(x, g, rng)
		f.Grad(x, gf)
		if t >= 200 {
			for k := range g {
				ms += (g[k] - gf[k]) * (g[k] - gf[k])
			}
			cnt += n
		}
	}
	ms /= float64(cnt)
	want := alpha / (2 - alpha) * s * s
	if math.Abs(ms-want) > 0.15*want {
		t.Errorf("mean square error of d_t = %.4g per coordinate, want alpha/(2-alpha) s^2 = %.4g", ms, want)
	}
}

// TestEstimatorRejects: alpha outside (0, 1] and N_0 < 1 are errors.
func TestEstimatorRejects(t *testing.T) {
	f := objective.QuadraticNoisy([]float64{1}, []float64{0}, 1)
	for _, c := range []struct {
		alpha float64
		n0    int
	}{{0, 1}, {1.5, 1}, {math.NaN(), 1}, {0.5, 0}} {
		if _, err := NewEstimator(f, c.alpha, c.n0); err == nil {
			t.Errorf("alpha = %v, N_0 = %d: no error", c.alpha, c.n0)
		}
	}
}
