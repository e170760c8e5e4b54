package admm

import (
	"math/rand/v2"

	"github.com/consim/consim/problems/portfolio"
)

// The baselines solve the same problem min_x F(x) + R(x) (the ADMM's
// problem with the constraint x = w eliminated). None of them has a dual
// variable; R enters through its proximal map, x <- prox_{eta R}(x - eta v),
// which for R = (mu/2)||x||^2 is (x - eta v)/(1 + eta mu). R costs no
// oracle call.

// ComSVRG1 is Compositional-SVRG-1 of Lian, Wang and Liu (2017): the
// estimator of com-SVR-ADMM (eq. 8 with g_hat of eq. 9) in a proximal
// gradient step. Outer iteration:
//
//	x~ = x^0; g(x~), grad F(x~)                                  (2m + n queries)
//	for k = 0..K-1:  g_hat (2N queries), v (4 queries),
//	                 x^{k+1} = prox_{eta R}(x^k - eta v)
//	x~ <- x^K (the last inner iterate)
//
// so one outer iteration costs 2m + n + K(2N + 4) oracle calls, the same as
// com-SVR-ADMM with the same K and N.
type ComSVRG1 struct {
	c   *OracleCounter
	reg Regularizer
	prm Params
	x   []float64
	est *Estimator
}

// NewComSVRG1 starts com-SVRG-1 at x0. prm.Rho is ignored.
func NewComSVRG1(p portfolio.Composition, reg Regularizer, x0 []float64, prm Params) (*ComSVRG1, error) {
	if err := prm.validate(false, true); err != nil {
		return nil, err
	}
	c, err := checkStart(p, reg, x0)
	if err != nil {
		return nil, err
	}
	return &ComSVRG1{c: c, reg: reg, prm: prm, x: append([]float64(nil), x0...), est: NewEstimator(c)}, nil
}

// Name returns "com-SVRG-1".
func (m *ComSVRG1) Name() string { return "com-SVRG-1" }

// Oracle returns the query counter.
func (m *ComSVRG1) Oracle() *OracleCounter { return m.c }

// Point returns x~, the last inner iterate.
func (m *ComSVRG1) Point() []float64 { return m.x }

// Epoch runs one outer iteration.
func (m *ComSVRG1) Epoch(rng *rand.Rand) {
	eta := m.prm.Eta
	m.est.Snapshot(m.x)
	for range m.prm.K {
		axpy(m.x, -eta, m.est.Estimate(rng, m.prm.Batch, m.x))
		m.reg.Prox(eta, m.x, m.x)
	}
}

// ComSVRG2 is Compositional-SVRG-2 of Lian, Wang and Liu (2017): besides
// g_hat it estimates the Jacobian by a second mini-batch,
//
//	dg_hat(x) = dg(x~) - (1/N) sum_{b=1}^N [ dg_{l_b}(x~) - dg_{l_b}(x) ],
//	v = (dg_hat(x))^T grad f_i(g_hat) - (dg(x~))^T grad f_i(g(x~)) + grad F(x~),
//
// with dg(x~) = (1/m) sum_j dg_j(x~) stored at the snapshot: as a dense
// r x d matrix, or as [I_d; (1/m) sum_j B_j(x~)] when the problem's
// Jacobians are [I_d; B_j(x)] (IdentityStackedJacobian, as the portfolio
// problem's), which gives the same values (see jacT) at O((r - d) d)
// per query and per product instead of O(r d). Outer iteration:
//
//	g(x~) (m queries), dg(x~) (m queries), (1/n) sum_i grad f_i(g(x~))
//	(n queries), grad F(x~) = dg(x~)^T of it (no query)        (2m + n)
//	for k = 0..K-1:  g_hat (2N), dg_hat^T a as 2N products (2N),
//	                 grad f_i at g_hat and g(x~) (2),
//	                 x^{k+1} = prox_{eta R}(x^k - eta v)
//	x~ <- x^K
//
// so one outer iteration costs 2m + n + K(4N + 2) oracle calls.
type ComSVRG2 struct {
	c   *OracleCounter
	reg Regularizer
	prm Params
	x   []float64
	est *Estimator // its snapshot is set by Epoch, only g_hat is used
	// dg(x~): the dense r x d matrix, row-major; or, when the problem
	// implements IdentityStackedJacobian (stacked), diag I_d over the
	// (r - d) x d rows of (1/m) sum_j B_j(x~) in jac, with diag = (1/m)
	// sum_j 1 (1 up to rounding, computed as the dense mean would).
	jac     []float64
	jtmp    []float64
	stacked bool
	diag    float64
	v       []float64
	// Scratch: r1, r2, r3 of length r, d1 of length d.
	r1, r2, r3, d1 []float64
}

// NewComSVRG2 starts com-SVRG-2 at x0. prm.Rho is ignored.
func NewComSVRG2(p portfolio.Composition, reg Regularizer, x0 []float64, prm Params) (*ComSVRG2, error) {
	if err := prm.validate(false, true); err != nil {
		return nil, err
	}
	c, err := checkStart(p, reg, x0)
	if err != nil {
		return nil, err
	}
	d := p.Dims()
	_, stacked := p.(portfolio.IdentityStackedJacobian)
	stacked = stacked && d.R >= d.D
	rows := d.R
	if stacked {
		rows = d.R - d.D
	}
	m := &ComSVRG2{
		c: c, reg: reg, prm: prm, x: append([]float64(nil), x0...),
		est: NewEstimator(c), stacked: stacked,
		jac: make([]float64, rows*d.D), jtmp: make([]float64, rows*d.D),
		v:  make([]float64, d.D),
		r1: make([]float64, d.R), r2: make([]float64, d.R), r3: make([]float64, d.R),
		d1: make([]float64, d.D),
	}
	return m, nil
}

