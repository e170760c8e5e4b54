// Package bilevel is the bilevel problem form of Lu's TSP ("TSP: A
// Two-Sided Smoothed Primal-Dual Method for Nonconvex Bilevel
// Optimization", ICML 2025),
//
//	min_{x, y} f(x, y)  s.t.  y in argmin_{y'} g(x, y'),
//
// given by first-order oracles (Objective, Bilevel), its split over task
// blocks for the distributed form (Split, Join), the capability of the
// problems that offer it (Cap, Provider), and the tiny problem kind
// bilevel_quad with a closed-form solution (Problem) and its export. The data
// hyper-cleaning problem, the other shipped kind of this form, is package
// problems/hyperclean.
//
// bilevel is pure: no I/O but its export's (through problems/datafile), no
// goroutines, no global random source. It may import consensus (for the
// measure declarations of Provider), consensus/registry, objective, graph
// and problems/datafile; it must not import an
// algorithm package (consensus/<algorithm>), node, coordinator, scenarios
// or cmd.
package bilevel

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
)

// Objective is a first-order oracle of one level's objective phi(x, y),
// x in R^NX, y in R^NY. Implementations may keep scratch space and need
// not be safe for concurrent use.
type Objective interface {
	// Value returns phi(x, y).
	Value(x, y []float64) float64
	// Grad overwrites gx with grad_x phi(x, y) and gy with grad_y phi(x, y).
	// A nil slice is not wanted and is not touched.
	Grad(x, y, gx, gy []float64)
}

// ValueGrader is an Objective that returns its value at no extra cost while
// computing gradients. Methods use it when an objective offers it.
type ValueGrader interface {
	// ValueGrad is Grad(x, y, gx, gy) that also returns phi(x, y).
	ValueGrad(x, y, gx, gy []float64) float64
}

// ValueGrad returns o(x, y) and writes the wanted gradients, in one call
// when o is a ValueGrader.
func ValueGrad(o Objective, x, y, gx, gy []float64) float64 {
	if vg, ok := o.(ValueGrader); ok {
		return vg.ValueGrad(x, y, gx, gy)
	}
	o.Grad(x, y, gx, gy)
	return o.Value(x, y)
}

// Bilevel is the problem
//
//	min_{x in R^NX, y in R^NY} f(x, y)  s.t.  y in argmin_{y'} g(x, y'),
//
// given by first-order oracles of the upper level F = f and the lower
// level G = g.
type Bilevel struct {
	NX, NY int
	F, G   Objective
}

// Validate checks the dimensions and oracles.
func (b Bilevel) Validate() error {
	if b.NX <= 0 || b.NY <= 0 {
		return fmt.Errorf("bilevel: dimensions NX = %d, NY = %d must be positive", b.NX, b.NY)
	}
	if b.F == nil || b.G == nil {
		return fmt.Errorf("bilevel: the upper- and lower-level oracles F and G must be set")
	}
	return nil
}

// CheckStart checks x0 and y0 against the dimensions of b.
func (b Bilevel) CheckStart(x0, y0 []float64) error {
	if len(x0) != b.NX || len(y0) != b.NY {
		return fmt.Errorf("bilevel: start point has len(x0) = %d, len(y0) = %d, want %d and %d", len(x0), len(y0), b.NX, b.NY)
	}
	return nil
}

// Split is a bilevel problem whose lower level is a sum over task blocks
// and whose upper level depends on y only:
//
//	f(x, y) = F0(y),   g(x, y) = G0(y) + sum_k G_k(x_k, y),
//
// with x = (x_1, ..., x_K), x_k in R^NX[k]. F0 and G0 are called with a nil
// x (and a nil gx); Tasks[k] with x_k. It is the structure the distributed
// form needs: the task agent k holds x_k and G_k, the upper-level agent F0
// and G0 (package consensus/tsp). Data hyper-cleaning has it (F0: the validation loss, G0: the
// regularizer, G_k: the weighted loss of the k-th block of training
// samples).
type Split struct {
	NY    int
	F0    Objective
	G0    Objective // may be nil: no term that depends on y alone
	Tasks []Objective
	NX    []int
}

// Validate checks the shape of s.
func (s *Split) Validate() error {
	if s.NY <= 0 || s.F0 == nil || len(s.Tasks) == 0 || len(s.Tasks) != len(s.NX) {
		return fmt.Errorf("bilevel: split problem needs NY > 0 (have %d), F0 and as many tasks as block sizes (have %d and %d)", s.NY, len(s.Tasks), len(s.NX))
	}
	for k, n := range s.NX {
		if n <= 0 || s.Tasks[k] == nil {
			return fmt.Errorf("bilevel: split problem task %d has %d variables or no oracle", k, n)
		}
	}
	return nil
}

