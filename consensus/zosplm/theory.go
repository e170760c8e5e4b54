package zosplm

import (
	"fmt"
	"math"
)

// Theory holds the step-size bounds of the paper's analysis (Lemma 8,
// after Lemma 3's constants) for a smoothness L_f of f, a proximal
// weight p > L_f, a Lipschitz constant K_h of h on X, a smoothness L_L of
// L(., z; y) over the dual box, and a primal step c:
//
//	mu_L    = p - L_f,  kappa_1 = p / mu_L,  kappa_2 = K_h / mu_L,
//	kappa_3 = 1 + 1/(c mu_L),
//	c      <= min{1/(8 K_h), kappa_1/(32 p kappa_2^2), 1/(2 L_L)},
//	alpha  <= min{3/(4 K_h (kappa_3^2 - kappa_2)), 1/(8 c K_h^2 kappa_3^2)},
//	beta   <= 1/(24 kappa_1).
//
// Lemma 1 (Theorem 1) shrinks beta further by terms in delta_1, which is
// only shown to exist, and in kappa_4 and kappa_5, which need the
// stationary set X* (sigma_X*): those are not computable, and Theory does
// not hold them. The beta bound is the one that depends on p and L_f
// alone.
type Theory struct {
	MuL, Kappa1, Kappa2, Kappa3 float64
	// C, Alpha and Beta are the bounds of c, alpha (at the given c) and
	// beta.
	C, Alpha, Beta float64
}

// NewTheory returns the bounds for L_f = lf, p, K_h = kh, L_L = lL and the
// step c. It needs p > L_f >= 0 and K_h, L_L, c > 0.
func NewTheory(lf, p, kh, lL, c float64) (Theory, error) {
	if !(lf >= 0 && p > lf && kh > 0 && lL > 0 && c > 0) || math.IsInf(p+kh+lL+c, 0) {
		return Theory{}, fmt.Errorf("zosplm: theory: L_f = %g, p = %g, K_h = %g, L_L = %g, c = %g: want p > L_f >= 0 and K_h, L_L, c > 0 finite", lf, p, kh, lL, c)
	}
	mu := p - lf
	t := Theory{MuL: mu, Kappa1: p / mu, Kappa2: kh / mu, Kappa3: 1 + 1/(c*mu)}
	t.C = math.Min(math.Min(1/(8*kh), t.Kappa1/(32*p*t.Kappa2*t.Kappa2)), 1/(2*lL))
	t.Alpha = 1 / (8 * c * kh * kh * t.Kappa3 * t.Kappa3)
	if d := t.Kappa3*t.Kappa3 - t.Kappa2; d > 0 {
		t.Alpha = math.Min(t.Alpha, 3/(4*kh*d))
	}
	t.Beta = BetaBound(lf, p)
	return t, nil
}

// BetaBound is Lemma 8's bound of the smoothing step, 1/(24 kappa_1) =
// (p - L_f)/(24 p), for p > L_f (0 otherwise). It is at most 1/24, and
// beta = 1, the default, is outside it for every p: with beta = 1,
// z_{t+1} = x_{t+1} after every step, the proximal term's gradient
// p (x_t - z_t) is zero at every iterate, and Algorithm 1 is projected
// primal-dual gradient.
func BetaBound(lf, p float64) float64 {
	if !(p > lf) {
		return 0
	}
	return (p - lf) / (24 * p)
}
