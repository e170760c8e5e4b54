package fairness

import (
	"fmt"
	"math"
)

// Reference solves the convex case of (6.6) (a convex loss) by a method
// independent of Algorithm 1: Lagrangian duality on the covariance
// constraint. For a multiplier nu, theta(nu) minimizes L(theta) + nu
// a^T theta over the box [-R, R]^d, solved by accelerated projected
// gradient (FISTA with restart) with the full gradient; a^T theta(nu) is
// nonincreasing in nu. If |a^T theta(0)| <= c, theta(0) is optimal;
// otherwise, with sigma = sign(a^T theta(0)), bisection finds nu >= 0 with
// sigma a^T theta(sigma nu) in [c (1 - 1e-4), c], and theta(sigma nu) is
// optimal to that accuracy. tol bounds the norm of each inner solve's
// projected-gradient mapping. It returns theta and the multiplier sigma nu.
func Reference(d *Data, loss Loss, c, r float64, tol float64) ([]float64, float64, error) {
	if !loss.Convex() {
		return nil, 0, fmt.Errorf("fair reference: loss %s is not convex", loss.Name())
	}
	if err := d.Validate(); err != nil {
		return nil, 0, err
	}
	a := d.CovVector()
	lip := loss.Curvature() * PowerLambdaMax(d) * 1.01
	theta := make([]float64, d.Dim)
	inner := func(nu float64) {
		fista(d, loss, a, nu, r, lip, tol, theta)
	}
	inner(0)
	cov := dot(a, theta)
	if math.Abs(cov) <= c {
		return theta, 0, nil
	}
	sigma := math.Copysign(1, cov)
	lo, hi := 0.0, 1.0
	for {
		inner(sigma * hi)
		if sigma*dot(a, theta) <= c {
			break
		}
		lo, hi = hi, 2*hi
		if hi > 1e12 {
			return nil, 0, fmt.Errorf("fair reference: no multiplier up to 1e12 reaches |a^T theta| <= %g: infeasible on the box", c)
		}
	}
	for range 60 {
		mid := (lo + hi) / 2
		inner(sigma * mid)
		cov := sigma * dot(a, theta)
		if cov > c {
			lo = mid
		} else {
			hi = mid
			if cov >= c*(1-1e-4) {
				return theta, sigma * mid, nil
			}
		}
		if hi-lo <= 1e-12*hi {
			break
		}
	}
	inner(sigma * hi)
	return theta, sigma * hi, nil
}

// fista minimizes L(theta) + nu a^T theta over [-r, r]^d from theta (warm
// start, overwritten with the result) by FISTA with step 1/lip and
// gradient-based restart, until the projected-gradient mapping has norm
// below tol (at most 200,000 iterations). It returns the number of
// iterations.
func fista(d *Data, loss Loss, a []float64, nu, r, lip, tol float64, theta []float64) int {
	dim := d.Dim
	v := append([]float64(nil), theta...)
	prev := append([]float64(nil), theta...)
	g := make([]float64, dim)
	next := make([]float64, dim)
	k := 1.0
	for it := range 200000 {
		Gradient(d, loss, v, nil, g)
		var gm float64
		for j := range next {
			next[j] = clamp(v[j]-(g[j]+nu*a[j])/lip, r)
			dj := (v[j] - next[j]) * lip
			gm += dj * dj
		}
		if math.Sqrt(gm) < tol {
			copy(theta, next)
			return it + 1
		}
		// Restart when the step goes against the momentum.
		var ip float64
		for j := range next {
			ip += (v[j] - next[j]) * (next[j] - prev[j])
		}
		kn := (1 + math.Sqrt(1+4*k*k)) / 2
		if ip > 0 {
			kn = 1
		}
		for j := range v {
			v[j] = next[j] + (k-1)/kn*(next[j]-prev[j])
			if ip > 0 {
				v[j] = next[j]
			}
		}
		k = kn
		copy(prev, next)
	}
	copy(theta, next)
	return 200000
}
