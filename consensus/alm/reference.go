package alm

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Reference is the centralized matrix form of the method on the stacked
// variables x, z in R^{nN} and y in R^{|E| n}, with A(zeta) = W(zeta) kron I_n
// and W(zeta) the |E| x N incidence matrix whose row k (edge k of the graph,
// {I, J}) is e_I - e_J if the edge is present in draw zeta and 0 otherwise.
// It takes the same edge draws and stochastic gradient samples as the
// agents, so that both produce the same iterates: without loss the
// agents' single-writer duals (the owner's y_ij, copied by the other
// endpoint in the same round) are the y of this iteration. It is a test
// oracle: it builds dense matrices every step and does not model dropouts.
type Reference struct {
	cfg    Config
	g      *graph.Graph
	proc   graph.EdgeProcess
	locals []objective.Local
	box    objective.Box
	n      int

	x, z *mat.VecDense
	y    *mat.VecDense // nil when the graph has no edge

	pcg *rand.PCG
	rng *rand.Rand

	resets    int
	gradEvals int64
}

// NewReference returns the centralized iteration of the run with
// configuration cfg over graph g and edge process proc, with agent i's
// objective locals[i], box box and initial points x0[i] (x_0 = z_0, y_0 = 0).
func NewReference(cfg Config, g *graph.Graph, proc graph.EdgeProcess, locals []objective.Local, box objective.Box, x0 [][]float64) (*Reference, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, fmt.Errorf("alm: reference: config: %w", err)
	}
	if g == nil || proc == nil {
		return nil, fmt.Errorf("alm: reference: graph and edge process are required")
	}
	if len(locals) != g.N || len(x0) != g.N {
		return nil, fmt.Errorf("alm: reference: %d objectives and %d initial points for %d agents", len(locals), len(x0), g.N)
	}
	var n int
	for i, f := range locals {
		if f == nil {
			return nil, fmt.Errorf("alm: reference: agent %d has no objective", i)
		}
		if i == 0 {
			n = f.Dim()
		} else if f.Dim() != n {
			return nil, fmt.Errorf("alm: reference: agent %d has dimension %d, agent 0 has %d", i, f.Dim(), n)
		}
		if err := checkPoint(f, box, x0[i]); err != nil {
			return nil, fmt.Errorf("alm: reference: agent %d: %w", i, err)
		}
	}
	r := &Reference{
		cfg: cfg, g: g, proc: proc, locals: locals, box: box, n: n,
		x:   mat.NewVecDense(g.N*n, nil),
		z:   mat.NewVecDense(g.N*n, nil),
		pcg: rand.NewPCG(0, 0),
	}
	r.rng = rand.New(r.pcg)
	for i := range x0 {
		for k, v := range x0[i] {
			r.x.SetVec(i*n+k, v)
		}
	}
	r.z.CopyVec(r.x)
	if len(g.Edges) > 0 {
		r.y = mat.NewVecDense(len(g.Edges)*n, nil)
	}
	return r, nil
}

// incidence returns A(zeta) = W(zeta) kron I_n of round t and draw d,
// built by package graph: the agents' edge draws are checked against the
// graph package's incidence matrices.
func (r *Reference) incidence(t, d int) *mat.Dense {
	return graph.KronIdentity(r.g.Incidence(r.proc, t, d), r.n)
}

// Step performs round t:
//
//	y <- y + eta A(zeta0) x, then the safeguard on y,
//	G  = (sigma/N) [G_i(x_i, xi_i)]_i + A(zeta1)^T y + rho A(zeta1)^T A(zeta2) x + mu (x - z),
//	z <- z + beta (x - z),  x <- proj_X(x - tau_t G)   (z with the old x).
func (r *Reference) Step(t int) error {
	if r.cfg.Rounds > 0 && t >= r.cfg.Rounds {
		return fmt.Errorf("alm: reference: round %d is beyond the horizon T = %d", t, r.cfg.Rounds)
	}
	nN := r.x.Len()
	gr := mat.NewVecDense(nN, nil)
	if r.y != nil {
		a0 := r.incidence(t, graph.DrawDual)
		var ax mat.VecDense
		ax.MulVec(a0, r.x)
		r.y.AddScaledVec(r.y, r.cfg.Eta, &ax)
		r.safeguard(t)

		a1 := r.incidence(t, graph.DrawAdjoint)
		a2 := a1
		if !r.cfg.SameDraw {
			a2 = r.incidence(t, graph.DrawPenalty)
		}
		var aty, a2x, pen mat.VecDense
		aty.MulVec(a1.T(), r.y)
		a2x.MulVec(a2, r.x)
		pen.MulVec(a1.T(), &a2x)
		gr.AddVec(&aty, gr)
		gr.AddScaledVec(gr, r.cfg.Rho, &pen)
	}
	var sg mat.VecDense
	sg.ReuseAsVec(nN)
	r.sample(t, &sg)
	gr.AddScaledVec(gr, r.cfg.Scale/float64(r.g.N), &sg)
	var d mat.VecDense
	d.SubVec(r.x, r.z)
	gr.AddScaledVec(gr, r.cfg.Mu, &d)

	r.z.AddScaledVec(r.z, r.cfg.Beta, &d)
	r.x.AddScaledVec(r.x, -r.cfg.tauAt(t), gr)
	r.box.Project(r.x.RawVector().Data)
	return nil
}

// sample writes the stacked stochastic gradients [G_i(x_i, xi_i)]_i of round
// t into dst, seeding each agent's sampler as the agents do.
func (r *Reference) sample(t int, dst *mat.VecDense) {
	n := r.n
	for i, f := range r.locals {
		graph.SeedSample(r.pcg, r.cfg.Seed, t, i)
		xi := r.x.SliceVec(i*n, (i+1)*n).(*mat.VecDense).RawVector().Data
		gi := dst.SliceVec(i*n, (i+1)*n).(*mat.VecDense).RawVector().Data
		r.gradEvals += int64(f.StochGrad(xi, gi, r.rng))
	}
}

// safeguard applies the configured dual safeguard to y_{t+1}.
func (r *Reference) safeguard(t int) {
	switch {
	case r.cfg.checksGlobal(t):
		if mat.Norm(r.y, 2) >= r.cfg.Scale*r.cfg.My {
			r.y.Zero()
			r.resets++
		}
	case r.cfg.Safeguard == SafeguardEdge:
		n := r.n
		for k := range r.g.Edges {
			yk := r.y.SliceVec(k*n, (k+1)*n)
			if mat.Norm(yk, 2) >= r.cfg.Scale*r.cfg.My {
				yk.(*mat.VecDense).Zero()
				r.resets++
			}
		}
	}
}

// X returns a copy of agent i's block x_i.
func (r *Reference) X(i int) []float64 { return r.block(r.x, i) }

// Z returns a copy of agent i's block z_i.
func (r *Reference) Z(i int) []float64 { return r.block(r.z, i) }

// Y returns a copy of y_k, the dual of edge k of the graph (nil without
// edges).
func (r *Reference) Y(k int) []float64 {
	if r.y == nil {
		return nil
	}
	return r.block(r.y, k)
}

// Resets is the number of safeguard resets so far (a global reset counts
// once, an edge reset once per edge).
func (r *Reference) Resets() int { return r.resets }

// GradEvals is the number of stochastic gradient samples drawn so far.
func (r *Reference) GradEvals() int64 { return r.gradEvals }

func (r *Reference) block(v *mat.VecDense, k int) []float64 {
	out := make([]float64, r.n)
	for l := range out {
		out[l] = v.AtVec(k*r.n + l)
	}
	return out
}
