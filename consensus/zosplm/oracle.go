package zosplm

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/floats"

	"github.com/consim/consim/consensus"
)

// BlackBox is a constrained problem known by its values: one joint call
// returns f(x) and h_1(x), ..., h_m(x). A *qcqp.QCQP is one.
type BlackBox interface {
	// Dim is n.
	Dim() int
	// Constraints is m.
	Constraints() int
	// Eval writes [f(x), h_1(x), ..., h_m(x)] into v (length 1 + m) using
	// work (length WorkLen()) as scratch. It must be deterministic and
	// safe for concurrent use with distinct v and work.
	Eval(x, v, work []float64)
	// WorkLen is the length of Eval's scratch.
	WorkLen() int
}

// Operations of the Oracle (consensus.EvalRequest.Op).
const (
	// OpValue evaluates the point Arg = x (length n) and returns
	// [f(x), h_1(x), ..., h_m(x)]: one oracle call.
	OpValue = 1
	// OpSums evaluates a chunk of directions D_i, i = first..first+count-1
	// of the iteration whose RoundKey is Key, at the points x + r D_i, and
	// returns the sums over the chunk
	//
	//	S_f   = sum_i (f(x + r D_i) - f0) D_i                 (n values)
	//	S_h_j = sum_i (h_j(x + r D_i) - h0_j) D_i, j = 1..m   (m n values)
	//	S_p   = sum_i (r <D_i, w> + (r^2/2) ||D_i||^2) D_i     (n values, only if w is given)
	//
	// where S_p is the same sum for the known proximal term
	// (1/2)||x - z||^2 with w = x - z: (1/2)||x + r D - z||^2 -
	// (1/2)||x - z||^2 = r <D, w> + (r^2/2)||D||^2. Arg is
	// [r, dist, first, count, f0, h0_1..h0_m, x_1..x_n, (w_1..w_n)]:
	// the base values come from the iteration's OpValue request, so the
	// chunks share one base value and an iteration makes k + 1 calls.
	OpSums = 2
	// OpComposite is OpSums for the single function
	// Phi(x) = f(x) + sum_j psi_j(h_j(x)), with
	//
	//	psi_j(h) = y_j h                                         if rho_j = 0,
	//	psi_j(h) = (max(0, y_j + rho_j h)^2 - y_j^2) / (2 rho_j)   if rho_j > 0
	//
	// (the augmented Lagrangian term of an inequality), returning
	// S_Phi = sum_i (Phi(x + r D_i) - Phi(x)) D_i (n values) and S_p as in
	// OpSums if w is given. Arg is [r, dist, first, count, f0,
	// h0_1..h0_m, y_1..y_m, rho_1..rho_m, x_1..x_n, (w_1..w_n)].
	OpComposite = 3
)

// Header positions of the chunk requests' Arg.
const (
	argR     = 0
	argDist  = 1
	argFirst = 2
	argCount = 3
	argF0    = 4
	argH0    = 5 // m values
)

// Oracle evaluates the requests of the methods of this package on a
// BlackBox; it implements consensus.Oracle. Evaluate is a pure function of
// the request: directions come from the request's Key through
// Directions, every value from BlackBox.Eval. It is safe for concurrent
// use; its scratch comes from a pool, so a chunk of any size costs no
// allocation once the pool is warm (the result is appended to out).
type Oracle struct {
	bb   BlackBox
	n, m int
	pool sync.Pool
}

var _ consensus.Oracle = (*Oracle)(nil)

type oracleScratch struct {
	dirs     *Directions
	d, pt, v []float64
	work     []float64
}

// NewOracle returns the oracle of bb.
func NewOracle(bb BlackBox) *Oracle {
	o := &Oracle{bb: bb, n: bb.Dim(), m: bb.Constraints()}
	o.pool.New = func() any {
		return &oracleScratch{dirs: NewDirections(), d: make([]float64, o.n), pt: make([]float64, o.n),
			v: make([]float64, 1+o.m), work: make([]float64, bb.WorkLen())}
	}
	return o
}

