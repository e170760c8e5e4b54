package fairness

import (
	"fmt"
	"math"

	"github.com/consim/consim/graph"
)

// streamSynthetic is the common-randomness stream of Synthetic.
var streamSynthetic = graph.NamedStream("fair-synthetic")

// Synthetic generates the data of Zafar et al.'s synthetic experiment:
// perClass examples of each label, x ~ N((2, 2), [[5, 1], [1, 5]]) for y =
// +1 and x ~ N((-2, -2), [[10, 1], [1, 3]]) for y = -1; the sensitive
// attribute is z = 1 with probability p1(x')/(p1(x') + p2(x')), the two
// class densities at x rotated by phi (pi/4 in their paper; a smaller
// phi correlates z with the label more). Features are (x_1, x_2, 1).
func Synthetic(perClass int, phi float64, seed uint64) (*Data, error) {
	if perClass < 1 {
		return nil, fmt.Errorf("fair synthetic: %d examples per class, want >= 1", perClass)
	}
	rng := streamSynthetic.Rand(seed, 0, 0)
	cls := [2]struct {
		mu       [2]float64
		s11, s22 float64
		y        float64
		l11, l21 float64
		l22, det float64
		inv      [3]float64 // inverse covariance (i11, i12, i22)
	}{
		{mu: [2]float64{2, 2}, s11: 5, s22: 5, y: 1},
		{mu: [2]float64{-2, -2}, s11: 10, s22: 3, y: -1},
	}
	for c := range cls {
		k := &cls[c]
		k.l11 = math.Sqrt(k.s11)
		k.l21 = 1 / k.l11
		k.l22 = math.Sqrt(k.s22 - k.l21*k.l21)
		k.det = k.s11*k.s22 - 1
		k.inv = [3]float64{k.s22 / k.det, -1 / k.det, k.s11 / k.det}
	}
	pdf := func(c int, x0, x1 float64) float64 {
		k := &cls[c]
		u0, u1 := x0-k.mu[0], x1-k.mu[1]
		q := u0*u0*k.inv[0] + 2*u0*u1*k.inv[1] + u1*u1*k.inv[2]
		return math.Exp(-q/2) / (2 * math.Pi * math.Sqrt(k.det))
	}
	n := 2 * perClass
	d := &Data{Dim: 3, X: make([]float64, 0, 3*n), Y: make([]float64, 0, n), Z: make([]float64, 0, n)}
	cs, sn := math.Cos(phi), math.Sin(phi)
	for c := range cls {
		k := &cls[c]
		for range perClass {
			e0, e1 := rng.NormFloat64(), rng.NormFloat64()
			x0 := k.mu[0] + k.l11*e0
			x1 := k.mu[1] + k.l21*e0 + k.l22*e1
			// x' = x R, R = [[cos, -sin], [sin, cos]] (row vector times R).
			r0, r1 := x0*cs+x1*sn, -x0*sn+x1*cs
			p1, p2 := pdf(0, r0, r1), pdf(1, r0, r1)
			z := 0.0
			if p1+p2 > 0 && rng.Float64() < p1/(p1+p2) {
				z = 1
			}
			d.X = append(d.X, x0, x1, 1)
			d.Y = append(d.Y, k.y)
			d.Z = append(d.Z, z)
		}
	}
	return d, d.Validate()
}