// Offsets returns the start of every block in x and the total NX.
func (s *Split) Offsets() ([]int, int) {
	off := make([]int, len(s.NX))
	n := 0
	for k, m := range s.NX {
		off[k] = n
		n += m
	}
	return off, n
}

// Join returns s as one Bilevel. Its G sums, in this order, 0, G0 and
// G_1, ..., G_K (values and y-gradients), which is the order in which the
// distributed form's all-reduce sums the terms of the upper-level agent (id
// 0) and the task agents (ids 1..K); so the joined problem and the agents
// compute the same bits.
func (s *Split) Join() (Bilevel, error) {
	if err := s.Validate(); err != nil {
		return Bilevel{}, err
	}
	off, nx := s.Offsets()
	j := &joined{s: s, off: off, buf: make([]float64, s.NY)}
	return Bilevel{NX: nx, NY: s.NY, F: joinedF{j}, G: joinedG{j}}, nil
}

// joined holds the shared state of the joined oracles.
type joined struct {
	s   *Split
	off []int
	buf []float64
}

// block returns x_k, a view of x.
func (j *joined) block(x []float64, k int) []float64 {
	return x[j.off[k] : j.off[k]+j.s.NX[k]]
}

type joinedF struct{ j *joined }

// Value returns F0(y).
func (f joinedF) Value(_, y []float64) float64 { return f.j.s.F0.Value(nil, y) }

// Grad writes grad_x f = 0 and grad_y f = grad F0(y).
func (f joinedF) Grad(_, y, gx, gy []float64) {
	clear(gx)
	if gy != nil {
		f.j.s.F0.Grad(nil, y, nil, gy)
	}
}

type joinedG struct{ j *joined }

// Value returns 0 + G0(y) + sum_k G_k(x_k, y).
func (g joinedG) Value(x, y []float64) float64 { return g.ValueGrad(x, y, nil, nil) }

// Grad writes the gradients of g.
func (g joinedG) Grad(x, y, gx, gy []float64) { g.ValueGrad(x, y, gx, gy) }

// ValueGrad returns g(x, y) and writes its gradients, summing the terms in
// the order of the distributed all-reduce.
func (g joinedG) ValueGrad(x, y, gx, gy []float64) float64 {
	j := g.j
	var v float64
	if gy != nil {
		clear(gy)
	}
	var buf []float64
	if gy != nil {
		buf = j.buf
	}
	if j.s.G0 != nil {
		v += ValueGrad(j.s.G0, nil, y, nil, buf)
		addTo(gy, buf)
	}
	for k, t := range j.s.Tasks {
		var gxk []float64
		if gx != nil {
			gxk = j.block(gx, k)
		}
		v += ValueGrad(t, j.block(x, k), y, gxk, buf)
		addTo(gy, buf)
	}
	return v
}

// addTo adds b to a (a nil a is a no-op).
func addTo(a, b []float64) {
	for i := range a {
		a[i] += b[i]
	}
}

// Cap is the capability of the bilevel problems whose lower level is a
// sum over task blocks (Provider).
const Cap = "split_bilevel"

// Provider is the capability Cap: a bilevel problem with the structure of
// Split, to be cut over K task agents, and its measures. Dim is 0 and
// Central fails with registry.ErrNoCentral: the star of an upper-level
// agent and task agents (package consensus/tsp) measures itself
// (registry.Evaluator).
type Provider interface {
	registry.Instance
	// Split returns the problem cut into k task blocks, with fresh
	// oracles on every call.
	Split(k int) (*Split, error)
	// LowerTerms is m, the number of terms of the lower-level sum in the
	// units of the algorithm's steps (the training samples of
	// hyper-cleaning; 1 for a problem whose lower level is not a sum of
	// samples): tsp's units: mean converts its steps by m.
	LowerTerms() int
	// Optimum is f*, NaN when unknown, and whether the problem is
	// convex.
	Optimum() (float64, bool)
	// Columns declares the problem's own measures, Measure computes them
	// at (x, y) (x the blocks concatenated); DistToOpt is ||(x, y) - the
	// optimum|| in the coordinates the problem knows it, NaN otherwise.
	Columns() []consensus.Measure
	Measure(x, y []float64) (values []float64, distToOpt float64, err error)
}
