package penalty

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/consim/consim/problems/constrlogistic"
)

// quadSum is fbar(x) = (1/s) sum_i (1/2)||x - c_i||^2, L_i = 1.
type quadSum struct{ c [][]float64 }

func (q *quadSum) Dim() int        { return len(q.c[0]) }
func (q *quadSum) Len() int        { return len(q.c) }
func (q *quadSum) Lip(int) float64 { return 1 }
func (q *quadSum) Value(x []float64) float64 {
	var s float64
	for _, c := range q.c {
		for j, v := range x {
			s += 0.5 * (v - c[j]) * (v - c[j])
		}
	}
	return s / float64(len(q.c))
}
func (q *quadSum) AddGrad(i int, x []float64, scale float64, g []float64) {
	for j, v := range x {
		g[j] += scale * (v - q.c[i][j])
	}
}

// quadOptimum returns the minimizer of (1/2)||x - c||^2 + psi(x) s.t.
// a^T x <= b, with psi = L1Box: x(lambda) = prox_psi(c - lambda a) and
// lambda = 0 if x(0) is feasible, else the root of a^T x(lambda) = b found
// by bisection (a^T x(lambda) is nonincreasing in lambda).
func quadOptimum(t *testing.T, c, a []float64, b float64, psi constrlogistic.L1Box) ([]float64, float64) {
	t.Helper()
	x := make([]float64, len(c))
	at := func(lam float64) float64 {
		for j := range x {
			x[j] = c[j] - lam*a[j]
		}
		psi.Prox(x, 1, x)
		var s float64
		for j := range x {
			s += a[j] * x[j]
		}
		return s
	}
	if at(0) <= b {
		return append([]float64(nil), x...), 0
	}
	lo, hi := 0.0, 1.0
	for at(hi) > b {
		hi *= 2
		if hi > 1e12 {
			t.Fatal("quadOptimum: infeasible")
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if at(mid) > b {
			lo = mid
		} else {
			hi = mid
		}
	}
	at(hi)
	return append([]float64(nil), x...), hi
}

// smallLogistic returns a random logistic finite sum with s rows and n
// features from seed, labels from a planted model with 10% flips.
func smallLogistic(t *testing.T, s, n int, seed uint64) *constrlogistic.Logistic {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	w := make([]float64, n)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	a := constrlogistic.Sparse{Cols: n, Ptr: []int{0}}
	y := make([]float64, s)
	for i := range y {
		var z float64
		for j := range n {
			if rng.Float64() < 0.6 { // sparse rows
				v := rng.NormFloat64()
				a.Idx = append(a.Idx, j)
				a.Val = append(a.Val, v)
				z += v * w[j]
			}
		}
		a.Ptr = append(a.Ptr, len(a.Idx))
		y[i] = 1
		if z < 0 {
			y[i] = -1
		}
		if rng.Float64() < 0.1 {
			y[i] = -y[i]
		}
	}
	f, err := constrlogistic.NewLogisticSparse(a, y)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// smallProblem builds (43) from smallLogistic data with m core
// constraints; it fails the test if a reference solve fails.
func smallProblem(t *testing.T, s, n, m int, seed uint64) *constrlogistic.FiniteSumProblem {
	t.Helper()
	f := smallLogistic(t, s, n, seed)
	p, err := constrlogistic.NewFiniteSumProblemSparse(f.A, f.Y, constrlogistic.FiniteSumSpec{Lambda: 0.03, Core: m, Seed: seed, Solve: constrlogistic.SolveOptions{Tol: 1e-11}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func maxAbsDiff(a, b []float64) float64 {
	var d float64
	for j := range a {
		d = math.Max(d, math.Abs(a[j]-b[j]))
	}
	return d
}
