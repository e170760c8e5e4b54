// Package fairness is fairness-constrained linear classification (section
// 6.3 of the stochastic smoothed linearized ALM paper, after Zafar et al.,
// AISTATS 2017).
//
// Data are n examples (x_k, y_k, z_k): features x_k in R^d (a constant 1
// among them), a label y_k in {-1, +1} and a sensitive attribute z_k in
// {0, 1}. A linear classifier predicts sign(theta^T x). Its unfairness is
// the covariance between z and the signed distance,
//
//	Cov(z, theta^T x) ~ (1/n) sum_k (z_k - zbar) theta^T x_k = a^T theta,
//	a = (1/n) sum_k (z_k - zbar) x_k,
//
// and the problem (6.6) is
//
//	min_theta L(theta) = (1/n) sum_k V(y_k theta^T x_k)  s.t. |a^T theta| <= c,
//
// for a loss V of the margin m = y theta^T x: the logistic loss, the
// logistic difference (6.7) or the smoothed 0-1 loss (6.8), the last two
// nonconvex. In the template of the paper, min f(x) s.t. A x = b, x in X,
// the variable is x = (theta, s) with a slack s, A = [a^T, -1], b = 0 and
// X = [-R, R]^d x [-c, c] (the box on theta is what the theory needs).
//
// The package owns the data (Data; Zafar et al.'s synthetic generator,
// Synthetic; the UCI Adult files encoded as in Zafar et al., LoadAdult),
// the losses, the measures (Objective, Covariance, Accuracy, PRule), the
// gradient oracles, the independent solve of the convex case (Reference),
// and the problem block, registration and export of kind fairness
// (Problem). The method that solves it, the paper's Algorithm 1 in one
// process and as data-parallel agents, is package consensus/fair's.
//
// fairness reads files only in LoadAdult (through package dataset) and
// writes them only in its export (through problems/datafile); the rest is
// pure: no goroutines, no clocks, no global random source. It may import
// objective, graph, dataset, consensus/registry and problems/datafile; it
// must not import an algorithm package (consensus/<algorithm>), node,
// coordinator, scenarios or cmd.
package fairness

import (
	"fmt"
	"math"
)

// Data are the examples of a fairness-constrained classification task.
type Data struct {
	// X holds the features row-major, Rows() x Dim.
	X []float64
	// Y holds the labels, each -1 or +1.
	Y []float64
	// Z holds the sensitive attribute, each 0 or 1.
	Z []float64
	// Dim is d, the number of features.
	Dim int
}

// Rows is n, the number of examples.
func (d *Data) Rows() int { return len(d.Y) }

// Row returns x_k (not a copy).
func (d *Data) Row(k int) []float64 { return d.X[k*d.Dim : (k+1)*d.Dim : (k+1)*d.Dim] }

// Validate checks the shapes, that y is in {-1, +1}, z in {0, 1} and both
// groups present, and that every value is finite.
func (d *Data) Validate() error {
	n := d.Rows()
	switch {
	case d.Dim < 1:
		return fmt.Errorf("fair data: dim %d, want >= 1", d.Dim)
	case n < 2:
		return fmt.Errorf("fair data: %d examples, want >= 2", n)
	case len(d.X) != n*d.Dim:
		return fmt.Errorf("fair data: %d feature values for %d examples of dim %d, want %d", len(d.X), n, d.Dim, n*d.Dim)
	case len(d.Z) != n:
		return fmt.Errorf("fair data: %d sensitive values for %d examples", len(d.Z), n)
	}
	var groups [2]int
	for k := range n {
		if d.Y[k] != 1 && d.Y[k] != -1 {
			return fmt.Errorf("fair data: example %d: label %g, want -1 or +1", k, d.Y[k])
		}
		if d.Z[k] != 0 && d.Z[k] != 1 {
			return fmt.Errorf("fair data: example %d: sensitive attribute %g, want 0 or 1", k, d.Z[k])
		}
		groups[int(d.Z[k])]++
	}
	if groups[0] == 0 || groups[1] == 0 {
		return fmt.Errorf("fair data: sensitive groups of sizes %d (z = 0) and %d (z = 1), want both non-empty", groups[0], groups[1])
	}
	for p, v := range d.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("fair data: example %d feature %d: %g, want a finite number", p/d.Dim, p%d.Dim, v)
		}
	}
	return nil
}

// CovVector returns a = (1/n) sum_k (z_k - zbar) x_k, so that a^T theta is
// the empirical covariance of z and theta^T x.
func (d *Data) CovVector() []float64 {
	sum, n := d.ZSum()
	a := make([]float64, d.Dim)
	d.CovPartial(sum/n, n, a)
	return a
}

// dot is sum_j u_j v_j in index order.
func dot(u, v []float64) float64 {
	var s float64
	for j := range u {
		s += u[j] * v[j]
	}
	return s
}

