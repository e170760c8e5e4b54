package constrlogistic

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/consim/consim/graph"
)

// Data generation of Section 5.1. Every random number comes from a PCG
// source seeded by graph.Hash(seed, 0, drawData, key, 0) and
// graph.Hash(seed, 0, drawData, key, 1) with the keys below, so (spec,
// seed) rebuilds the same instance in any process.
const drawData = 0x70656e616c7479 // "penalty"

// Hash keys of the generated quantities.
const (
	keyTruth   = 0 // (w^, b^)
	keySamples = 1 // the samples (X, Y)
	keyStart   = 2 // the starting point
)

// source returns the PCG generator of key for seed.
func source(seed, key uint64) *rand.Rand {
	return rand.New(rand.NewPCG(graph.Hash(seed, 0, drawData, key, 0), graph.Hash(seed, 0, drawData, key, 1)))
}

// uniformBox returns a vector of n entries drawn from U[-1, 1].
func uniformBox(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for j := range v {
		v[j] = 2*rng.Float64() - 1
	}
	return v
}

// LogisticModel is the stochastic logistic loss of (42): X ~ N(0, I_n),
// P(Y = 1 | X = x) = sigma(w^T x + b) for the ground truth W = (w^, b^), and
// f~((w, b), (X, Y)) = log(1 + exp(-Y (w^T X + b))). It is not safe for
// concurrent use (it keeps a sample buffer).
type LogisticModel struct {
	W   []float64 // (w^, b^), length n+1
	buf []float64
}

// Dim implements Stochastic: n + 1.
func (m *LogisticModel) Dim() int { return len(m.W) }

// Smoothness implements Stochastic: grad f = E[-Y sigma(-Y t) (X, 1)] has
// Jacobian E[sigma'(t) (X,1)(X,1)^T], of norm at most
// lambda_max(E[(X,1)(X,1)^T])/4 = 1/4 since E[(X,1)(X,1)^T] = I.
func (m *LogisticModel) Smoothness() float64 { return 0.25 }

// Draw writes one sample X into x (length n) and returns Y, drawing the n
// normals of X first and then the uniform that decides Y.
func (m *LogisticModel) Draw(rng *rand.Rand, x []float64) float64 {
	n := len(m.W) - 1
	t := m.W[n]
	for j := range n {
		x[j] = rng.NormFloat64()
		t += m.W[j] * x[j]
	}
	if rng.Float64() < sigmoid(t) {
		return 1
	}
	return -1
}

// StochGrad implements Stochastic: grad f~ at one fresh sample.
func (m *LogisticModel) StochGrad(x, g []float64, rng *rand.Rand) {
	n := len(m.W) - 1
	if len(m.buf) != n {
		m.buf = make([]float64, n)
	}
	y := m.Draw(rng, m.buf)
	t := x[n]
	for j, v := range m.buf {
		t += x[j] * v
	}
	d := -y * sigmoid(-y*t)
	for j, v := range m.buf {
		g[j] = d * v
	}
	g[n] = d
}

// SyntheticSpec describes an instance of Section 5.1.
type SyntheticSpec struct {
	// N is the number of features n (100 in the paper).
	N int
	// Samples is the number of generated samples (10,000).
	Samples int
	// Core is m, the number of core samples turned into constraints (50).
	Core int
	// Lambda is the l1 weight (0.1).
	Lambda float64
	// Seed keys the data, the start and (in RunSynthetic) the samples.
	Seed uint64
}

// PaperSynthetic returns the sizes of Section 5.1 with the given seed.
func PaperSynthetic(seed uint64) SyntheticSpec {
	return SyntheticSpec{N: 100, Samples: 10000, Core: 50, Lambda: 0.1, Seed: seed}
}

// Validate checks the sizes.
func (s SyntheticSpec) Validate() error {
	if s.N < 1 || s.Core < 1 || s.Samples < s.Core || !(s.Lambda >= 0) {
		return fmt.Errorf("constrlogistic: synthetic spec %+v: want N >= 1, 1 <= Core <= Samples, Lambda >= 0", s)
	}
	return nil
}