// ResultLen is the number of values Evaluate returns for a request of op
// with or without w.
func (o *Oracle) ResultLen(op int, withW bool) int {
	extra := 0
	if withW {
		extra = o.n
	}
	switch op {
	case OpValue:
		return 1 + o.m
	case OpSums:
		return (1+o.m)*o.n + extra
	case OpComposite:
		return o.n + extra
	}
	return 0
}

// Evaluate implements consensus.Oracle.
func (o *Oracle) Evaluate(req consensus.EvalRequest, out []float64) ([]float64, error) {
	n, m := o.n, o.m
	s := o.pool.Get().(*oracleScratch)
	defer o.pool.Put(s)
	switch req.Op {
	case OpValue:
		if len(req.Arg) != n {
			return out, fmt.Errorf("zosplm: oracle: value request has %d values, want n = %d", len(req.Arg), n)
		}
		o.bb.Eval(req.Arg, s.v, s.work)
		return append(out, s.v...), nil
	case OpSums, OpComposite:
	default:
		return out, fmt.Errorf("zosplm: oracle: operation %d unknown", req.Op)
	}
	hdr := argH0 + m
	if req.Op == OpComposite {
		hdr += 2 * m
	}
	arg := req.Arg
	var withW bool
	switch len(arg) {
	case hdr + n:
	case hdr + 2*n:
		withW = true
	default:
		return out, fmt.Errorf("zosplm: oracle: operation %d has %d values, want %d or %d", req.Op, len(arg), hdr+n, hdr+2*n)
	}
	r, dist := arg[argR], Dist(arg[argDist])
	first, count := int(arg[argFirst]), int(arg[argCount])
	if !(r > 0) || math.IsInf(r, 0) || (dist != Sphere && dist != Gaussian) || first < 0 || count < 1 ||
		float64(first) != arg[argFirst] || float64(count) != arg[argCount] {
		return out, fmt.Errorf("zosplm: oracle: chunk header r = %g, dist = %g, first = %g, count = %g invalid", arg[argR], arg[argDist], arg[argFirst], arg[argCount])
	}
	f0, h0 := arg[argF0], arg[argH0:argH0+m]
	var y, rho []float64
	if req.Op == OpComposite {
		y, rho = arg[argH0+m:argH0+2*m], arg[argH0+2*m:argH0+3*m]
	}
	x := arg[hdr : hdr+n]
	var w []float64
	if withW {
		w = arg[hdr+n:]
	}
	width := o.ResultLen(req.Op, withW)
	base := len(out)
	out = slices.Grow(out, width)[:base+width]
	res := out[base:]
	clear(res)
	for i := first; i < first+count; i++ {
		dd := s.dirs.Fill(req.Key, i, dist, s.d)
		for j, xj := range x {
			s.pt[j] = xj + r*s.d[j]
		}
		o.bb.Eval(s.pt, s.v, s.work)
		switch req.Op {
		case OpSums:
			if df := s.v[0] - f0; df != 0 {
				floats.AddScaled(res[:n], df, s.d)
			}
			for j := range m {
				if dh := s.v[1+j] - h0[j]; dh != 0 {
					floats.AddScaled(res[(1+j)*n:(2+j)*n], dh, s.d)
				}
			}
		case OpComposite:
			dphi := s.v[0] - f0
			for j := range m {
				dphi += psiDiff(s.v[1+j], h0[j], y[j], rho[j])
			}
			if dphi != 0 {
				floats.AddScaled(res[:n], dphi, s.d)
			}
		}
		if withW {
			dp := r*floats.Dot(s.d, w) + r*r/2*dd
			if dp != 0 {
				floats.AddScaled(res[width-n:], dp, s.d)
			}
		}
	}
	return out, nil
}

// psiDiff returns psi(h) - psi(h0) for the term psi of OpComposite.
func psiDiff(h, h0, y, rho float64) float64 {
	if rho == 0 {
		return y * (h - h0)
	}
	a, a0 := math.Max(0, y+rho*h), math.Max(0, y+rho*h0)
	return (a - a0) * (a + a0) / (2 * rho)
}