// Covariance is (1/n) sum_k (z_k - zbar) theta^T x_k on d.
func Covariance(d *Data, theta []float64) float64 { return dot(d.CovVector(), theta) }

// Accuracy is the fraction of examples with sign(theta^T x_k) = y_k,
// predicting +1 when theta^T x_k >= 0.
func Accuracy(d *Data, theta []float64) float64 {
	var ok int
	for k := range d.Rows() {
		if pred(d.Row(k), theta) == d.Y[k] {
			ok++
		}
	}
	return float64(ok) / float64(d.Rows())
}

// pred is the classifier's label of x.
func pred(x, theta []float64) float64 {
	if dot(x, theta) >= 0 {
		return 1
	}
	return -1
}

// PRule is the p%-rule of Zafar et al.: 100 min(r, 1/r), r = P(yhat = +1
// | z = 1) / P(yhat = +1 | z = 0), the ratio of the two groups' positive
// rates. It is 100 when both rates are equal (and when neither group gets
// a positive prediction), 0 when exactly one group gets none.
func PRule(d *Data, theta []float64) float64 {
	var pos, cnt [2]float64
	for k := range d.Rows() {
		g := int(d.Z[k])
		cnt[g]++
		if pred(d.Row(k), theta) > 0 {
			pos[g]++
		}
	}
	r0, r1 := pos[0]/cnt[0], pos[1]/cnt[1]
	switch {
	case r0 == 0 && r1 == 0:
		return 100
	case r0 == 0 || r1 == 0:
		return 0
	}
	return 100 * math.Min(r1/r0, r0/r1)
}

// Objective is L(theta) = (1/n) sum_k V(y_k theta^T x_k).
func Objective(d *Data, loss Loss, theta []float64) float64 {
	var s float64
	for k := range d.Rows() {
		v, _ := loss.Eval(d.Y[k] * dot(d.Row(k), theta))
		s += v
	}
	return s / float64(d.Rows())
}

// Gradient sets g = (1/|rows|) sum_{k in rows} V'(m_k) y_k x_k, the
// gradient of the loss averaged over rows (all examples when rows is nil).
func Gradient(d *Data, loss Loss, theta []float64, rows []int, g []float64) {
	clear(g)
	var m int
	if rows == nil {
		m = d.Rows()
		for k := range m {
			AddLossGrad(loss, d.Row(k), d.Y[k], theta, g)
		}
	} else {
		m = len(rows)
		for _, k := range rows {
			AddLossGrad(loss, d.Row(k), d.Y[k], theta, g)
		}
	}
	for j := range g {
		g[j] /= float64(m)
	}
}

// AddLossGrad adds V'(y theta^T x) y x, the gradient of one example's
// loss, to g.
func AddLossGrad(loss Loss, x []float64, y float64, theta, g []float64) {
	_, dv := loss.Eval(y * dot(x, theta))
	w := dv * y
	for j, v := range x {
		g[j] += w * v
	}
}

// PowerLambdaMax estimates lambda_max((1/n) X^T X) by 200 steps of the
// power iteration from the all-ones vector (an estimate from below, which
// the step rules scale with a safety factor).
func PowerLambdaMax(d *Data) float64 {
	v := make([]float64, d.Dim)
	w := make([]float64, d.Dim)
	for j := range v {
		v[j] = 1 / math.Sqrt(float64(d.Dim))
	}
	var lam float64
	for range 200 {
		clear(w)
		for k := range d.Rows() {
			x := d.Row(k)
			s := dot(x, v)
			for j, xv := range x {
				w[j] += s * xv
			}
		}
		for j := range w {
			w[j] /= float64(d.Rows())
		}
		lam = math.Sqrt(dot(w, w))
		if lam == 0 {
			return 0
		}
		for j := range v {
			v[j] = w[j] / lam
		}
	}
	return lam
}

// Slice returns rows lo..hi-1 of d as a Data sharing its storage.
func (d *Data) Slice(lo, hi int) *Data {
	return &Data{X: d.X[lo*d.Dim : hi*d.Dim], Y: d.Y[lo:hi], Z: d.Z[lo:hi], Dim: d.Dim}
}

// ZSum returns sum_k z_k and the number of rows.
func (d *Data) ZSum() (float64, float64) {
	var s float64
	for _, z := range d.Z {
		s += z
	}
	return s, float64(d.Rows())
}

// CovPartial adds sum_k ((z_k - zbar)/n) x_k over d's rows to a: a
// shard's part of the covariance vector (CovVector sums the whole data
// at once).
func (d *Data) CovPartial(zbar, n float64, a []float64) {
	for k := range d.Rows() {
		w := (d.Z[k] - zbar) / n
		for j, v := range d.Row(k) {
			a[j] += w * v
		}
	}
}

// clamp projects v onto [-r, r].
func clamp(v, r float64) float64 { return math.Max(-r, math.Min(r, v)) }