// Name returns "com-SVRG-2".
func (m *ComSVRG2) Name() string { return "com-SVRG-2" }

// Oracle returns the query counter.
func (m *ComSVRG2) Oracle() *OracleCounter { return m.c }

// Point returns x~, the last inner iterate.
func (m *ComSVRG2) Point() []float64 { return m.x }

// jacT writes (dg(x~))^T a into dst from the stored Jacobian: the dense
// sum over its r rows, or, stacked, diag a_{1..d} + sum_{row} a_{d+row}
// B_row with the rows in the same order as the dense sum (whose other
// terms are the zeros of the identity block).
func (m *ComSVRG2) jacT(a, dst []float64) {
	d := m.c.P.Dims()
	if !m.stacked {
		clear(dst)
		for row := range d.R {
			axpy(dst, a[row], m.jac[row*d.D:(row+1)*d.D])
		}
		return
	}
	for k := range dst {
		dst[k] = float64(a[k] * m.diag)
	}
	for row := range d.R - d.D {
		axpy(dst, a[d.D+row], m.jac[row*d.D:(row+1)*d.D])
	}
}

// snapshotJacobian sets dg(x~) = (1/m) sum_j dg_j(x~) at x~ = x, one
// Jacobian query per j.
func (m *ComSVRG2) snapshotJacobian(x []float64) {
	d := m.c.P.Dims()
	clear(m.jac)
	m.diag = 0
	for j := range d.M {
		if m.stacked {
			m.c.InnerJacobianTail(j, x, m.jtmp)
			m.diag++
		} else {
			m.c.InnerJacobian(j, x, m.jtmp)
		}
		axpy(m.jac, 1, m.jtmp)
	}
	inv := 1 / float64(d.M)
	scale(m.jac, inv)
	m.diag *= inv
}

// Epoch runs one outer iteration.
func (m *ComSVRG2) Epoch(rng *rand.Rand) {
	d := m.c.P.Dims()
	eta, batch := m.prm.Eta, m.prm.Batch
	s := m.est

	s.SnapshotInner(m.x)
	m.snapshotJacobian(s.X)
	m.c.OuterGradMean(s.G, m.r3)
	m.jacT(m.r3, s.Grad)

	inv := 1 / float64(batch)
	for range m.prm.K {
		ghat := s.InnerEstimate(rng, batch, m.x)
		i := rng.IntN(d.N)
		// a = grad f_i(g_hat) and grad f_i(g(x~))
		m.c.OuterGradPair(i, ghat, s.G, m.r1, m.r2)
		// v = dg(x~)^T (a - grad f_i(g(x~))) + grad F(x~)
		//     - (1/N) sum_b [dg_{l_b}(x~) - dg_{l_b}(x)]^T a
		for k := range m.r3 {
			m.r3[k] = m.r1[k] - m.r2[k]
		}
		m.jacT(m.r3, m.v)
		axpy(m.v, 1, s.Grad)
		for range batch {
			l := rng.IntN(d.M)
			m.c.InnerJacTDiff(l, s.X, m.x, m.r1, m.d1)
			for k, dk := range m.d1 {
				m.v[k] -= float64(inv * dk)
			}
		}
		axpy(m.x, -eta, m.v)
		m.reg.Prox(eta, m.x, m.x)
	}
}

// SGD is stochastic gradient descent with an exact inner function, as in
// the paper's experiments: every step enumerates all of g to evaluate g(x)
// (m queries) and dg(x) (m queries), samples i uniformly and steps along
// v = (dg(x))^T grad f_i(g(x)) (1 query):
//
//	x <- prox_{eta R}(x - eta v),
//
// 2m + 1 oracle calls per step, K steps per epoch, constant eta.
type SGD struct {
	c   *OracleCounter
	reg Regularizer
	prm Params
	x   []float64
	gx  []float64
	u   []float64
	v   []float64
}

// NewSGD starts SGD at x0. prm.Rho and prm.Batch are ignored.
func NewSGD(p portfolio.Composition, reg Regularizer, x0 []float64, prm Params) (*SGD, error) {
	if err := prm.validate(false, false); err != nil {
		return nil, err
	}
	c, err := checkStart(p, reg, x0)
	if err != nil {
		return nil, err
	}
	d := p.Dims()
	return &SGD{
		c: c, reg: reg, prm: prm, x: append([]float64(nil), x0...),
		gx: make([]float64, d.R), u: make([]float64, d.R), v: make([]float64, d.D),
	}, nil
}

// Name returns "SGD".
func (m *SGD) Name() string { return "SGD" }

// Oracle returns the query counter.
func (m *SGD) Oracle() *OracleCounter { return m.c }

// Point returns the last iterate.
func (m *SGD) Point() []float64 { return m.x }

// Epoch runs K stochastic steps.
func (m *SGD) Epoch(rng *rand.Rand) {
	n := m.c.P.Dims().N
	for range m.prm.K {
		m.c.InnerMean(m.x, m.gx)
		m.c.OuterGrad(rng.IntN(n), m.gx, m.u)
		m.c.JacTMean(m.x, m.u, m.v)
		axpy(m.x, -m.prm.Eta, m.v)
		m.reg.Prox(m.prm.Eta, m.x, m.x)
	}
}
