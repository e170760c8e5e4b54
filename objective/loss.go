package objective

import "math"

// The kinds of generalized linear model the package builds (FromShards,
// LocalFromShard): the loss ell and the regularizer R of
// f_i(x) = (1/m) sum_k ell(a_k^T x, b_k) + R(x).
const (
	// KindLeastSquares: ell(z, b) = (z - b)^2 / 2, R(x) = (lambda/2)||x||^2.
	KindLeastSquares = "least_squares"
	// KindLogistic: ell(z, y) = log(1 + exp(-y z)), y in {-1, +1},
	// R(x) = (lambda/2)||x||^2.
	KindLogistic = "logistic"
	// KindNonconvex: the Cauchy loss ell(z, b) = (c^2/2) log(1 + ((z -
	// b)/c)^2) and the saturating R(x) = lambda sum_j x_j^2/(1+x_j^2).
	KindNonconvex = "nonconvex_regression"
)

// loss is a per-row loss ell(z, b) of the margin z = a_k^T x against the
// target b, with its first two derivatives in z.
type loss interface {
	value(z, b float64) float64
	deriv(z, b float64) float64
	curv(z, b float64) float64
	// maxCurv bounds |d^2 ell/dz^2| over all z, b.
	maxCurv() float64
}

// squared is ell(z, b) = (z - b)^2 / 2.
type squared struct{}

func (squared) value(z, b float64) float64 { r := z - b; return r * r / 2 }
func (squared) deriv(z, b float64) float64 { return z - b }
func (squared) curv(z, b float64) float64  { return 1 }
func (squared) maxCurv() float64           { return 1 }

// logLoss is ell(z, y) = log(1 + exp(-y z)) for a label y in {-1, +1}.
type logLoss struct{}

// softplus returns log(1 + exp(t)) without overflow or cancellation.
func softplus(t float64) float64 {
	if t > 0 {
		return t + math.Log1p(math.Exp(-t))
	}
	return math.Log1p(math.Exp(t))
}

// sigmoid returns 1/(1 + exp(-t)) without overflow. It uses the portable
// exp of this package, so the logistic gradient has the same bits on every
// architecture.
func sigmoid(t float64) float64 {
	if t >= 0 {
		return 1 / (1 + exp(-t))
	}
	e := exp(t)
	return e / (1 + e)
}

func (logLoss) value(z, y float64) float64 { return softplus(-y * z) }

// deriv is -y sigmoid(-y z).
func (logLoss) deriv(z, y float64) float64 { return -y * sigmoid(-y*z) }

// curv is sigmoid(z)(1 - sigmoid(z)) (y^2 = 1).
func (logLoss) curv(z, y float64) float64 { s := sigmoid(z); return s * (1 - s) }
func (logLoss) maxCurv() float64          { return 0.25 }

// cauchy is ell(z, b) = phi(z - b) with phi(r) = (c^2/2) log(1 + (r/c)^2).
// phi'(r) = r/(1 + (r/c)^2) and phi”(r) = (1 - (r/c)^2)/(1 + (r/c)^2)^2
// lies in [-1/8, 1], so |phi”| <= 1.
type cauchy struct{ c float64 }

func (l cauchy) value(z, b float64) float64 {
	u := (z - b) / l.c
	return l.c * l.c / 2 * math.Log1p(u*u)
}

func (l cauchy) deriv(z, b float64) float64 {
	r := z - b
	u := r / l.c
	return r / (1 + float64(u*u))
}

func (l cauchy) curv(z, b float64) float64 {
	u := (z - b) / l.c
	u2 := float64(u * u)
	return (1 - u2) / ((1 + u2) * (1 + u2))
}

func (cauchy) maxCurv() float64 { return 1 }

// regularizer is a separable R(x) = lambda sum_j r(x_j).
type regularizer interface {
	value(x []float64) float64
	// addGrad adds grad R(x) to g.
	addGrad(x, g []float64)
	// curv returns d^2 R / dx_j^2 at x_j.
	curv(xj float64) float64
	// lipschitz bounds |d^2 R / dx_j^2|, hence the Lipschitz constant of
	// grad R.
	lipschitz() float64
}

// ridge is R(x) = (lambda/2) ||x||^2.
type ridge struct{ lambda float64 }

func (r ridge) value(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += float64(v * v)
	}
	return r.lambda / 2 * s
}

func (r ridge) addGrad(x, g []float64) {
	if r.lambda == 0 {
		return
	}
	for j, v := range x {
		g[j] += float64(r.lambda * v)
	}
}

func (r ridge) curv(float64) float64 { return r.lambda }
func (r ridge) lipschitz() float64   { return r.lambda }

// saturating is R(x) = lambda sum_j x_j^2/(1 + x_j^2), a nonconvex penalty
// with r'(t) = 2t/(1+t^2)^2 and r”(t) = (2 - 6t^2)/(1+t^2)^3 in [-1/2, 2].
type saturating struct{ lambda float64 }

func (r saturating) value(x []float64) float64 {
	var s float64
	for _, v := range x {
		v2 := float64(v * v)
		s += v2 / (1 + v2)
	}
	return r.lambda * s
}

func (r saturating) addGrad(x, g []float64) {
	if r.lambda == 0 {
		return
	}
	for j, v := range x {
		d := 1 + float64(v*v)
		g[j] += r.lambda * 2 * v / (d * d)
	}
}

func (r saturating) curv(t float64) float64 {
	d := 1 + float64(t*t)
	return r.lambda * (2 - float64(6*t*t)) / (d * d * d)
}

func (r saturating) lipschitz() float64 { return 2 * r.lambda }
