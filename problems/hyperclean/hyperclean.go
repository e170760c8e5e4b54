package hyperclean

import (
	"math"

	"github.com/consim/consim/problems/bilevel"
)

// sigmoid returns 1/(1 + exp(-t)).
func sigmoid(t float64) float64 {
	if t >= 0 {
		return 1 / (1 + math.Exp(-t))
	}
	e := math.Exp(t)
	return e / (1 + e)
}

// WeightedLoss is the lower-level data term of hyper-cleaning on a block
// of training samples,
//
//	G(x, y) = sum_k sigma(x_k) CE(W a_k, l_k),   y = vec(W),
//
// with sigma the logistic function and CE the softmax cross entropy; its
// gradients are
//
//	grad_{x_k} G = sigma(x_k)(1 - sigma(x_k)) CE_k,
//	grad_W G     = (diag(sigma(x)) (P - E))^T A,
//
// P the softmax probabilities and E the one-hot labels. It is not safe for
// concurrent use.
type WeightedLoss struct {
	set     *Set
	z, r    []float64 // residuals P - E of the cached model, and their weighted copy
	wt, gt  []float64
	ce, sig []float64
	yc      []float64 // the model whose residuals z and losses ce are cached
	cached  bool
	// Forwards counts the forward passes actually computed (cache misses).
	Forwards int64
}

// NewWeightedLoss returns the weighted loss on set (labels as given, i.e.
// possibly corrupted).
func NewWeightedLoss(set *Set) *WeightedLoss {
	n, d := set.Len(), set.ModelDim()
	c := set.Classes
	return &WeightedLoss{
		set: set, z: make([]float64, n*c), r: make([]float64, n*c), wt: make([]float64, d), gt: make([]float64, d),
		ce: make([]float64, n), sig: make([]float64, n), yc: make([]float64, d),
	}
}

// Value returns G(x, y).
func (w *WeightedLoss) Value(x, y []float64) float64 { return w.ValueGrad(x, y, nil, nil) }

// Grad writes the wanted gradients of G.
func (w *WeightedLoss) Grad(x, y, gx, gy []float64) { w.ValueGrad(x, y, gx, gy) }

// ValueGrad returns G(x, y) and writes the wanted gradients. The losses
// CE_k and residuals of the last model y are cached: only sigma(x) changes
// between calls at the same y (TSP evaluates g at (x^r, y^{r+1}) and then
// at (x^{r+1}, y^{r+1})), so such a call skips the forward pass. The
// result is the same bits either way.
func (w *WeightedLoss) ValueGrad(x, y, gx, gy []float64) float64 {
	s := w.set
	if !w.cached || !equal(w.yc, y) {
		softmaxCE(s, y, w.wt, w.z, w.ce)
		copy(w.yc, y)
		w.cached = true
		w.Forwards++
	}
	var v float64
	for k, c := range w.ce {
		w.sig[k] = sigmoid(x[k])
		v += w.sig[k] * c
	}
	for k := range gx {
		gx[k] = w.sig[k] * (1 - w.sig[k]) * w.ce[k]
	}
	if gy != nil {
		c := s.Classes
		for k, sg := range w.sig {
			src, dst := w.z[k*c:(k+1)*c], w.r[k*c:(k+1)*c]
			for i := range dst {
				dst[i] = sg * src[i]
			}
		}
		gradModel(s, w.r, w.gt, gy)
	}
	return v
}

