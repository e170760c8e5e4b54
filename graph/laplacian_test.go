package graph

import (
	"math"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

const eigTol = 1e-9

func TestLaplacianSpectrum(t *testing.T) {
	// Closed-form spectra of the unweighted Laplacian.
	ringEig := func(n int) []float64 {
		ev := make([]float64, n)
		for k := range ev {
			ev[k] = 2 - 2*math.Cos(2*math.Pi*float64(k)/float64(n))
		}
		return ev
	}
	pathEig := func(n int) []float64 {
		ev := make([]float64, n)
		for k := range ev {
			ev[k] = 2 - 2*math.Cos(math.Pi*float64(k)/float64(n))
		}
		return ev
	}
	completeEig := func(n int) []float64 {
		ev := make([]float64, n)
		for k := 1; k < n; k++ {
			ev[k] = float64(n)
		}
		return ev
	}
	starEig := func(n int) []float64 {
		ev := make([]float64, n)
		for k := 1; k < n-1; k++ {
			ev[k] = 1
		}
		ev[n-1] = float64(n)
		return ev
	}
	gridEig := func(r, c int) []float64 { // P_r x P_c: sums of path eigenvalues
		var ev []float64
		for _, a := range pathEig(r) {
			for _, b := range pathEig(c) {
				ev = append(ev, a+b)
			}
		}
		return ev
	}
	tests := []struct {
		name  string
		build func() (*Graph, error)
		want  []float64
	}{
		{"complete/2", func() (*Graph, error) { return Complete(2) }, completeEig(2)},
		{"complete/7", func() (*Graph, error) { return Complete(7) }, completeEig(7)},
		{"ring/5", func() (*Graph, error) { return Ring(5) }, ringEig(5)},
		{"ring/12", func() (*Graph, error) { return Ring(12) }, ringEig(12)},
		{"path/6", func() (*Graph, error) { return Path(6) }, pathEig(6)},
		{"star/3", func() (*Graph, error) { return Star(3) }, starEig(3)},
		{"star/9", func() (*Graph, error) { return Star(9) }, starEig(9)},
		{"grid/3x4", func() (*Graph, error) { return Grid(3, 4, false) }, gridEig(3, 4)},
		{"single", func() (*Graph, error) { return Complete(1) }, []float64{0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := tc.build()
			if err != nil {
				t.Fatal(err)
			}
			got, err := g.Spectrum(nil)
			if err != nil {
				t.Fatal(err)
			}
			want := append([]float64(nil), tc.want...)
			sort.Float64s(want)
			if len(got) != len(want) {
				t.Fatalf("%d eigenvalues, want %d", len(got), len(want))
			}
			for k := range want {
				if math.Abs(got[k]-want[k]) > eigTol {
					t.Fatalf("eigenvalues %v, want %v", got, want)
				}
			}
			l2, err := g.Lambda2(Unit)
			if err != nil {
				t.Fatal(err)
			}
			lmax, err := g.LambdaMax(Unit)
			if err != nil {
				t.Fatal(err)
			}
			w2 := 0.0
			if len(want) > 1 {
				w2 = want[1]
			}
			if math.Abs(l2-w2) > eigTol || math.Abs(lmax-want[len(want)-1]) > eigTol {
				t.Fatalf("lambda_2, lambda_max = %v, %v, want %v, %v", l2, lmax, w2, want[len(want)-1])
			}
		})
	}
}

func TestLaplacianEntries(t *testing.T) {
	g, err := New(4, []Edge{{0, 1, 0.5}, {1, 2, 0.25}, {0, 3, 1}})
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewSymDense(4, []float64{
		1.5, -0.5, 0, -1,
		-0.5, 0.75, -0.25, 0,
		0, -0.25, 0.25, 0,
		-1, 0, 0, 1,
	})
	if got := g.Laplacian(ByP); !mat.EqualApprox(got, want, 1e-15) {
		t.Fatalf("L_p =\n%v\nwant\n%v", mat.Formatted(got), mat.Formatted(want))
	}
	// E[W]^T E[W] = L_{p^2}.
	ew := g.ExpectedIncidence()
	var wtw mat.Dense
	wtw.Mul(ew.T(), ew)
	if got := g.Laplacian(ByP2); !mat.EqualApprox(got, &wtw, 1e-15) {
		t.Fatalf("L_{p^2} =\n%v\nwant E[W]^T E[W] =\n%v", mat.Formatted(got), mat.Formatted(&wtw))
	}
}

func TestNormAAgainstSVD(t *testing.T) {
	base, err := ErdosRenyi(12, 0.4, 3)
	if err != nil {
		t.Fatal(err)
	}
	uni, err := Complete(5)
	if err != nil {
		t.Fatal(err)
	}
	uni, err = uni.WithUniformP(0.3)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		g    func() (*Graph, error)
	}{
		{"er random p", func() (*Graph, error) { return base.WithRandomP(0.1, 0.9, 4) }},
		{"complete p=0.3", func() (*Graph, error) { return uni, nil }},
		{"ring p=1", func() (*Graph, error) { return Ring(9) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := tc.g()
			if err != nil {
				t.Fatal(err)
			}
			var svd mat.SVD
			if !svd.Factorize(g.ExpectedIncidence(), mat.SVDNone) {
				t.Fatal("SVD failed")
			}
			sv := svd.Values(nil) // descending
			// Smallest nonzero singular value: the graph is connected,
			// so E[W] has rank N-1.
			want, wantMin := sv[0], sv[g.N-2]
			got, err := g.NormA()
			if err != nil {
				t.Fatal(err)
			}
			gotMin, err := g.SigmaMinPlus()
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-want) > 1e-9 || math.Abs(gotMin-wantMin) > 1e-9 {
				t.Fatalf("NormA, SigmaMinPlus = %v, %v; SVD gives %v, %v", got, gotMin, want, wantMin)
			}
		})
	}
	// Complete graph with uniform p: ||E[W]|| = sigma_min+ = p sqrt(n).
	got, _ := uni.NormA()
	if want := 0.3 * math.Sqrt(5); math.Abs(got-want) > 1e-12 {
		t.Fatalf("complete p=0.3: NormA = %v, want %v", got, want)
	}
}

