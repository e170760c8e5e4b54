package zosplm

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/objective"
)

// Reference is Algorithm 1 written directly from the paper's equations in
// matrix form, on the same directions as Server but without requests,
// chunks or oracle: with D the k x n matrix whose row i is direction D_i
// of iteration t (Directions with RoundKey(seed, t)),
//
//	l_i     = L(x_t + r D_i, z_t; y_t),  l_0 = L(x_t, z_t; y_t)
//	G_t     = (n/(r k)) D^T (l - l_0 1)                          (eq. 3)
//	x_{t+1} = proj_X(x_t - c G_t)
//	y_{t+1} = proj_[0,B]^m(y_t + alpha h(x_{t+1}))
//	z_{t+1} = z_t + beta (x_{t+1} - z_t)
//
// where L is evaluated as a whole at each point (f and h from the black
// box, the proximal term from its formula). With Estimator.ExactProx the
// estimated function is f + <y, h> and p (x_t - z_t) is added to G_t. It
// serves the tests: the server must reproduce it.
type Reference struct {
	bb      BlackBox
	box     objective.Box
	prm     SPLMParams
	seed    uint64
	n, m    int
	t       int
	X, Z, Y *mat.VecDense
}

// NewReference returns the reference at x^0 = z^0 = x0, y^0 = Y0.
func NewReference(bb BlackBox, box objective.Box, x0 []float64, prm SPLMParams, seed uint64) (*Reference, error) {
	if err := prm.Validate(); err != nil {
		return nil, err
	}
	n, m := bb.Dim(), bb.Constraints()
	if len(x0) != n {
		return nil, fmt.Errorf("zosplm: reference: len(x0) = %d, want n = %d", len(x0), n)
	}
	y := mat.NewVecDense(m, nil)
	for j := range m {
		y.SetVec(j, prm.Y0)
	}
	return &Reference{bb: bb, box: box, prm: prm, seed: seed, n: n, m: m,
		X: mat.NewVecDense(n, append([]float64(nil), x0...)), Z: mat.NewVecDense(n, append([]float64(nil), x0...)), Y: y}, nil
}

// lagrangian returns L(x, z; y) = f(x) + <y, h(x)> + (p/2)||x - z||^2,
// without the proximal term when it is exact.
func (r *Reference) lagrangian(x *mat.VecDense) float64 {
	v := make([]float64, 1+r.m)
	r.bb.Eval(x.RawVector().Data, v, make([]float64, r.bb.WorkLen()))
	l := v[0] + mat.Dot(r.Y, mat.NewVecDense(r.m, v[1:]))
	if !r.prm.Estimator.ExactProx {
		var d mat.VecDense
		d.SubVec(x, r.Z)
		l += r.prm.P / 2 * mat.Dot(&d, &d)
	}
	return l
}

// Step runs iteration t (the next one).
func (r *Reference) Step() {
	n, k := r.n, r.prm.Estimator.K
	rad := r.prm.Estimator.R
	D := mat.NewDense(k, n, nil)
	dirs := NewDirections()
	key := RoundKey(r.seed, r.t)
	for i := range k {
		dirs.Fill(key, i, r.prm.Estimator.Dist, D.RawRowView(i))
	}
	l0 := r.lagrangian(r.X)
	diff := mat.NewVecDense(k, nil)
	var pt mat.VecDense
	for i := range k {
		pt.AddScaledVec(r.X, rad, D.RowView(i))
		diff.SetVec(i, r.lagrangian(&pt)-l0)
	}
	var G mat.VecDense
	G.MulVec(D.T(), diff)
	G.ScaleVec(float64(n)/(rad*float64(k)), &G)
	if r.prm.Estimator.ExactProx {
		var d mat.VecDense
		d.SubVec(r.X, r.Z)
		G.AddScaledVec(&G, r.prm.P, &d)
	}
	r.X.AddScaledVec(r.X, -r.prm.C, &G)
	for i := range n {
		r.X.SetVec(i, math.Min(math.Max(r.X.AtVec(i), r.box.Lo), r.box.Hi))
	}
	v := make([]float64, 1+r.m)
	r.bb.Eval(r.X.RawVector().Data, v, make([]float64, r.bb.WorkLen()))
	for j := range r.m {
		r.Y.SetVec(j, math.Min(math.Max(r.Y.AtVec(j)+r.prm.Alpha*v[1+j], 0), r.prm.B))
	}
	var dz mat.VecDense
	dz.SubVec(r.X, r.Z)
	r.Z.AddScaledVec(r.Z, r.prm.Beta, &dz)
	r.t++
}