// Synthetic is an instance of (42).
type Synthetic struct {
	Spec SyntheticSpec
	// Model is the sampling model (ground truth (w^, b^)).
	Model *LogisticModel
	// Data are the generated samples; the paper's objective is their
	// average loss plus psi.
	Data *Logistic
	// Cons are the core constraints -y~_i (w^T x~_i + b) <= 0.
	Cons *Linear
	// Psi is 0.1 ||w||_1 + delta_[-1,1]^{n+1}.
	Psi L1Box
	// X1 is the start, entries U[-1, 1].
	X1 []float64
	// Core lists the indices of the core samples in Data.
	Core []int
}

// NewSynthetic generates an instance of (42): (w^, b^) with entries
// U[-1,1]; Samples pairs (X, Y) from the model; the Core samples with the
// smallest |w^T x + b^| (closest to the true decision boundary; ties by
// index), relabelled y~ = sgn(w^T x~ + b^); and the start x_1 with entries
// U[-1, 1].
func NewSynthetic(spec SyntheticSpec) (*Synthetic, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	n := spec.N
	model := &LogisticModel{W: uniformBox(source(spec.Seed, keyTruth), n+1)}
	rng := source(spec.Seed, keySamples)
	a := Sparse{Cols: n, Ptr: make([]int, 1, spec.Samples+1)}
	y := make([]float64, spec.Samples)
	x := make([]float64, n)
	margin := make([]float64, spec.Samples)
	for i := range y {
		y[i] = model.Draw(rng, x)
		t := model.W[n]
		for j, v := range x {
			a.Idx = append(a.Idx, j)
			a.Val = append(a.Val, v)
			t += model.W[j] * v
		}
		a.Ptr = append(a.Ptr, len(a.Idx))
		margin[i] = t
	}
	data, err := NewLogisticSparse(a, y)
	if err != nil {
		return nil, err
	}
	core := nearest(margin, spec.Core)
	cons := coreConstraints(&data.A, core, margin)
	return &Synthetic{Spec: spec, Model: model, Data: data, Cons: cons,
		Psi: L1Box{Lambda: spec.Lambda, Bound: 1, Free: 1},
		X1:  uniformBox(source(spec.Seed, keyStart), n+1), Core: core}, nil
}

// nearest returns the indices of the m smallest |margin_i|, ascending by
// |margin| and then by index.
func nearest(margin []float64, m int) []int {
	idx := make([]int, len(margin))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(p, q int) bool { return math.Abs(margin[idx[p]]) < math.Abs(margin[idx[q]]) })
	return append([]int(nil), idx[:m]...)
}

// coreConstraints returns c_i(w, b) = -y~_i (w^T x~_i + b) with y~_i =
// sgn(margin) for the core rows of a: rows -y~_i (x~_i, 1), b = 0.
func coreConstraints(a *Sparse, core []int, margin []float64) *Linear {
	n := a.Cols
	c := Sparse{Cols: n + 1, Ptr: make([]int, 1, len(core)+1)}
	for _, i := range core {
		sg := 0.0
		switch {
		case margin[i] > 0:
			sg = 1
		case margin[i] < 0:
			sg = -1
		}
		for k := a.Ptr[i]; k < a.Ptr[i+1]; k++ {
			c.Idx = append(c.Idx, a.Idx[k])
			c.Val = append(c.Val, -sg*a.Val[k])
		}
		c.Idx = append(c.Idx, n)
		c.Val = append(c.Val, -sg)
		c.Ptr = append(c.Ptr, len(c.Idx))
	}
	return &Linear{A: c, B: make([]float64, len(core))}
}

// Objective returns the paper's objective of (42) at x: the average loss
// over the generated samples plus psi.
func (s *Synthetic) Objective(x []float64) float64 { return s.Data.Value(x) + s.Psi.Value(x) }

// Optimum solves the sample-average problem of (42) (the average loss over
// Data, the objective the paper plots) by SolveALM: the reference F* of the
// objective gap.
func (s *Synthetic) Optimum(opt SolveOptions) (Optimum, error) {
	return SolveALM(FullGradient(s.Data, s.Data.Smoothness()), s.Cons, s.Psi, s.X1, opt)
}
