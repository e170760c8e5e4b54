package portfolio

// The stochastic composition form of Yu and Huang's com-SVR-ADMM, which
// Portfolio implements with all of its structure (every optional interface
// below). The methods (package admm) query a Composition through their
// oracle counter.

// Dims are the sizes of a composition problem: x in R^D, y = g(x) in R^R,
// M = m inner components g_j and N = n outer components f_i.
type Dims struct {
	D, R, M, N int
}

// Composition is the finite-sum stochastic composition
//
//	F(x) = (1/n) sum_{i=1}^n f_i( g(x) ),   g(x) = (1/m) sum_{j=1}^m g_j(x),
//
// with g_j : R^d -> R^r and f_i : R^r -> R. Implementations may assume
// indices are in range and slices have the lengths Dims gives; callers
// (the methods of package admm and their decentralized forms) guarantee
// both. Portfolio is one.
type Composition interface {
	// Dims returns the problem sizes.
	Dims() Dims
	// Inner writes g_j(x) (length r) into dst.
	Inner(j int, x, dst []float64)
	// InnerJacT writes (dg_j(x))^T u (length d) into dst, u of length r.
	InnerJacT(j int, x, u, dst []float64)
	// InnerJacobian writes the r x d Jacobian dg_j(x), row-major, into dst.
	InnerJacobian(j int, x, dst []float64)
	// Outer returns f_i(y).
	Outer(i int, y []float64) float64
	// OuterGrad writes grad f_i(y) (length r) into dst.
	OuterGrad(i int, y, dst []float64)
}

// IdentityStackedJacobian is implemented by compositions whose inner
// Jacobians are the identity with rows below it,
//
//	dg_j(x) = [ I_d ; B_j(x) ],   B_j(x) of size (r - d) x d,
//
// (r >= d). Methods that keep a Jacobian use this structure instead of
// the dense r x d matrix: the mean (1/m) sum_j dg_j(x) is [I_d; (1/m)
// sum_j B_j(x)] and its transpose product is u_{1..d} + B^T u_{d+1..r},
// O((r - d) d) where the dense form costs O(r d) per query and per
// product.
type IdentityStackedJacobian interface {
	// InnerJacobianTail writes B_j(x), row-major, (r - d) x d, into dst.
	InnerJacobianTail(j int, x, dst []float64)
}

// StackedInner is implemented by compositions whose inner functions are
// the point itself with further rows below it,
//
//	g_j(x) = [ x ; h_j(x) ],   h_j : R^d -> R^(r-d),
//
// (r >= d). The counter and the estimator use this structure to skip
// copying x into every g_j(x) and to evaluate several h_j at once; the
// values are the ones Inner writes, bit for bit.
type StackedInner interface {
	// InnerTails writes h_j(x) for j = js[0], js[1], ..., r - d values
	// each, one after the other into dst (length len(js)(r - d)). Each
	// value must equal, bit for bit, the one Inner(j, x, .) writes below
	// x.
	InnerTails(x []float64, js []int, dst []float64)
}

// InnerJacTSummer is implemented by compositions that add up the
// transposed Jacobian products of all inner components in one pass, faster
// than m calls of InnerJacT.
type InnerJacTSummer interface {
	// InnerJacTSum writes sum_j (dg_j(x))^T u into dst: every entry is
	// 0 + t_0 + t_1 + ... + t_{m-1}, added left to right, with t_j the
	// entry InnerJacT(j, x, u, .) writes, so that it equals bit for bit
	// the sum of m InnerJacT calls.
	InnerJacTSum(x, u, dst []float64)
}

// OuterGradSummer is implemented by compositions that add up the outer
// gradients of all components in one pass, faster than n calls of
// OuterGrad.
type OuterGradSummer interface {
	// OuterGradSum writes sum_i grad f_i(y) into dst: every entry is
	// 0 + t_0 + t_1 + ... + t_{n-1}, added left to right, with t_i the
	// entry OuterGrad(i, y, .) writes, so that it equals bit for bit the
	// sum of n OuterGrad calls.
	OuterGradSum(y, dst []float64)
}

// OuterGradPairer is implemented by compositions that evaluate the
// gradient of one outer component at two points faster than two calls of
// OuterGrad.
type OuterGradPairer interface {
	// OuterGradPair writes grad f_i(y) into dy and grad f_i(z) into dz,
	// bit for bit the values of OuterGrad(i, y, dy) and OuterGrad(i, z,
	// dz).
	OuterGradPair(i int, y, z, dy, dz []float64)
}

// InnerJacTDiffer is implemented by compositions that form the difference
// of two transposed Jacobian products of one inner component faster than
// two calls of InnerJacT.
type InnerJacTDiffer interface {
	// InnerJacTDiff writes (dg_j(x))^T u - (dg_j(y))^T u into dst: every
	// entry is a - b with a and b the entries InnerJacT(j, x, u, .) and
	// InnerJacT(j, y, u, .) write, bit for bit.
	InnerJacTDiff(j int, x, y, u, dst []float64)
}

// axpy sets y += a x.
func axpy(y []float64, a float64, x []float64) {
	y = y[:len(x)] // one bounds check for the loop
	for k, v := range x {
		y[k] += float64(a * v)
	}
}

// dot returns <x, y>.
func dot(x, y []float64) float64 {
	var s float64
	y = y[:len(x)] // one bounds check for the loop
	for k, v := range x {
		s += float64(v * y[k])
	}
	return s
}
