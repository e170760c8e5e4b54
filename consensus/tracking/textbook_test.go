package tracking

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// lsLocal is f_i(x) = (1/2)||A x - b||^2 with A m x n.
type lsLocal struct {
	a [][]float64
	b []float64
}

func (f lsLocal) Dim() int { return len(f.a[0]) }

func (f lsLocal) Value(x []float64) float64 {
	var s float64
	for k, row := range f.a {
		r := -f.b[k]
		for l, v := range row {
			r += v * x[l]
		}
		s += r * r / 2
	}
	return s
}

func (f lsLocal) Grad(x, g []float64) {
	clear(g)
	for k, row := range f.a {
		r := -f.b[k]
		for l, v := range row {
			r += v * x[l]
		}
		for l, v := range row {
			g[l] += r * v
		}
	}
}

// StochGrad is m a_k (a_k^T x - b_k) for a row k drawn uniformly: unbiased.
func (f lsLocal) StochGrad(x, g []float64, rng *rand.Rand) int {
	k := rng.IntN(len(f.a))
	r := -f.b[k]
	for l, v := range f.a[k] {
		r += v * x[l]
	}
	for l, v := range f.a[k] {
		g[l] = float64(len(f.a)) * r * v
	}
	return 1
}

// Smoothness is ||A||_F^2 >= lambda_max(A^T A).
func (f lsLocal) Smoothness() float64 {
	var s float64
	for _, row := range f.a {
		for _, v := range row {
			s += v * v
		}
	}
	return s
}

func lsLocals(N, m, n int, seed uint64) []lsLocal {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]lsLocal, N)
	for i := range out {
		f := lsLocal{a: make([][]float64, m), b: make([]float64, m)}
		for k := range f.a {
			f.a[k] = make([]float64, n)
			for l := range f.a[k] {
				f.a[k][l] = rng.NormFloat64() / math.Sqrt(float64(m))
			}
			f.b[k] = rng.NormFloat64() + float64(i%3)
		}
		out[i] = f
	}
	return out
}

// lsOptimum returns argmin sum_i f_i = (sum_i A_i^T A_i)^{-1} sum_i A_i^T b_i,
// solved with a Cholesky factorization.
func lsOptimum(t *testing.T, fs []lsLocal) []float64 {
	n := fs[0].Dim()
	h := mat.NewSymDense(n, nil)
	rhs := mat.NewVecDense(n, nil)
	for _, f := range fs {
		a := mat.NewDense(len(f.a), n, nil)
		for k, row := range f.a {
			a.SetRow(k, row)
		}
		var ata mat.SymDense
		ata.SymOuterK(1, a.T())
		h.AddSym(h, &ata)
		var atb mat.VecDense
		atb.MulVec(a.T(), mat.NewVecDense(len(f.b), f.b))
		rhs.AddVec(rhs, &atb)
	}
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		t.Fatal("sum_i A_i^T A_i is not positive definite")
	}
	var x mat.VecDense
	if err := ch.SolveVecTo(&x, rhs); err != nil {
		t.Fatal(err)
	}
	return x.RawVector().Data
}

// textbookDIGing is DIGing on the static ring C_N with Metropolis-Hastings
// weights, written from the paper with dense slices: W_ij = 1/3 for
// neighbours and for i = j,
//
//	x^{k+1} = W x^k - alpha y^k,  y^{k+1} = W y^k + grad(x^{k+1}) - grad(x^k),
//
// y^0 = grad(x^0), with the least-squares gradients A_i^T (A_i x - b_i).
// It shares no code with the package. It returns x^k for k = 0..rounds.
func textbookDIGing(fs []lsLocal, x0 [][]float64, alpha float64, rounds int) [][][]float64 {
	N, n := len(fs), len(x0[0])
	w := make([][]float64, N)
	for i := range w {
		w[i] = make([]float64, N)
		w[i][i] += 1.0 / 3
		w[i][(i+1)%N] += 1.0 / 3
		w[i][(i+N-1)%N] += 1.0 / 3
	}
	grad := func(x [][]float64) [][]float64 {
		g := make([][]float64, N)
		for i, f := range fs {
			g[i] = make([]float64, n)
			for k, row := range f.a {
				r := -f.b[k]
				for l := range n {
					r += row[l] * x[i][l]
				}
				for l := range n {
					g[i][l] += row[l] * r
				}
			}
		}
		return g
	}
	mul := func(w, x [][]float64) [][]float64 {
		out := make([][]float64, N)
		for i := range out {
			out[i] = make([]float64, n)
			for j := range N {
				for l := range n {
					out[i][l] += w[i][j] * x[j][l]
				}
			}
		}
		return out
	}
	x := x0
	g := grad(x)
	y := g
	hist := [][][]float64{x}
	for range rounds {
		wx, wy := mul(w, x), mul(w, y)
		xn := make([][]float64, N)
		for i := range xn {
			xn[i] = make([]float64, n)
			for l := range n {
				xn[i][l] = wx[i][l] - alpha*y[i][l]
			}
		}
		gn := grad(xn)
		yn := make([][]float64, N)
		for i := range yn {
			yn[i] = make([]float64, n)
			for l := range n {
				yn[i][l] = wy[i][l] + gn[i][l] - g[i][l]
			}
		}
		x, y, g = xn, yn, gn
		hist = append(hist, x)
	}
	return hist
}

