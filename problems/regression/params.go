package regression

import (
	"math"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/problems/datafile"
)

// Params is the problem block of the regression kinds (least_squares,
// logistic, nonconvex_regression) and the one description of a generated
// problem: every agent's data are a pure function of (Params, N, seed,
// agent id); see generate.go for the generative model. With Data set the
// rows come from a file instead.
type Params struct {
	// Kind is objective.KindLeastSquares, KindLogistic or KindNonconvex:
	// the scenario's problem.kind, set by the registry's New.
	Kind string `yaml:"-"`
	// Dim is n, the length of each agent's x_i.
	Dim int `yaml:"dim" doc:"n, length of each x_i, >= 1" default:"required"`
	// SamplesPerAgent is m, the number of data points held by each agent.
	SamplesPerAgent int `yaml:"samples_per_agent" doc:"m, data points per agent, >= 1"`
	// Batch is b, the minibatch size of a stochastic gradient, 1 <= b <= m.
	Batch int `yaml:"batch" doc:"b, minibatch size, 1 <= b <= m"`
	// Noise is the standard deviation of the additive Gaussian noise on
	// the targets (least_squares, nonconvex_regression), or the label flip
	// probability (logistic; in [0, 0.5)).
	Noise float64 `yaml:"noise" doc:"target noise standard deviation, >= 0 (logistic: label flip probability < 0.5)"`
	// Reg is lambda >= 0, the weight of the regulariser: (lambda/2)||x||^2
	// for the convex kinds, lambda sum_j x_j^2/(1+x_j^2) for
	// nonconvex_regression. logistic needs lambda > 0 unless the box is
	// bounded, since the unregularized loss may have no minimizer.
	Reg float64 `yaml:"reg" doc:"regulariser weight lambda >= 0 (logistic: > 0 unless the box is bounded)"`
	// Heterogeneity h >= 0 scales how far each agent's ground-truth model
	// and feature mean are moved away from the common ones; h = 0 gives
	// i.i.d. agents.
	Heterogeneity float64 `yaml:"heterogeneity" doc:"spread of the agents' local models, >= 0 (0 = i.i.d.)"`
	// Scale is c, the scale of the Cauchy loss
	// phi(r) = (c^2/2) log(1 + (r/c)^2) (nonconvex_regression only; 0 = 1).
	Scale float64 `yaml:"scale,omitempty" doc:"nonconvex_regression only: Cauchy loss scale c > 0 (0 = 1)"`
	// Outliers is the fraction in [0, 1) of nonconvex_regression rows whose
	// target is replaced by pure noise of standard deviation 10
	// (nonconvex_regression only).
	Outliers float64 `yaml:"outliers,omitempty" doc:"nonconvex_regression only: fraction of pure-noise rows in [0, 1)"`
	// Box is X = [lo, hi]^n, lo < hi; infinite bounds are allowed
	// (Unbounded is R^n).
	Box registry.Interval `yaml:"box,flow" doc:"X = [lo, hi]^n, lo < hi; .inf and -.inf allowed (dadmm family: must be unbounded)"`
	// Data, when set, reads the rows from a file instead of generating
	// them; dim then defaults to the file's feature count, and the
	// generator's keys (samples_per_agent, noise, heterogeneity,
	// outliers) must keep their defaults.
	Data *DataSource `yaml:"data,omitempty" doc:"rows from a file instead of the generator: {path, format: libsvm|csv, header, label, delimiter, shard: contiguous|random|column:NAME, weighting: rows|agents}" default:"-"`
}

// Unbounded is the box R^n = [-Inf, +Inf]^n.
var Unbounded = registry.Interval{math.Inf(-1), math.Inf(1)}

// DefaultParams returns the defaults of kind: 100 rows per agent, batch
// 10, noise 0.1, heterogeneity 1, no regulariser, X = R^n, and no
// dimension (dim is required unless the rows come from a file).
func DefaultParams(kind string) *Params {
	return &Params{
		Kind:            kind,
		SamplesPerAgent: 100,
		Batch:           10,
		Noise:           0.1,
		Heterogeneity:   1,
		Box:             Unbounded,
	}
}

