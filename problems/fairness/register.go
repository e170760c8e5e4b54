package fairness

import (
	"fmt"
	"math"
	"sync"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/problems/datafile"
)

// Cap is the capability of the fairness-constrained classification
// problems (Provider).
const Cap = "fairness"

// Provider is the capability Cap: problem (6.6) on training data, with
// the held-out data its measures use. Dim is d + 1, the length of the
// iterate (theta, s) every data-parallel agent holds a replica of; Central
// fails with registry.ErrNoCentral (the problem is constrained and not a
// consensus sum of local terms): the runs on it measure themselves
// (registry.Evaluator).
type Provider interface {
	registry.Instance
	// Data is the training set, the rows the agents split.
	Data() *Data
	// Test is the held-out set of the accuracy and p%-rule measures; the
	// training set when there is none.
	Test() *Data
	// Loss is V, C the covariance threshold c (+Inf: unconstrained) and R
	// the box radius, |theta_j| <= R.
	Loss() Loss
	C() float64
	R() float64
	// Optimum is the independent solve of the convex case (Reference):
	// theta*, L(theta*) and true; nil, NaN and false for a nonconvex
	// loss. It is computed on the first call.
	Optimum() (theta []float64, fstar float64, ok bool, err error)
}

// Params is the problem block of kind fairness.
type Params struct {
	Data     registry.Path `yaml:"data,omitempty" doc:"directory of the UCI Adult files adult.data[.gz] and adult.test[.gz] (relative to the scenario); empty: Zafar et al.'s synthetic data from the seed"`
	Rows     int           `yaml:"rows" doc:"Adult: use the first rows training records, >= 0 (0: all 30,162)"`
	PerClass int           `yaml:"per_class" doc:"synthetic: examples per label, >= 1"`
	Phi      float64       `yaml:"phi" default:"pi/4" doc:"synthetic: rotation phi of the sensitive attribute's dependence on x (Zafar et al.: pi/4; smaller correlates z with the label more)"`
	Loss     string        `yaml:"loss" doc:"V of the margin: logistic, logdiff (mu = 1) or smooth01"`
	C        float64       `yaml:"c" doc:"covariance threshold c > 0 of |a^T theta| <= c (.inf: unconstrained)"`
	Box      float64       `yaml:"box" doc:"radius R > 0 of the box |theta_j| <= R"`
}

// DefaultParams returns synthetic data (500 examples per label, phi =
// pi/4), the logistic loss, c = 0.1 and R = 10.
func DefaultParams() *Params {
	return &Params{PerClass: 500, Phi: math.Pi / 4, Loss: "logistic", C: 0.1, Box: 10}
}

// Validate checks the values that need no file.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	if p.Rows < 0 {
		errs.Add("rows", "must be >= 0, got %d", p.Rows)
	}
	if p.Data == "" {
		if p.PerClass < 1 {
			errs.Add("per_class", "must be >= 1, got %d", p.PerClass)
		}
		if math.IsNaN(p.Phi) || math.IsInf(p.Phi, 0) {
			errs.Add("phi", "must be a finite angle, got %s", registry.Num(p.Phi))
		}
	}
	if _, err := ParseLoss(p.Loss); err != nil {
		errs.Add("loss", "%q is not one of logistic, logdiff, smooth01", p.Loss)
	}
	if !(p.C > 0) {
		errs.Add("c", "must be > 0 (or .inf: unconstrained), got %s", registry.Num(p.C))
	}
	if !(p.Box > 0) || math.IsInf(p.Box, 0) {
		errs.Add("box", "must be a finite radius > 0, got %s", registry.Num(p.Box))
	}
	return errs.Err()
}

// Problem describes the problem kind fairness: problem (6.6) on the UCI
// Adult data (LoadAdult; the held-out adult.test measures accuracy and
// p%-rule) or on Zafar et al.'s synthetic data drawn from the run seed
// (Synthetic; the training set measures them).
func Problem() registry.Problem {
	return registry.Problem{
		Kind:    "fairness",
		Summary: "fairness-constrained linear classification (|Cov(z, theta^T x)| <= c) on UCI Adult or synthetic data, the rows split over data-parallel agents",
		New:     func() registry.Params { return DefaultParams() },
		Build: func(p registry.Params, env registry.ProblemEnv) (registry.Instance, error) {
			fp := p.(*Params)
			loss, err := ParseLoss(fp.Loss)
			if err != nil {
				return nil, registry.FieldErrors{{Key: "loss", Msg: err.Error()}}
			}
			in := &instance{loss: loss, c: fp.C, r: fp.Box}
			if fp.Data == "" {
				if in.train, err = Synthetic(fp.PerClass, fp.Phi, env.Seed); err != nil {
					return nil, err
				}
			} else if in.train, in.test, err = LoadAdult(string(fp.Data), fp.Rows); err != nil {
				return nil, registry.FieldErrors{{Key: "data", Msg: fmt.Sprintf("%s: %v", fp.Data, err)}}
			}
			if n := in.train.Rows(); n < env.N {
				return nil, fmt.Errorf("fairness: %d training examples for %d agents: every agent needs a row", n, env.N)
			}
			return in, nil
		},
		Offers: []string{Cap},
	}
}

// instance is a fairness instance: Provider.
type instance struct {
	train, test *Data
	loss        Loss
	c, r        float64

	once  sync.Once
	theta []float64
	opt   Optimum // the certified solution (Reference)
	fstar float64
	err   error
}

// Dim is d + 1: theta and the slack s.
func (in *instance) Dim() int { return in.train.Dim + 1 }

// Central fails with registry.ErrNoCentral.
func (in *instance) Central() (*objective.Problem, error) {
	return nil, fmt.Errorf("fairness: %w", registry.ErrNoCentral)
}

func (in *instance) Data() *Data { return in.train }
func (in *instance) Loss() Loss  { return in.loss }
func (in *instance) C() float64  { return in.c }
func (in *instance) R() float64  { return in.r }

func (in *instance) Test() *Data {
	if in.test == nil {
		return in.train
	}
	return in.test
}

func (in *instance) Optimum() ([]float64, float64, bool, error) {
	if !in.loss.Convex() {
		return nil, math.NaN(), false, nil
	}
	in.once.Do(func() {
		var opt Optimum
		opt, in.err = Reference(in.train, in.loss, in.c, in.r)
		if in.err == nil {
			in.theta, in.fstar, in.opt = opt.Theta, opt.L, opt
		}
	})
	return in.theta, in.fstar, in.err == nil, in.err
}

// MarshalYAML writes the block without the keys that do not apply to its
// source of examples (at their defaults): per_class and phi for the Adult
// files, rows for synthetic data.
func (p Params) MarshalYAML() (any, error) {
	type plain Params
	def := DefaultParams()
	var omit []string
	if p.Data != "" {
		if p.PerClass == def.PerClass {
			omit = append(omit, "per_class")
		}
		if p.Phi == def.Phi {
			omit = append(omit, "phi")
		}
	} else if p.Rows == 0 {
		omit = append(omit, "rows")
	}
	return datafile.Without(plain(p), omit...)
}