// equal reports whether a and b hold the same values.
func equal(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// MeanLoss is the upper-level loss of hyper-cleaning, the mean validation
// cross entropy
//
//	F(y) = (1/n) sum_k CE(W a_k, l_k),   grad_W F = (1/n) (P - E)^T A.
//
// It does not depend on x: gx is zeroed. It is not safe for concurrent use.
type MeanLoss struct {
	set       *Set
	z, wt, gt []float64
	ce        []float64
}

// NewMeanLoss returns the mean cross entropy on set.
func NewMeanLoss(set *Set) *MeanLoss {
	d := set.ModelDim()
	return &MeanLoss{set: set, z: make([]float64, set.Len()*set.Classes),
		wt: make([]float64, d), gt: make([]float64, d), ce: make([]float64, set.Len())}
}

// Value returns F(y).
func (m *MeanLoss) Value(_, y []float64) float64 { return m.ValueGrad(nil, y, nil, nil) }

// Grad writes grad_x F = 0 and grad_y F.
func (m *MeanLoss) Grad(x, y, gx, gy []float64) {
	clear(gx)
	if gy != nil {
		m.ValueGrad(x, y, nil, gy)
	}
}

// ValueGrad returns F(y) and writes grad_y F into gy when it is non-nil.
func (m *MeanLoss) ValueGrad(_, y, gx, gy []float64) float64 {
	clear(gx)
	s := m.set
	softmaxCE(s, y, m.wt, m.z, m.ce)
	var v float64
	for _, c := range m.ce {
		v += c
	}
	inv := 1 / float64(s.Len())
	if gy != nil {
		gradModel(s, m.z, m.gt, gy)
		for i := range gy {
			gy[i] *= inv
		}
	}
	return v * inv
}

// Regularizer is the nonconvex lower-level regularizer
//
//	R(y) = rho_bar sum_j y_j^2 / (1 + y_j^2),  dR/dy_j = 2 rho_bar y_j / (1 + y_j^2)^2.
//
// It does not depend on x.
type Regularizer struct{ RhoBar float64 }

// Value returns R(y).
func (r Regularizer) Value(_, y []float64) float64 { return r.ValueGrad(nil, y, nil, nil) }

// Grad writes grad_y R (and zeroes gx).
func (r Regularizer) Grad(x, y, gx, gy []float64) { r.ValueGrad(x, y, gx, gy) }

// ValueGrad returns R(y) and writes its gradient.
func (r Regularizer) ValueGrad(_, y, gx, gy []float64) float64 {
	clear(gx)
	var v float64
	for j, t := range y {
		q := 1 + t*t
		v += t * t / q
		if gy != nil {
			gy[j] = 2 * r.RhoBar * t / (q * q)
		}
	}
	return r.RhoBar * v
}

// HyperCleaning is the data hyper-cleaning problem (the paper's eq. 19):
//
//	min_{x in R^m, y}  (1/n_val) sum_{val} CE(W a, l)
//	s.t. y in argmin_{y'} sum_{i=1}^m sigma(x_i) CE(W' a_i, l~_i) + rho_bar sum_j y'_j^2/(1 + y'_j^2),
//
// on a training set with corrupted labels l~ (Clean[i] tells whether
// l~_i is the true label), a validation set and a test set.
type HyperCleaning struct {
	Train, Val, Test *Set
	// Clean[i] is true when training label i was left uncorrupted.
	Clean  []bool
	RhoBar float64
	// TrainIndex[i] and ValIndex[i] are the MNIST training images of
	// training and validation sample i (0-based).
	TrainIndex, ValIndex []int
}

// Split returns the problem as a Split with the training set cut into k
// contiguous blocks of sizes differing by at most one (block b holds
// samples b*m/k .. (b+1)*m/k - 1).
func (h *HyperCleaning) Split(k int) *bilevel.Split {
	m := h.Train.Len()
	k = max(1, min(k, m))
	s := &bilevel.Split{NY: h.Train.ModelDim(), F0: NewMeanLoss(h.Val), G0: Regularizer{RhoBar: h.RhoBar}}
	for b := range k {
		lo, hi := b*m/k, (b+1)*m/k
		s.Tasks = append(s.Tasks, NewWeightedLoss(h.Train.rows(lo, hi)))
		s.NX = append(s.NX, hi-lo)
	}
	return s
}

// Bilevel returns the problem as one Bilevel (a Split with a single task).
// Every call builds fresh oracles (their scratch space and caches are not
// shared).
func (h *HyperCleaning) Bilevel() (bilevel.Bilevel, error) {
	return h.Split(1).Join()
}

// Measure returns the test accuracy of the model y and the F1 score of the
// clean-sample detection x_i >= 0.
func (h *HyperCleaning) Measure(x, y []float64) (acc, f1 float64, err error) {
	if acc, err = Accuracy(h.Test, y); err != nil {
		return 0, 0, err
	}
	if f1, err = F1(x, h.Clean); err != nil {
		return 0, 0, err
	}
	return acc, f1, nil
}
