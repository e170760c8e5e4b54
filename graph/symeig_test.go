package graph

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomSym returns a symmetric n x n matrix with entries of scale s, and
// an optional rank deficiency (rank r < n when r > 0).
func randomSym(rng *rand.Rand, n, r int, s float64) *mat.SymDense {
	a := mat.NewSymDense(n, nil)
	if r > 0 {
		b := mat.NewDense(n, r, nil)
		for i := range n {
			for j := range r {
				b.Set(i, j, s*rng.NormFloat64())
			}
		}
		a.SymOuterK(1, b)
		return a
	}
	for i := range n {
		for j := i; j < n; j++ {
			a.SetSym(i, j, s*rng.NormFloat64())
		}
	}
	return a
}

// TestSymEigenvaluesMatchGonum compares SymEigenvalues with gonum's
// eigensolver, a different algorithm (implicit QL), on random symmetric
// matrices, indefinite and low-rank, of several sizes and scales.
func TestSymEigenvaluesMatchGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 9))
	for _, tc := range []struct{ n, r int }{{1, 0}, {2, 0}, {3, 0}, {4, 2}, {5, 0}, {8, 3}, {13, 0}, {30, 0}, {40, 7}} {
		for _, s := range []float64{1e-3, 1, 1e4} {
			a := randomSym(rng, tc.n, tc.r, s)
			var es mat.EigenSym
			if !es.Factorize(a, false) {
				t.Fatal("gonum did not converge")
			}
			want := es.Values(nil)
			got := SymEigenvalues(a)
			bound := math.Max(math.Abs(want[0]), math.Abs(want[tc.n-1]))
			for k := range want {
				if math.Abs(got[k]-want[k]) > 1e-13*bound*float64(tc.n) {
					t.Errorf("n=%d r=%d s=%g: lambda_%d = %.17g, gonum %.17g", tc.n, tc.r, s, k, got[k], want[k])
				}
			}
			top, err := SymEigenvalue(a, tc.n-1)
			if err != nil || top != got[tc.n-1] {
				t.Errorf("n=%d: SymEigenvalue(N-1) = %v, %v; want %v", tc.n, top, err, got[tc.n-1])
			}
		}
	}
	if _, err := SymEigenvalue(mat.NewSymDense(3, nil), 3); err == nil {
		t.Error("eigenvalue 3 of a 3 x 3 matrix: no error")
	}
}

// TestSymEigenvaluesClosedForm checks the Laplacian spectra of the path
// P_n, 2 - 2 cos(pi k/n), the cycle C_n, 2 - 2 cos(2 pi k/n), and the
// complete graph K_n, {0, n, ..., n}, and a diagonal matrix.
func TestSymEigenvaluesClosedForm(t *testing.T) {
	const n = 9
	lap := func(edges [][2]int) *mat.SymDense {
		l := mat.NewSymDense(n, nil)
		for _, e := range edges {
			i, j := e[0], e[1]
			l.SetSym(i, i, l.At(i, i)+1)
			l.SetSym(j, j, l.At(j, j)+1)
			l.SetSym(i, j, -1)
		}
		return l
	}
	var path, cycle, complete [][2]int
	for i := 0; i+1 < n; i++ {
		path = append(path, [2]int{i, i + 1})
	}
	cycle = append(append(cycle, path...), [2]int{0, n - 1})
	for i := range n {
		for j := i + 1; j < n; j++ {
			complete = append(complete, [2]int{i, j})
		}
	}
	var wantPath, wantCycle, wantComplete []float64
	for k := range n {
		wantPath = append(wantPath, 2-2*math.Cos(math.Pi*float64(k)/n))
		wantCycle = append(wantCycle, 2-2*math.Cos(2*math.Pi*float64(k)/n))
		wantComplete = append(wantComplete, map[bool]float64{true: 0, false: n}[k == 0])
	}
	sortFloats(wantCycle)
	diag := mat.NewSymDense(4, []float64{3, 0, 0, 0, 0, -1, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0.5})
	for _, tc := range []struct {
		name string
		a    *mat.SymDense
		want []float64
	}{
		{"path", lap(path), wantPath},
		{"cycle", lap(cycle), wantCycle},
		{"complete", lap(complete), wantComplete},
		{"diagonal", diag, []float64{-1, 0.5, 3, 7}},
	} {
		got := SymEigenvalues(tc.a)
		for k := range tc.want {
			if math.Abs(got[k]-tc.want[k]) > 1e-13 {
				t.Errorf("%s: lambda_%d = %.17g, want %.17g", tc.name, k, got[k], tc.want[k])
			}
		}
	}
}

func sortFloats(x []float64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}
