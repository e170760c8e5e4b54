package admm

// Regularizer is the closed convex R(w) of the ADMM splitting, accessed
// through its proximal operator.
type Regularizer interface {
	// Value returns R(w).
	Value(w []float64) float64
	// Prox writes argmin_w R(w) + ||w - z||^2 / (2 t) into dst (t > 0).
	Prox(t float64, z, dst []float64)
}
