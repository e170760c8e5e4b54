package objective

import (
	"errors"
	"fmt"
	"math"
)

// Problem kinds accepted by Spec.Kind.
const (
	KindLeastSquares = "least_squares"
	KindLogistic     = "logistic"
	KindNonconvex    = "nonconvex_regression"
)

// Spec describes a synthetic decentralized problem. Every agent's data are
// a pure function of (Spec, N, seed, agent id); see data.go for the
// generative model.
type Spec struct {
	// Kind is one of "least_squares", "logistic", "nonconvex_regression".
	Kind string `yaml:"kind"`
	// Dim is n, the length of x; n >= 1.
	Dim int `yaml:"dim"`
	// SamplesPerAgent is m, the number of rows a_k each agent holds; m >= 1.
	SamplesPerAgent int `yaml:"samples_per_agent"`
	// Batch is b, the minibatch size of StochGrad; 1 <= b <= m.
	Batch int `yaml:"batch"`
	// Noise is the standard deviation of the additive Gaussian noise on
	// the targets b_k (least_squares, nonconvex_regression; >= 0), or the
	// label flip probability (logistic; in [0, 0.5)).
	Noise float64 `yaml:"noise"`
	// Reg is lambda >= 0, the weight of the regularizer: (lambda/2)||x||^2
	// for the convex kinds, lambda sum_j x_j^2/(1+x_j^2) for
	// nonconvex_regression. logistic needs lambda > 0 unless the box is
	// bounded, since the unregularized loss may have no minimizer.
	Reg float64 `yaml:"reg"`
	// Heterogeneity h >= 0 scales how far each agent's ground-truth model
	// and feature mean are moved away from the common ones; h = 0 gives
	// i.i.d. agents.
	Heterogeneity float64 `yaml:"heterogeneity"`
	// Lo and Hi bound the box X = [Lo, Hi]^n; Lo < Hi, infinite values
	// allowed. Lo = Hi = 0 (the zero value) means X = R^n.
	Lo float64 `yaml:"lo"`
	Hi float64 `yaml:"hi"`
	// Scale is c > 0, the scale of the Cauchy loss
	// phi(r) = (c^2/2) log(1 + (r/c)^2) of nonconvex_regression. It must be
	// zero for the other kinds.
	Scale float64 `yaml:"scale"`
	// Outliers is the fraction in [0, 1) of nonconvex_regression rows whose
	// target is replaced by pure noise of standard deviation 10. It must be
	// zero for the other kinds.
	Outliers float64 `yaml:"outliers"`
}

// Box returns X: [Lo, Hi]^n, or R^n when Lo = Hi = 0.
func (s Spec) Box() Box {
	if s.Lo == 0 && s.Hi == 0 {
		return Box{Lo: math.Inf(-1), Hi: math.Inf(1)}
	}
	return Box{Lo: s.Lo, Hi: s.Hi}
}

// bounded reports whether both sides of the box are finite.
func (b Box) bounded() bool { return !math.IsInf(b.Lo, 0) && !math.IsInf(b.Hi, 0) }

// Validate checks the spec for n agents and names the first offending
// field with its allowed range.
func (s Spec) Validate(n int) error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch s.Kind {
	case KindLeastSquares, KindLogistic, KindNonconvex:
	case "":
		return errors.New("problem spec: Kind is empty; want one of least_squares, logistic, nonconvex_regression")
	default:
		return fmt.Errorf("problem spec: Kind %q unknown; want one of least_squares, logistic, nonconvex_regression", s.Kind)
	}
	switch {
	case n < 1:
		return fmt.Errorf("problem spec: number of agents N = %d, want N >= 1", n)
	case s.Dim < 1:
		return fmt.Errorf("problem spec: Dim = %d, want Dim >= 1", s.Dim)
	case s.SamplesPerAgent < 1:
		return fmt.Errorf("problem spec: SamplesPerAgent = %d, want SamplesPerAgent >= 1", s.SamplesPerAgent)
	case s.Batch < 1 || s.Batch > s.SamplesPerAgent:
		return fmt.Errorf("problem spec: Batch = %d, want 1 <= Batch <= SamplesPerAgent (%d)", s.Batch, s.SamplesPerAgent)
	case !finite(s.Reg) || s.Reg < 0:
		return fmt.Errorf("problem spec: Reg = %g, want a finite Reg >= 0", s.Reg)
	case !finite(s.Heterogeneity) || s.Heterogeneity < 0:
		return fmt.Errorf("problem spec: Heterogeneity = %g, want a finite Heterogeneity >= 0", s.Heterogeneity)
	case math.IsNaN(s.Lo) || math.IsNaN(s.Hi) || math.IsInf(s.Lo, 1) || math.IsInf(s.Hi, -1):
		return fmt.Errorf("problem spec: box [Lo, Hi] = [%g, %g], want -inf <= Lo < Hi <= +inf", s.Lo, s.Hi)
	case s.Lo >= s.Hi && !(s.Lo == 0 && s.Hi == 0):
		return fmt.Errorf("problem spec: box [Lo, Hi] = [%g, %g], want Lo < Hi (or Lo = Hi = 0 for R^n)", s.Lo, s.Hi)
	}
	if s.Kind == KindLogistic {
		if !finite(s.Noise) || s.Noise < 0 || s.Noise >= 0.5 {
			return fmt.Errorf("problem spec: Noise = %g, want a label flip probability 0 <= Noise < 0.5 for logistic", s.Noise)
		}
		if s.Reg == 0 && !s.Box().bounded() {
			return errors.New("problem spec: Reg = 0 with an unbounded box, want Reg > 0 or finite Lo and Hi for logistic (the minimizer may not exist)")
		}
	} else if !finite(s.Noise) || s.Noise < 0 {
		return fmt.Errorf("problem spec: Noise = %g, want a finite Noise >= 0 for %s", s.Noise, s.Kind)
	}
	if s.Kind == KindNonconvex {
		if !finite(s.Scale) || s.Scale <= 0 {
			return fmt.Errorf("problem spec: Scale = %g, want a finite Scale > 0 for nonconvex_regression", s.Scale)
		}
		if !finite(s.Outliers) || s.Outliers < 0 || s.Outliers >= 1 {
			return fmt.Errorf("problem spec: Outliers = %g, want 0 <= Outliers < 1 for nonconvex_regression", s.Outliers)
		}
	} else {
		if s.Scale != 0 {
			return fmt.Errorf("problem spec: Scale = %g is only used by nonconvex_regression, want 0 for %s", s.Scale, s.Kind)
		}
		if s.Outliers != 0 {
			return fmt.Errorf("problem spec: Outliers = %g is only used by nonconvex_regression, want 0 for %s", s.Outliers, s.Kind)
		}
	}
	return nil
}