func TestStats(t *testing.T) {
	g, err := Ring(8)
	if err != nil {
		t.Fatal(err)
	}
	g, err = g.WithUniformP(0.5)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Stats()
	if err != nil {
		t.Fatal(err)
	}
	l2 := 2 - 2*math.Cos(2*math.Pi/8)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"N", float64(s.N), 8},
		{"edges", float64(s.Edges), 8},
		{"min degree", float64(s.MinDegree), 2},
		{"mean degree", s.MeanDegree, 2},
		{"max degree", float64(s.MaxDegree), 2},
		{"diameter", float64(s.Diameter), 4},
		{"mean p", s.MeanP, 0.5},
		{"lambda_2", s.Lambda2, l2},
		{"lambda_max", s.LambdaMax, 4},
		{"lambda_2 p", s.Lambda2P, 0.5 * l2},
		{"lambda_max p", s.LambdaMaxP, 2},
		{"lambda_2 p^2", s.Lambda2P2, 0.25 * l2},
		{"lambda_max p^2", s.LambdaMaxP2, 1},
		{"||E[W]||", s.NormA, 1},
		{"sigma_min+", s.SigmaMinPlus, 0.5 * math.Sqrt(l2)},
		{"gap", s.SpectralGap, l2 / 4},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if !s.Connected || s.String() == "" {
		t.Fatalf("connected %v, String %q", s.Connected, s.String())
	}
	one, _ := Complete(1)
	s1, err := one.Stats()
	if err != nil || s1.N != 1 || s1.Edges != 0 || s1.NormA != 0 || s1.SpectralGap != 0 || s1.Diameter != 0 {
		t.Fatalf("single agent stats %+v, %v", s1, err)
	}
}