// TestStaticRingTextbook runs the agents on the static ring C_8 (p = 1,
// full gradients) and checks that (a) they reproduce the textbook
// iteration to 1e-12 in every round and (b) they converge to the exact
// minimizer of sum_i (1/2)||A_i x - b_i||^2, solved in closed form, at a
// linear rate: the log of the error falls along a straight line (slopes of
// the two halves of the run agree within 20%) down to 1e-10.
func TestStaticRingTextbook(t *testing.T) {
	const N, rounds, alpha = 8, 500, 0.1
	fs := lsLocals(N, 6, 3, 4)
	g, err := graph.Ring(N)
	if err != nil {
		t.Fatal(err)
	}
	locals := make([]objective.Local, N)
	for i := range fs {
		locals[i] = fs[i]
	}
	x0 := startPoints(N, 3, 2, 3)
	nw := newNetwork(t, Params{Step: alpha}, g, graph.Bernoulli{G: g, Seed: 1}, locals, x0)
	want := textbookDIGing(fs, x0, alpha, rounds)
	xstar := lsOptimum(t, fs)
	errs := []float64{}
	var worst float64
	for r := range rounds {
		nw.round(t, r)
		var e float64
		for i, x := range nw.xs() {
			worst = math.Max(worst, dist(x, want[r+1][i])/math.Max(1, norm(want[r+1][i])))
			e = math.Max(e, dist(x, xstar))
		}
		errs = append(errs, e)
	}
	t.Logf("agents vs textbook: max relative difference %.3g over %d rounds", worst, rounds)
	if worst > 1e-12 {
		t.Errorf("agents and the textbook iteration differ by %.3g relative", worst)
	}
	// Linear rate: fit ln(err) on [100, h] and [h, end] with err > 1e-13.
	end := len(errs) - 1
	for end > 0 && errs[end] < 1e-13 {
		end--
	}
	slope := func(a, b int) float64 {
		return (math.Log(errs[b]) - math.Log(errs[a])) / float64(b-a)
	}
	h := (100 + end) / 2
	s1, s2 := slope(100, h), slope(h, end)
	t.Logf("distance to x*: %.3g at round 0, %.3g at round %d, %.3g at round %d; rates %.5f and %.5f per round",
		errs[0], errs[h], h, errs[end], end, math.Exp(s1), math.Exp(s2))
	if errs[len(errs)-1] > 1e-10 {
		t.Errorf("max_i ||x_i - x*|| = %.3g after %d rounds: want <= 1e-10", errs[len(errs)-1], rounds)
	}
	if !(s1 < 0 && s2 < 0 && math.Abs(s1-s2) <= 0.2*math.Abs(s1)) || end-h < 50 {
		t.Errorf("not a linear rate: log-error slopes %.5f and %.5f over [100, %d] and [%d, %d]", s1, s2, h, h, end)
	}
}

// TestConvergesOnRandomGraph runs DIGing over a random graph with p = 0.6
// (a new W(zeta_t) every round, both mixing rules) with full gradients and
// checks that every x_i reaches the closed-form least-squares optimum to
// 1e-9.
func TestConvergesOnRandomGraph(t *testing.T) {
	const N = 8
	fs := lsLocals(N, 6, 3, 9)
	locals := make([]objective.Local, N)
	for i := range fs {
		locals[i] = fs[i]
	}
	xstar := lsOptimum(t, fs)
	g := randomGraph(t, N, 0.3, 0.6, 2)
	for _, m := range []gossip.Mixing{{}, {Rule: graph.MixUniform, Weight: 0.8 / float64(g.MaxDegree())}} {
		nw := newNetwork(t, Params{Step: 0.05, Mixing: m}, g, graph.Bernoulli{G: g, Seed: 6}, locals, startPoints(N, 3, 2, 7))
		var e float64
		for r := range 1500 {
			nw.round(t, r)
		}
		for _, x := range nw.xs() {
			e = math.Max(e, dist(x, xstar))
		}
		t.Logf("%q weights: max_i ||x_i - x*|| = %.3g after 1500 rounds", m.Rule, e)
		if e > 1e-9 {
			t.Errorf("%q weights: max_i ||x_i - x*|| = %.3g after 1500 rounds: want <= 1e-9", m.Rule, e)
		}
	}
}
