package fairness

import (
	"fmt"
	"math"
)

// Loss is a classification loss V(m) of the margin m = y theta^T x.
type Loss interface {
	// Eval returns V(m) and V'(m).
	Eval(m float64) (v, dv float64)
	// Curvature bounds |V''| over all m: the gradient of L is
	// Curvature * lambda_max((1/n) X^T X) Lipschitz.
	Curvature() float64
	// Convex reports whether V is convex.
	Convex() bool
	// Name is the loss's name in tables.
	Name() string
}

// Logistic is V(m) = log(1 + e^{-m}).
type Logistic struct{}

// softplus is log(1 + e^u), computed without overflow.
func softplus(u float64) float64 {
	if u > 0 {
		return u + math.Log1p(math.Exp(-u))
	}
	return math.Log1p(math.Exp(u))
}

// sigmoid is 1 / (1 + e^{-u}).
func sigmoid(u float64) float64 {
	if u >= 0 {
		return 1 / (1 + math.Exp(-u))
	}
	e := math.Exp(u)
	return e / (1 + e)
}

// Eval returns log(1 + e^{-m}) and -sigmoid(-m).
func (Logistic) Eval(m float64) (float64, float64) { return softplus(-m), -sigmoid(-m) }

// Curvature is 1/4, the maximum of sigmoid(m)(1 - sigmoid(m)).
func (Logistic) Curvature() float64 { return 0.25 }

// Convex is true.
func (Logistic) Convex() bool { return true }

// Name is "logistic".
func (Logistic) Name() string { return "logistic" }

// LogDiff is the logistic difference loss (6.7) of Krause and Singer,
// V(m) = log(1 + e^{-m}) - log(1 + e^{-m-Mu}), Mu > 0: bounded by Mu and
// nonconvex.
type LogDiff struct{ Mu float64 }

// Eval returns V(m) and V'(m) = -sigmoid(-m) + sigmoid(-m-Mu).
func (l LogDiff) Eval(m float64) (float64, float64) {
	return softplus(-m) - softplus(-m-l.Mu), -sigmoid(-m) + sigmoid(-m-l.Mu)
}

// Curvature is 1/4: V” is the difference of two values of
// sigmoid(1 - sigmoid), each in [0, 1/4].
func (LogDiff) Curvature() float64 { return 0.25 }

// Convex is false.
func (LogDiff) Convex() bool { return false }

// Name is "logdiff(mu)".
func (l LogDiff) Name() string { return fmt.Sprintf("logdiff(%g)", l.Mu) }

// Smooth01 is the smoothed 0-1 loss (6.8) of Zhao et al.: 0 for m > 1,
// m^3/4 - 3m/4 + 1/2 on [-1, 1], 1 for m < -1; C^1 and nonconvex.
type Smooth01 struct{}

// Eval returns V(m) and V'(m) = 3(m^2 - 1)/4 on [-1, 1], 0 outside.
func (Smooth01) Eval(m float64) (float64, float64) {
	switch {
	case m > 1:
		return 0, 0
	case m < -1:
		return 1, 0
	}
	return m*m*m/4 - 3*m/4 + 0.5, 3 * (m*m - 1) / 4
}

// Curvature is 3/2, the maximum of |V”(m)| = |3m/2| on [-1, 1] (V' is
// Lipschitz with that constant although V” jumps at |m| = 1).
func (Smooth01) Curvature() float64 { return 1.5 }

// Convex is false.
func (Smooth01) Convex() bool { return false }

// Name is "smooth01".
func (Smooth01) Name() string { return "smooth01" }

// ParseLoss returns the loss named s: logistic, logdiff (Mu = 1) or
// smooth01.
func ParseLoss(s string) (Loss, error) {
	switch s {
	case "logistic":
		return Logistic{}, nil
	case "logdiff":
		return LogDiff{Mu: 1}, nil
	case "smooth01":
		return Smooth01{}, nil
	}
	return nil, fmt.Errorf("loss %q: want logistic, logdiff or smooth01", s)
}
