package constrlogistic

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Logistic is the finite-sum logistic loss of (43) in the variable
// x = (w, b) in R^{n+1}:
//
//	fbar(w, b) = (1/s) sum_i f_i(w, b),  f_i = log(1 + exp(-y_i (w^T a_i + b))),
//
// which equals the paper's -[(1+y)/2 log sigma(t) + (1-y)/2 log(1 - sigma(t))]
// for labels y_i in {-1, +1}. grad f_i = -y_i sigma(-y_i t_i) (a_i, 1) and
// L_i = (||a_i||^2 + 1)/4.
type Logistic struct {
	A   Sparse    // rows a_i in R^n
	Y   []float64 // labels +-1
	lip []float64
}

// NewLogistic builds the loss from the data matrix x (s rows, n features)
// and labels y in {-1, +1}.
func NewLogistic(x mat.Matrix, y []float64) (*Logistic, error) {
	return NewLogisticSparse(NewSparse(x), y)
}

// NewLogisticSparse is NewLogistic for data already in sparse form.
func NewLogisticSparse(a Sparse, y []float64) (*Logistic, error) {
	if a.Rows() != len(y) || len(y) == 0 {
		return nil, fmt.Errorf("constrlogistic: logistic: %d rows, %d labels", a.Rows(), len(y))
	}
	for i, v := range y {
		if v != 1 && v != -1 {
			return nil, fmt.Errorf("constrlogistic: logistic: label %d is %g, want -1 or +1", i, v)
		}
	}
	l := &Logistic{A: a, Y: y, lip: make([]float64, len(y))}
	for i := range y {
		l.lip[i] = (a.RowNormSq(i) + 1) / 4
	}
	return l, nil
}

// Slice returns the components lo..hi-1 as a Logistic sharing l's data: a
// data shard.
func (l *Logistic) Slice(lo, hi int) *Logistic {
	return &Logistic{A: l.A.Slice(lo, hi), Y: l.Y[lo:hi], lip: l.lip[lo:hi]}
}

// Dim implements FiniteSum: n + 1.
func (l *Logistic) Dim() int { return l.A.Cols + 1 }

// Len implements FiniteSum.
func (l *Logistic) Len() int { return len(l.Y) }

// Lip implements FiniteSum.
func (l *Logistic) Lip(i int) float64 { return l.lip[i] }

// margin returns t_i = w^T a_i + b.
func (l *Logistic) margin(i int, x []float64) float64 {
	return l.A.Dot(i, x) + x[l.A.Cols]
}

// log1pExp returns log(1 + e^z) without overflow.
func log1pExp(z float64) float64 {
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}

// sigmoid returns 1/(1 + e^{-z}) without overflow.
func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// Value implements FiniteSum.
func (l *Logistic) Value(x []float64) float64 {
	var s float64
	for i, y := range l.Y {
		s += log1pExp(-y * l.margin(i, x))
	}
	return s / float64(len(l.Y))
}

// AddGrad implements FiniteSum.
func (l *Logistic) AddGrad(i int, x []float64, scale float64, g []float64) {
	y := l.Y[i]
	d := -y * sigmoid(-y*l.margin(i, x)) * scale
	l.A.AddRow(i, d, g)
	g[l.A.Cols] += d
}

// SumGrad adds sum_i grad f_i(x) (not divided by s), summed in index order,
// to g.
func (l *Logistic) SumGrad(x, g []float64) {
	for i := range l.Y {
		l.AddGrad(i, x, 1, g)
	}
}

// Smoothness returns lambda_max((1/s) sum_i (a_i,1)(a_i,1)^T)/4, a
// Lipschitz constant of grad fbar no larger than MeanLip (the bound of (20)),
// since the logistic curvature sigma'(t) is at most 1/4.
func (l *Logistic) Smoothness() float64 {
	n := l.Dim()
	h := make([]float64, n*n) // upper triangle of sum_i (a_i,1)(a_i,1)^T
	a := &l.A
	for i := range l.Y {
		for p := a.Ptr[i]; p < a.Ptr[i+1]; p++ {
			r, vr := a.Idx[p], a.Val[p]
			for q := p; q < a.Ptr[i+1]; q++ {
				h[r*n+a.Idx[q]] += vr * a.Val[q]
			}
			h[r*n+n-1] += vr
		}
		h[n*n-1]++
	}
	sym := mat.NewSymDense(n, h)
	var eig mat.EigenSym
	if !eig.Factorize(sym, false) {
		return MeanLip(l)
	}
	v := eig.Values(nil)
	return v[len(v)-1] / float64(len(l.Y)) / 4
}

// AddHess adds scale * hess fbar(x) = (scale/s) sum_i sigma'(t_i) (a_i,1)(a_i,1)^T
// to h, a dense row-major (n+1) x (n+1) matrix; both triangles are
// written.
func (l *Logistic) AddHess(x []float64, scale float64, h []float64) {
	n := l.Dim()
	a := &l.A
	w := scale / float64(len(l.Y))
	for i := range l.Y {
		sg := sigmoid(l.margin(i, x))
		d := w * sg * (1 - sg)
		if d == 0 {
			continue
		}
		for p := a.Ptr[i]; p < a.Ptr[i+1]; p++ {
			r, vr := a.Idx[p], d*a.Val[p]
			for q := a.Ptr[i]; q < a.Ptr[i+1]; q++ {
				h[r*n+a.Idx[q]] += vr * a.Val[q]
			}
			h[r*n+n-1] += vr
			h[(n-1)*n+r] += vr
		}
		h[n*n-1] += d
	}
}
