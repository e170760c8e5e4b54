// Package problems registers consim's shipped problem families: the
// regression problems (least squares, logistic, nonconvex Cauchy
// regression) generated from the seed or loaded from users' data files,
// and the mean-variance portfolio of the composition ADMM.
//
// Unlike the algorithms, problems may read files, so their registrations
// live here rather than in consensus/. problems may import consensus/...,
// graph and dataset; it must not import node, coordinator, scenarios or
// cmd.
package problems

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/objective"
)

// Regression is the problem block of the regression kinds
// (least_squares, logistic, nonconvex_regression): generated data, the
// regulariser and the box X.
type Regression struct {
	// Dim is n, the length of each agent's x_i.
	Dim int `yaml:"dim" doc:"n, length of each x_i, >= 1" default:"required"`
	// SamplesPerAgent is m, the number of data points held by each agent.
	SamplesPerAgent int `yaml:"samples_per_agent" doc:"m, data points per agent, >= 1"`
	// Batch is b, the minibatch size of a stochastic gradient, 1 <= b <= m.
	Batch int `yaml:"batch" doc:"b, minibatch size, 1 <= b <= m"`
	// Noise is the standard deviation of the label noise (logistic: the
	// label flip probability).
	Noise float64 `yaml:"noise" doc:"target noise standard deviation, >= 0 (logistic: label flip probability < 0.5)"`
	// Reg is lambda, the weight of the regulariser.
	Reg float64 `yaml:"reg" doc:"regulariser weight lambda >= 0 (logistic: > 0 unless the box is bounded)"`
	// Heterogeneity scales how far the agents' local models differ
	// (0 = identically distributed data).
	Heterogeneity float64 `yaml:"heterogeneity" doc:"spread of the agents' local models, >= 0 (0 = i.i.d.)"`
	// Scale is c, the scale of the Cauchy loss (nonconvex_regression only;
	// 0 = 1).
	Scale float64 `yaml:"scale,omitempty" doc:"nonconvex_regression only: Cauchy loss scale c > 0 (0 = 1)"`
	// Outliers is the fraction of pure-noise rows (nonconvex_regression
	// only), in [0, 1).
	Outliers float64 `yaml:"outliers,omitempty" doc:"nonconvex_regression only: fraction of pure-noise rows in [0, 1)"`
	// Box is X = [lo, hi]^n; infinite bounds are allowed.
	Box registry.Interval `yaml:"box,flow" doc:"X = [lo, hi]^n, lo < hi; .inf and -.inf allowed (dadmm family: must be unbounded)"`
	// Data, when set, reads the rows from a file instead of generating
	// them; dim then defaults to the file's feature count, and the
	// generator's keys (samples_per_agent, noise, heterogeneity,
	// outliers) must keep their defaults.
	Data *DataSource `yaml:"data,omitempty" doc:"rows from a file instead of the generator: {path, format: libsvm|csv, header, label, delimiter, shard: contiguous|random|column:NAME, weighting: rows|agents}" default:"-"`

	kind string
}

// newRegression returns the defaults of kind.
func newRegression(kind string) *Regression {
	return &Regression{
		SamplesPerAgent: 100,
		Batch:           10,
		Noise:           0.1,
		Heterogeneity:   1,
		Box:             registry.Interval{math.Inf(-1), math.Inf(1)},
		kind:            kind,
	}
}

// Validate checks the keys' ranges (the data's consistency with the
// number of agents is checked by Build).
func (r *Regression) Validate() error {
	var errs registry.FieldErrors
	if r.Data != nil {
		r.Data.validate(&errs)
		def := newRegression(r.kind)
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
	if r.kind == objective.KindLogistic {
		if r.Noise >= 0.5 {
			errs.Add("noise", "%s is outside [0, 0.5) (for logistic, noise is a label flip probability)", registry.Num(r.Noise))
		}
		if r.Reg == 0 && (math.IsInf(r.Box.Lo(), 0) || math.IsInf(r.Box.Hi(), 0)) {
			errs.Add("reg", "logistic needs reg > 0 unless problem.box is bounded")
		}
	}
	if r.kind == objective.KindNonconvex {
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
func (r *Regression) Lambda() float64 { return r.Reg }

// spec maps the block onto objective.Spec.
func (r *Regression) spec() objective.Spec {
	s := objective.Spec{
		Kind:            r.kind,
		Dim:             r.Dim,
		SamplesPerAgent: r.SamplesPerAgent,
		Batch:           r.Batch,
		Noise:           r.Noise,
		Reg:             r.Reg,
		Heterogeneity:   r.Heterogeneity,
		Lo:              r.Box.Lo(),
		Hi:              r.Box.Hi(),
	}
	if r.kind == objective.KindNonconvex {
		s.Scale = r.Scale
		if s.Scale == 0 {
			s.Scale = 1
		}
		s.Outliers = r.Outliers
	}
	return s
}

// LeastSquares describes least_squares: f_i(x) = (1/m) sum_k (a_k^T x - b_k)^2 / 2
// + (lambda/2)||x||^2 over agent i's generated rows.
func LeastSquares() registry.Problem {
	return regressionProblem(objective.KindLeastSquares, "least squares with a ridge term, data generated per agent from the seed or read from a file")
}

// Logistic describes logistic: the logistic loss of labels in {-1, +1}
// with a ridge term.
func Logistic() registry.Problem {
	return regressionProblem(objective.KindLogistic, "logistic regression with a ridge term, data generated per agent from the seed or read from a file")
}

// Nonconvex describes nonconvex_regression: the Cauchy loss with the
// saturating regulariser lambda sum_j x_j^2/(1+x_j^2).
func Nonconvex() registry.Problem {
	return regressionProblem(objective.KindNonconvex, "nonconvex Cauchy regression with a saturating regulariser (optimum: best of a multistart)")
}

func regressionProblem(kind, summary string) registry.Problem {
	return registry.Problem{
		Kind:    kind,
		Summary: summary,
		New:     func() registry.Params { return newRegression(kind) },
		Build: func(p registry.Params, env registry.ProblemEnv) (registry.Instance, error) {
			r := p.(*Regression)
			if r.Data != nil {
				return buildFromData(r, env)
			}
			return buildGenerated(r, env)
		},
		Offers: offers(kind),
	}
}

// offers are the capabilities of kind: local objectives, and their exact
// prox for least squares.
func offers(kind string) []string {
	if kind == objective.KindLeastSquares {
		return []string{registry.CapLocals, registry.CapProx}
	}
	return []string{registry.CapLocals}
}

// generated is a regression instance whose data come from the seed.
type generated struct {
	spec   objective.Spec
	env    registry.ProblemEnv
	locals []objective.Local
}

func buildGenerated(r *Regression, env registry.ProblemEnv) (*generated, error) {
	spec := r.spec()
	if err := spec.Validate(env.N); err != nil {
		return nil, err
	}
	g := &generated{spec: spec, env: env, locals: make([]objective.Local, env.N)}
	for i := range g.locals {
		l, err := objective.NewLocal(spec, env.N, env.Seed, i)
		if err != nil {
			return nil, fmt.Errorf("agent %d: %w", i, err)
		}
		g.locals[i] = l
	}
	return g, nil
}

func (g *generated) Dim() int                    { return g.spec.Dim }
func (g *generated) Local(i int) objective.Local { return g.locals[i] }
func (g *generated) Box() objective.Box          { return g.spec.Box() }
func (g *generated) Central() (*objective.Problem, error) {
	return objective.New(g.spec, g.env.N, g.env.Seed)
}
