package portfolio

import "fmt"

// Ridge is R(w) = (mu/2) ||w||^2, the regularizer of the portfolio
// problem in the paper's experiments; it implements admm.Regularizer.
type Ridge struct{ Mu float64 }

// NewRidge returns R(w) = (mu/2)||w||^2 for mu >= 0.
func NewRidge(mu float64) (Ridge, error) {
	if !(mu >= 0) {
		return Ridge{}, fmt.Errorf("portfolio: ridge weight mu = %v must be >= 0", mu)
	}
	return Ridge{Mu: mu}, nil
}

// Value returns (mu/2) ||w||^2.
func (r Ridge) Value(w []float64) float64 { return r.Mu / 2 * dot(w, w) }

// Prox writes z / (1 + t mu) into dst.
func (r Ridge) Prox(t float64, z, dst []float64) {
	s := 1 / (1 + float64(t*r.Mu))
	for k, v := range z {
		dst[k] = s * v
	}
}