// Validate checks the keys' ranges (the data's consistency with the
// number of agents is checked by Build).
func (r *Params) Validate() error {
	var errs registry.FieldErrors
	if r.Data != nil {
		r.Data.validate(&errs)
		def := DefaultParams(r.Kind)
		for _, k := range []struct {
			key     string
			changed bool
		}{
			{"samples_per_agent", r.SamplesPerAgent != def.SamplesPerAgent},
			{"noise", r.Noise != def.Noise},
			{"heterogeneity", r.Heterogeneity != def.Heterogeneity},
			{"outliers", r.Outliers != def.Outliers},
		} {
			if k.changed {
				errs.Add(k.key, "only applies to generated data, not to problem.data")
			}
		}
		if r.Dim < 0 {
			errs.Add("dim", "must be >= 1, or left out to take the file's feature count; got %d", r.Dim)
		}
	} else if r.Dim < 1 {
		errs.Add("dim", "required: an integer >= 1, got %d", r.Dim)
	}
	if r.SamplesPerAgent < 1 {
		errs.Add("samples_per_agent", "must be an integer >= 1, got %d", r.SamplesPerAgent)
	} else if r.Batch < 1 || (r.Data == nil && r.Batch > r.SamplesPerAgent) {
		errs.Add("batch", "%d is outside [1, %d] (1 <= batch <= samples_per_agent)", r.Batch, r.SamplesPerAgent)
	}
	nonneg := func(key string, v float64) {
		if !(v >= 0) || math.IsInf(v, 0) {
			errs.Add(key, "must be a finite number >= 0, got %s", registry.Num(v))
		}
	}
	nonneg("noise", r.Noise)
	nonneg("reg", r.Reg)
	nonneg("heterogeneity", r.Heterogeneity)
	if r.Kind == objective.KindLogistic {
		if r.Noise >= 0.5 {
			errs.Add("noise", "%s is outside [0, 0.5) (for logistic, noise is a label flip probability)", registry.Num(r.Noise))
		}
		if r.Reg == 0 && (math.IsInf(r.Box.Lo(), 0) || math.IsInf(r.Box.Hi(), 0)) {
			errs.Add("reg", "logistic needs reg > 0 unless problem.box is bounded")
		}
	}
	if r.Kind == objective.KindNonconvex {
		nonneg("scale", r.Scale)
		if !(r.Outliers >= 0 && r.Outliers < 1) {
			errs.Add("outliers", "%s is outside [0, 1)", registry.Num(r.Outliers))
		}
	} else {
		if r.Scale != 0 {
			errs.Add("scale", "only applies to %s", objective.KindNonconvex)
		}
		if r.Outliers != 0 {
			errs.Add("outliers", "only applies to %s", objective.KindNonconvex)
		}
	}
	if !(r.Box.Lo() < r.Box.Hi()) {
		errs.Add("box", "[%s, %s] is empty: need lo < hi", registry.Num(r.Box.Lo()), registry.Num(r.Box.Hi()))
	}
	return errs.Err()
}

// Lambda is the regulariser weight lambda.
func (r *Params) Lambda() float64 { return r.Reg }

// box is X.
func (r Params) box() objective.Box { return objective.Box{Lo: r.Box.Lo(), Hi: r.Box.Hi()} }

// scale is the Cauchy scale c of nonconvex_regression (0 means 1), 0 for
// the other kinds.
func (r Params) scale() float64 {
	if r.Kind == objective.KindNonconvex && r.Scale == 0 {
		return 1
	}
	return r.Scale
}

// Size implements registry.Sizer for the memory estimate of a scenario:
// for generated data n = dim and m = samples_per_agent rows of n + 1
// values per agent; for a data file, its feature count (dim when given)
// and its rows shared over the agents, read without parsing the values
// (datafile.Shape). When the file cannot be read the estimate takes its
// defaults; Build names the error.
func (r *Params) Size(n int) registry.ProblemSize {
	if r.Data == nil {
		return registry.ProblemSize{Dim: r.Dim, Floats: float64(r.SamplesPerAgent) * float64(max(r.Dim, 1)+1)}
	}
	rows, features, err := datafile.Shape(r.Data.spec(r.Dim))
	if err != nil || n < 1 {
		return registry.ProblemSize{Dim: r.Dim}
	}
	dim := features
	if r.Dim > 0 {
		dim = r.Dim
	}
	return registry.ProblemSize{Dim: dim, Floats: math.Ceil(float64(rows)/float64(n)) * float64(dim+1)}
}

// MarshalYAML writes the block without the keys that do not apply to its
// source of rows: with a data file, the generator's keys (at their
// defaults) and dim when the file gives it (the memory estimate reports
// the file's feature count, Size).
func (r Params) MarshalYAML() (any, error) {
	type plain Params
	var omit []string
	if r.Data != nil {
		def := DefaultParams(r.Kind)
		for _, k := range []struct {
			key    string
			unused bool
		}{
			{"samples_per_agent", r.SamplesPerAgent == def.SamplesPerAgent},
			{"noise", r.Noise == def.Noise},
			{"heterogeneity", r.Heterogeneity == def.Heterogeneity},
			{"outliers", r.Outliers == def.Outliers},
			{"dim", r.Dim == 0},
		} {
			if k.unused {
				omit = append(omit, k.key)
			}
		}
	}
	return datafile.Without(plain(r), omit...)
}
