package zosplm

import (
	"fmt"
	"math"

	"github.com/consim/consim/objective"
)

// SPLMParams are the parameters of Algorithm 1 (ZO-SPLM).
type SPLMParams struct {
	// C is the primal step c; the analysis needs c <= 1/L_L with
	// L_L = L_f + B sqrt(m sum_j L_hj^2) + p.
	C float64
	// Alpha is the dual step alpha.
	Alpha float64
	// Beta is the proximal averaging weight beta in (0, 1].
	Beta float64
	// P is the proximal parameter p; the analysis needs p > L_f.
	P float64
	// B is the bound of the dual box [0, B]^m.
	B float64
	// Y0 is every component of y^0 (in [0, B]).
	Y0 float64
	// Estimator is the gradient estimator of eq. (3).
	Estimator Estimator
}

// LfRule is the default estimate of L_f for the NC-QCQP of n variables:
// lambda_max(M^T M) of an n x n standard Gaussian M is about (2 sqrt n)^2 =
// 4n (the notes' correction); the methods see values only, so their
// default rules use n, not the instance.
func LfRule(n int) float64 { return 4 * float64(n) }

// DefaultSPLMParams is the documented default rule for n variables, with
// L = LfRule(n) = 4n:
//
//	p = 1.2 L              (p > L_f, as the analysis needs)
//	c = 1/(L + p)          (c <= 1/L_L at y = 0: the proximal Lagrangian's
//	                        smoothness in x is L_f + y L_h + p)
//	alpha = 10 c, beta = 1, B = 100, y0 = 0,
//
// and DefaultEstimator (k = 10,000, sphere, r = 1e-5). The paper reports no
// step sizes and its theory constants are not computable; within these
// two conditions the values were chosen by a sweep at n = 50 (fewest
// iterations to eps = 1; see the package report). Steps beyond
// c = 1/(L + p) or p < L_f reach eps faster still, outside the analysis.
func DefaultSPLMParams(n int) SPLMParams {
	L := LfRule(n)
	p := 1.2 * L
	c := 1 / (L + p)
	return SPLMParams{C: c, Alpha: 10 * c, Beta: 1, P: p, B: 100, Estimator: DefaultEstimator()}
}

// Validate checks that every parameter is finite and in range: c, alpha,
// p, B > 0, beta in (0, 1], y0 in [0, B], and the estimator.
func (p SPLMParams) Validate() error {
	for _, v := range []struct {
		name string
		v    float64
	}{{"c", p.C}, {"alpha", p.Alpha}, {"p", p.P}, {"B", p.B}} {
		if !(v.v > 0) || math.IsInf(v.v, 0) {
			return fmt.Errorf("zosplm: %s = %g, want 0 < %s < inf", v.name, v.v, v.name)
		}
	}
	if !(p.Beta > 0 && p.Beta <= 1) {
		return fmt.Errorf("zosplm: beta = %g, want 0 < beta <= 1", p.Beta)
	}
	if !(p.Y0 >= 0 && p.Y0 <= p.B) {
		return fmt.Errorf("zosplm: y0 = %g, want 0 <= y0 <= B = %g", p.Y0, p.B)
	}
	return p.Estimator.Validate()
}

// Server is the server agent of ZO-SPLM: it owns (x, z, y) and runs
// Algorithm 1, asking the oracle workers for its k + 1 evaluations per
// iteration. Round t:
//
//	phase 0: [f, h](x_t) -> y_t = proj_[0,B](y_{t-1} + alpha h(x_t))   (t >= 1)
//	phase 1: S_f, S_h (and S_p) at x_t ->
//	         G_t = (n/(r k)) (S_f + sum_j y_tj S_hj + p S_p)          (eq. 3)
//	         (or + p (x_t - z_t) exactly, Estimator.ExactProx)
//	         x_{t+1} = proj_X(x_t - c G_t)
//	         z_{t+1} = z_t + beta (x_{t+1} - z_t)
//
// This is Algorithm 1 with the dual update of iteration t - 1 done when
// h(x_t) arrives, as the base value of iteration t; after round t the
// server holds (x_{t+1}, z_{t+1}, y_t), the pair (x^{t+1}, y^t) of the
// paper's stationarity argument (appendix C).
type Server struct {
	*core
	prm     SPLMParams
	x, z, y []float64
	w       []float64
}

var _ Method = (*Server)(nil)

// NewServer returns the ZO-SPLM server with id, feasible box X, m
// constraints, x^0 = z^0 = x0 (copied, in X), y^0 = Y0 and the run seed
// (the key of its directions).
func NewServer(id int, box objective.Box, m int, x0 []float64, prm SPLMParams, seed uint64) (*Server, error) {
	if err := prm.Validate(); err != nil {
		return nil, err
	}
	if err := checkX0(x0, box); err != nil {
		return nil, err
	}
	c, err := newCore(id, len(x0), m, box, prm.Estimator, seed)
	if err != nil {
		return nil, err
	}
	s := &Server{core: c, prm: prm, x: append([]float64(nil), x0...), z: append([]float64(nil), x0...),
		y: make([]float64, m), w: make([]float64, len(x0))}
	for j := range s.y {
		s.y[j] = prm.Y0
	}
	c.meth = s
	c.dualSq = func() float64 { return sumSq(s.y) }
	return s, nil
}

// Name implements Method.
func (s *Server) Name() string { return "ZO-SPLM" }

// X implements Method: x_{t+1} after round t.
func (s *Server) X() []float64 { return s.x }

// Z is the proximal center z_{t+1} after round t.
func (s *Server) Z() []float64 { return s.z }

// Y is the multiplier y_t after round t.
func (s *Server) Y() []float64 { return s.y }

// MeasureDual implements Method: y_t, the multiplier the paper pairs with
// x_{t+1}.
func (s *Server) MeasureDual(_, y []float64) { copy(y, s.y) }

func (s *Server) point() []float64 { return s.x }

func (s *Server) values(t int, v []float64) error {
	if t == 0 {
		return nil
	}
	for j := range s.y {
		s.y[j] = clip(s.y[j]+s.prm.Alpha*v[1+j], 0, s.prm.B)
	}
	return nil
}

func (s *Server) spec() (int, []float64, []float64) {
	if s.prm.Estimator.ExactProx {
		return OpSums, nil, nil
	}
	for i := range s.w {
		s.w[i] = s.x[i] - s.z[i]
	}
	return OpSums, nil, s.w
}

func (s *Server) step(_ int, g []float64) error {
	n, m := s.n, s.m
	c, p := s.prm.C, s.prm.P
	for i := range n {
		gi := g[i]
		for j := range m {
			gi += s.y[j] * g[(1+j)*n+i]
		}
		if s.prm.Estimator.ExactProx {
			gi += p * (s.x[i] - s.z[i])
		} else {
			gi += p * g[(1+m)*n+i]
		}
		s.x[i] -= c * gi
	}
	s.project(s.x)
	for i := range n {
		s.z[i] += s.prm.Beta * (s.x[i] - s.z[i])
	}
	return nil
}
