package admm

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/consim/consim/problems/portfolio"
)

// Method is one of the compared solvers, advanced one outer iteration
// (epoch) at a time so that the caller can record oracle calls, the
// optimality gap and CPU time between epochs.
type Method interface {
	// Name is the label used in tables and plots.
	Name() string
	// Epoch runs one outer iteration, drawing every sample from rng.
	Epoch(rng *rand.Rand)
	// Point is the method's current estimate of x* (x~ for the SVRG-type
	// methods, the last iterate for SGD). The slice is owned by the method
	// and valid until the next Epoch.
	Point() []float64
	// Oracle is the method's query counter.
	Oracle() *OracleCounter
}

// Params are the step sizes shared by the methods.
type Params struct {
	// Eta is eta, the step size: the proximal weight 1/(2 eta) of the
	// x-update (com-SVR-ADMM) or the gradient step (the other methods).
	Eta float64
	// Rho is rho, the augmented-Lagrangian penalty (com-SVR-ADMM only).
	Rho float64
	// K is the number of inner iterations per outer iteration (for SGD:
	// stochastic steps per epoch).
	K int
	// Batch is N, the mini-batch size of the inner-function estimate
	// g_hat (and of the Jacobian estimate in com-SVRG-2), drawn with
	// replacement.
	Batch int
}

// Validate checks every field as com-SVR-ADMM requires them: eta and rho
// positive and finite, K and the mini-batch N positive.
func (p Params) Validate() error { return p.validate(true, true) }

// validate checks the fields a method uses; needRho and needBatch select
// the method-specific ones.
func (p Params) validate(needRho, needBatch bool) error {
	if !(p.Eta > 0) || math.IsInf(p.Eta, 0) {
		return fmt.Errorf("admm: step size eta = %v must be positive and finite", p.Eta)
	}
	if needRho && (!(p.Rho > 0) || math.IsInf(p.Rho, 0)) {
		return fmt.Errorf("admm: penalty rho = %v must be positive and finite", p.Rho)
	}
	if p.K <= 0 {
		return fmt.Errorf("admm: inner iterations K = %d must be positive", p.K)
	}
	if needBatch && p.Batch <= 0 {
		return fmt.Errorf("admm: mini-batch N = %d must be positive", p.Batch)
	}
	return nil
}

// checkStart validates the problem, regularizer and starting point shared
// by every constructor and returns a counter for p.
func checkStart(p portfolio.Composition, reg Regularizer, x0 []float64) (*OracleCounter, error) {
	c, err := NewOracleCounter(p)
	if err != nil {
		return nil, err
	}
	if reg == nil {
		return nil, fmt.Errorf("admm: nil regularizer")
	}
	if d := p.Dims().D; len(x0) != d {
		return nil, fmt.Errorf("admm: starting point has length %d, want d = %d", len(x0), d)
	}
	for k, v := range x0 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("admm: starting point x0[%d] = %v is not finite", k, v)
		}
	}
	return c, nil
}
