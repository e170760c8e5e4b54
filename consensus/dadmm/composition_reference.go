package dadmm

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus/admm"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/problems/portfolio"
)

// CompositionReference is the centralized matrix form of decentralized
// com-SVR-ADMM on the stacked x, w, lambda, a in R^{dN}. Round t = sK + k,
// with D_t and A_t the degree and adjacency matrices of the round's
// present edges (kron I_d) and V the stacked estimates, is
//
//	a <- a + c (D_t - A_t) x                                             (t >= 1)
//	k = 0: lambda = -(1/N) [grad F_i(x_i)]_i - a
//	w = [prox_{R/(N rho)}(x_i + lambda_i/rho)]_i
//	((rho + 1/eta) I + 2c D_t) x+ = x/eta - V/N - lambda + rho w - a + c (D_t + A_t) x
//	lambda <- lambda + rho (x+ - w)
//	k = K-1: x, w <- their means over the outer iteration's K rounds
//
// with the agents' samples (one generator per agent and outer iteration).
// It is a test oracle and does not model dropouts.
type CompositionReference struct {
	cfg    CompositionConfig
	g      *graph.Graph
	proc   graph.EdgeProcess
	n      int
	eye    *mat.DiagDense
	orcs   []*admm.OracleCounter
	ests   []*admm.Estimator
	rngs   []*rand.Rand
	pcgs   []*rand.PCG
	x, w   *mat.VecDense
	lam, a *mat.VecDense
	xs, ws *mat.VecDense // sums over the outer iteration
}

// NewCompositionReference returns the centralized iteration of the run
// with configuration cfg over g and proc, agent i holding shards[i] and
// starting at x0[i].
func NewCompositionReference(cfg CompositionConfig, g *graph.Graph, proc graph.EdgeProcess, shards []portfolio.Composition, x0 [][]float64) (*CompositionReference, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, fmt.Errorf("dadmm: composition reference: config: %w", err)
	}
	if g == nil || proc == nil {
		return nil, fmt.Errorf("dadmm: composition reference: graph and edge process are required")
	}
	if len(shards) != g.N || len(x0) != g.N {
		return nil, fmt.Errorf("dadmm: composition reference: %d shards and %d initial points for %d agents", len(shards), len(x0), g.N)
	}
	r := &CompositionReference{cfg: cfg, g: g, proc: proc}
	for i, p := range shards {
		orc, err := admm.NewOracleCounter(p)
		if err != nil {
			return nil, fmt.Errorf("dadmm: composition reference: agent %d: %w", i, err)
		}
		d := p.Dims()
		if i == 0 {
			r.n = d.D
		}
		if d.D != r.n || len(x0[i]) != r.n {
			return nil, fmt.Errorf("dadmm: composition reference: agent %d has d = %d and a start of length %d, want %d", i, d.D, len(x0[i]), r.n)
		}
		pcg := rand.NewPCG(0, 0)
		r.orcs = append(r.orcs, orc)
		r.ests = append(r.ests, admm.NewEstimator(orc))
		r.pcgs = append(r.pcgs, pcg)
		r.rngs = append(r.rngs, rand.New(pcg))
	}
	ones := make([]float64, r.n)
	for k := range ones {
		ones[k] = 1
	}
	r.eye = mat.NewDiagDense(r.n, ones)
	nN := g.N * r.n
	r.x, r.w = mat.NewVecDense(nN, nil), mat.NewVecDense(nN, nil)
	r.lam, r.a = mat.NewVecDense(nN, nil), mat.NewVecDense(nN, nil)
	r.xs, r.ws = mat.NewVecDense(nN, nil), mat.NewVecDense(nN, nil)
	for i := range x0 {
		for k, v := range x0[i] {
			r.x.SetVec(i*r.n+k, v)
		}
	}
	r.w.CopyVec(r.x)
	return r, nil
}

