package alm

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/graph"
)

// PredictedConsensus returns the exact consensus-error curve of the mean
// iterate (see RateModel: the mean of the iterates follows E[M] exactly
// when the f_i are quadratic, with minibatch gradients too, since a
// least-squares minibatch gradient is affine in x with coefficients
// independent of x, while the box is inactive and no safeguard reset
// fires), (1/N) sum_i ||E[x_i,t] - mean_j E[x_j,t]||^2 with
// E[w_{t+1}] = E[M] E[w_t] + c from the run's initial point, at the rounds
// 0, every, 2 every, ... up to rounds (the rows a run's metrics hold),
// stopping early after the first row for which done(errs) is true. It has
// no free constant. It fails for an edge process other than Bernoulli
// (the model assumes independent draws with the graph's p_e), a step
// schedule other than constant, or non-quadratic objectives.
//
// It predicts the mean iterate, not a single run: with some p_e < 1 on a
// graph with cycles the mean square does not contract
// (RateModel.MeanSquare), so a run's error settles on a floor that the
// mean iterate does not show.
func (r *run) PredictedConsensus(rounds, every int, done func(errs []float64) bool) ([]int, []float64, error) {
	switch r.env.Process.(type) {
	case graph.Bernoulli, graph.UniformBernoulli:
	default:
		return nil, nil, fmt.Errorf("alm: predicted consensus: edge process %T: the prediction assumes the Bernoulli edge process", r.env.Process)
	}
	if every < 1 {
		return nil, nil, fmt.Errorf("alm: predicted consensus: every = %d, want >= 1", every)
	}
	m, err := NewRateModel(r.cfg, r.env.Graph, r.locals)
	if err != nil {
		return nil, nil, err
	}
	N, n := m.N, m.Dim
	w := mat.NewVecDense(m.D(), nil)
	for i := range N {
		for k, v := range r.env.Init(i) {
			w.SetVec(m.XAt(i)+k, v)
			w.SetVec(m.ZAt(i)+k, v)
		}
	}
	c := mat.NewVecDense(m.D(), m.C)
	ce := func() float64 {
		var s float64
		for k := range n {
			var mean float64
			for i := range N {
				mean += w.AtVec(m.XAt(i) + k)
			}
			mean /= float64(N)
			for i := range N {
				d := w.AtVec(m.XAt(i)+k) - mean
				s += d * d
			}
		}
		return s / float64(N)
	}
	var ts []int
	var errs []float64
	var next mat.VecDense
	for t := 0; t <= rounds; t++ {
		if t%every == 0 || t == rounds {
			ts, errs = append(ts, t), append(errs, ce())
			if done != nil && done(errs) {
				break
			}
		}
		next.MulVec(m.Mean, w)
		w.AddVec(&next, c)
	}
	return ts, errs, nil
}
