package alm

import (
	"fmt"

	"github.com/consim/consim/graph"
)

// PredictedRate returns the parameter-free rate prediction of the run's
// squared consensus error: rho(E[M])^2, the long-run per-round factor of
// ||E[w_t] - w*||^2 of the round's affine map (see RateModel), which the
// mean of the iterates follows exactly when the f_i are quadratic (with
// minibatch gradients too: a least-squares minibatch gradient is affine in
// x with coefficients independent of x), the box is inactive and no
// safeguard reset fires. It fails for an edge process other than
// Bernoulli (the model assumes independent draws with the graph's p_e),
// a step schedule other than constant, or non-quadratic objectives.
//
// It predicts the mean, not a single run: with some p_e < 1 on a graph
// with cycles the mean square does not contract (RateModel.MeanSquare),
// so a run's error settles on a floor that the mean does not show.
func (r *run) PredictedRate() (float64, error) {
	switch r.env.Process.(type) {
	case graph.Bernoulli, graph.UniformBernoulli:
	default:
		return 0, fmt.Errorf("alm: predicted rate: edge process %T: the prediction assumes the Bernoulli edge process", r.env.Process)
	}
	m, err := NewRateModel(r.cfg, r.env.Graph, r.locals)
	if err != nil {
		return 0, err
	}
	rho, err := m.MeanRadius()
	if err != nil {
		return 0, err
	}
	return rho * rho, nil
}
