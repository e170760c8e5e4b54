package almstorm

import (
	"fmt"
	"math/rand/v2"

	"github.com/consim/consim/objective"
)

// Estimator is the STORM gradient estimator of Algorithm 3 for one agent's
// objective f_i, as a objective.Local whose StochGrad returns the estimate
// d_t instead of a plain stochastic gradient. Its caller (alm's agent or
// reference) calls StochGrad exactly once per round, at x_t, with the
// agent's sample stream of round t:
//
//	round 0:  d_0 = (1/N_0) sum_{k<N_0} G(x_0; xi_{0,k})       (N_0 draws of the stream),
//	round t:  d_t = G(x_t; xi_t) + (1 - alpha)(d_{t-1} - G(x_{t-1}; xi_t)),
//
// where G is f_i's own StochGrad and the single fresh sample xi_t is
// evaluated at both points: the estimator draws two words from the
// round's stream, seeds a PCG with them, evaluates G at x_t, re-seeds the
// PCG identically and evaluates G at x_{t-1}. The counts it returns are
// the component samples used: N_0 b at round 0, 2b per later round (b
// the minibatch of G). With alpha = 1 the correction vanishes and d_t is
// G(x_t) from the round's stream itself (b samples), so ALM-STORM with
// alpha = 1 and N_0 = 1 is the ALM draw for draw.
//
// An Estimator holds state between rounds; it belongs to one agent (or to
// one block of a reference) and is not safe for concurrent use. Value,
// Grad and Smoothness are f_i's.
type Estimator struct {
	f     objective.Local
	alpha float64
	n0    int

	started bool
	d       []float64 // d_{t-1}, then d_t
	xPrev   []float64 // x_{t-1}
	gOld    []float64 // scratch: G(x_{t-1}; xi_t)
	pcg     rand.PCG
	rng     *rand.Rand
}

var _ objective.Local = (*Estimator)(nil)

// NewEstimator returns the STORM estimator of f with momentum weight
// alpha in (0, 1] and initial minibatch N_0 >= 1.
func NewEstimator(f objective.Local, alpha float64, n0 int) (*Estimator, error) {
	switch {
	case f == nil:
		return nil, fmt.Errorf("almstorm: estimator: nil objective")
	case !(alpha > 0 && alpha <= 1):
		return nil, fmt.Errorf("almstorm: estimator: alpha = %v: must be in (0, 1]", alpha)
	case n0 < 1:
		return nil, fmt.Errorf("almstorm: estimator: N_0 = %d: must be at least 1", n0)
	}
	n := f.Dim()
	e := &Estimator{f: f, alpha: alpha, n0: n0, d: make([]float64, n), xPrev: make([]float64, n), gOld: make([]float64, n)}
	e.rng = rand.New(&e.pcg)
	return e, nil
}

// Dim is f_i's dimension.
func (e *Estimator) Dim() int { return e.f.Dim() }

// Value returns f_i(x).
func (e *Estimator) Value(x []float64) float64 { return e.f.Value(x) }

// Grad writes grad f_i(x) into g (the full gradient, for measures).
func (e *Estimator) Grad(x, g []float64) { e.f.Grad(x, g) }

// Smoothness returns L_i.
func (e *Estimator) Smoothness() float64 { return e.f.Smoothness() }

// StochGrad writes d_t into g (see Estimator) for the call's x = x_t and
// returns the number of component samples it drew.
func (e *Estimator) StochGrad(x, g []float64, rng *rand.Rand) int {
	n := len(e.d)
	g = g[:n]
	var used int
	switch {
	case !e.started:
		clear(e.d)
		for range e.n0 {
			used += e.f.StochGrad(x, g, rng)
			for l := range e.d {
				e.d[l] += g[l]
			}
		}
		inv := 1 / float64(e.n0)
		for l := range e.d {
			e.d[l] *= inv
		}
		e.started = true
	case e.alpha == 1:
		used = e.f.StochGrad(x, e.d, rng)
	default:
		s0, s1 := rng.Uint64(), rng.Uint64()
		e.pcg.Seed(s0, s1)
		used = e.f.StochGrad(x, g, e.rng)
		e.pcg.Seed(s0, s1)
		used += e.f.StochGrad(e.xPrev, e.gOld, e.rng)
		c := 1 - e.alpha
		for l := range e.d {
			e.d[l] = g[l] + float64(c*(e.d[l]-e.gOld[l]))
		}
	}
	copy(e.xPrev, x)
	copy(g, e.d)
	return used
}
