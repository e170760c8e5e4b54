package slicing

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	problem "github.com/consim/consim/problems/slicing"
)

// Reference is Algorithm 1 in matrix form on the stacked variables w in
// R^n (Model order), z in R^n and y in R^m, with the dense constraint
// matrix A of the Model:
//
//	y_{t+1} = y_t + eta (A w_t - b)
//	G_t     = grad f(w_t) + A^T y_{t+1} + rho A^T (A w_t - b) + mu (w_t - z_t)
//	w_{t+1} = proj_[0,1]^n (w_t - tau G_t)
//	z_{t+1} = z_t + beta (w_t - z_t)
//
// from w_0 = z_0 = Model.Initial(), y_0 = 0. It is the test oracle of the
// agents: dense, no dropouts.
type Reference struct {
	cfg     Config
	md      *problem.Model
	a       *mat.Dense
	b       *mat.VecDense
	w, z, y *mat.VecDense
}

// NewReference returns the matrix-form iteration of cfg on md.
func NewReference(cfg Config, md *problem.Model) (*Reference, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("slicing: reference: %w", err)
	}
	a := mat.NewDense(md.M, md.N, nil)
	for r, row := range md.Rows {
		for q, c := range row.Cols {
			a.Set(r, c, row.Vals[q])
		}
	}
	w0 := md.Initial()
	return &Reference{
		cfg: cfg, md: md, a: a,
		b: mat.NewVecDense(md.M, append([]float64(nil), md.B...)),
		w: mat.NewVecDense(md.N, w0),
		z: mat.NewVecDense(md.N, append([]float64(nil), w0...)),
		y: mat.NewVecDense(md.M, nil),
	}, nil
}

// Step performs round t of Algorithm 1.
func (r *Reference) Step(t int) error {
	if r.cfg.Rounds > 0 && t >= r.cfg.Rounds {
		return fmt.Errorf("slicing: reference: round %d is beyond the horizon T = %d", t, r.cfg.Rounds)
	}
	var res mat.VecDense
	res.MulVec(r.a, r.w)
	res.SubVec(&res, r.b)
	r.y.AddScaledVec(r.y, r.cfg.Eta, &res)
	var v mat.VecDense
	v.AddScaledVec(r.y, r.cfg.Rho, &res)
	g := mat.NewVecDense(r.md.N, nil)
	r.cfg.grad(r.md, r.w.RawVector().Data, g.RawVector().Data)
	var atv mat.VecDense
	atv.MulVec(r.a.T(), &v)
	g.AddVec(g, &atv)
	var d mat.VecDense
	d.SubVec(r.w, r.z)
	g.AddScaledVec(g, r.cfg.Mu, &d)
	r.z.AddScaledVec(r.z, r.cfg.Beta, &d)
	r.w.AddScaledVec(r.w, -r.cfg.Tau, g)
	for k, x := range r.w.RawVector().Data {
		r.w.SetVec(k, min(max(x, 0), 1))
	}
	return nil
}

// W returns a copy of w.
func (r *Reference) W() []float64 { return mat.Col(nil, 0, r.w) }

// Z returns a copy of z.
func (r *Reference) Z() []float64 { return mat.Col(nil, 0, r.z) }

// Y returns a copy of y.
func (r *Reference) Y() []float64 { return mat.Col(nil, 0, r.y) }