// Step performs round t.
func (r *CompositionReference) Step(t int) error {
	if t < 0 {
		return fmt.Errorf("dadmm: composition reference: round %d: must be non-negative", t)
	}
	N, n := r.g.N, r.n
	invN := 1 / float64(N)
	c, eta, rho, K := r.cfg.C, r.cfg.Eta, r.cfg.Rho, r.cfg.K
	dk, ak, _ := presentMatrices(r.g, r.proc, t, r.eye)
	if t > 0 {
		var lap mat.Dense
		lap.Sub(dk, ak)
		var lx mat.VecDense
		lx.MulVec(&lap, r.x)
		r.a.AddScaledVec(r.a, c, &lx)
	}
	k := t % K
	if k == 0 {
		grad := mat.NewVecDense(N*n, nil)
		for i := range N {
			graph.SeedSample(r.pcgs[i], r.cfg.Seed, t, i)
			r.ests[i].Snapshot(r.blockData(r.x, i))
			for l, v := range r.ests[i].Grad {
				grad.SetVec(i*n+l, v)
			}
		}
		r.lam.AddScaledVec(r.a, invN, grad)
		r.lam.ScaleVec(-1, r.lam)
		r.xs.Zero()
		r.ws.Zero()
	}
	z := mat.NewVecDense(N*n, nil)
	z.AddScaledVec(r.x, 1/rho, r.lam)
	v := mat.NewVecDense(N*n, nil)
	for i := range N {
		r.cfg.Reg.Prox(invN/rho, r.blockData(z, i), r.blockData(r.w, i))
		copy(r.blockData(v, i), r.ests[i].Estimate(r.rngs[i], r.cfg.Batch, r.blockData(r.x, i)))
	}
	// rhs = x/eta - V/N - lambda + rho w - a + c (D + A) x
	rhs := mat.NewVecDense(N*n, nil)
	rhs.ScaleVec(1/eta, r.x)
	rhs.AddScaledVec(rhs, -invN, v)
	rhs.SubVec(rhs, r.lam)
	rhs.AddScaledVec(rhs, rho, r.w)
	rhs.SubVec(rhs, r.a)
	var dpa mat.Dense
	dpa.Add(dk, ak)
	var cx mat.VecDense
	cx.MulVec(&dpa, r.x)
	rhs.AddScaledVec(rhs, c, &cx)
	// The system matrix (rho + 1/eta) I + 2c D_t is diagonal.
	for q := range N * n {
		r.x.SetVec(q, rhs.AtVec(q)/(rho+1/eta+float64(2*c*dk.At(q, q))))
	}
	var fx mat.VecDense
	fx.SubVec(r.x, r.w)
	r.lam.AddScaledVec(r.lam, rho, &fx)
	r.xs.AddVec(r.xs, r.x)
	r.ws.AddVec(r.ws, r.w)
	if k == K-1 {
		r.x.ScaleVec(1/float64(K), r.xs)
		r.w.ScaleVec(1/float64(K), r.ws)
	}
	return nil
}

// blockData returns block i of v as a slice sharing v's storage.
func (r *CompositionReference) blockData(v *mat.VecDense, i int) []float64 {
	return v.RawVector().Data[i*r.n : (i+1)*r.n]
}

// X returns a copy of agent i's x_i.
func (r *CompositionReference) X(i int) []float64 {
	return append([]float64(nil), r.blockData(r.x, i)...)
}

// W returns a copy of agent i's w_i.
func (r *CompositionReference) W(i int) []float64 {
	return append([]float64(nil), r.blockData(r.w, i)...)
}

// Dual returns a copy of agent i's a_i.
func (r *CompositionReference) Dual(i int) []float64 {
	return append([]float64(nil), r.blockData(r.a, i)...)
}

// Queries returns the total oracle queries of all agents so far.
func (r *CompositionReference) Queries() int64 {
	var s int64
	for _, o := range r.orcs {
		s += o.Total()
	}
	return s
}
