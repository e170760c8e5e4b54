package regression

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/objective"
)

const testAgents = 4

// testSpecs covers every kind with R^n and with a box that binds.
var testSpecs = []struct {
	name   string
	spec   Params
	active bool // the box constrains the optimum
}{
	{"least_squares", Params{Kind: objective.KindLeastSquares, Dim: 6, SamplesPerAgent: 40, Batch: 4, Noise: 0.1, Reg: 0.01, Heterogeneity: 0.5, Box: Unbounded}, false},
	{"least_squares_box", Params{Kind: objective.KindLeastSquares, Dim: 6, SamplesPerAgent: 40, Batch: 4, Noise: 0.1, Reg: 0.01, Heterogeneity: 0.5, Box: registry.Interval{-0.3, 0.3}}, true},
	{"logistic", Params{Kind: objective.KindLogistic, Dim: 6, SamplesPerAgent: 40, Batch: 4, Noise: 0.1, Reg: 0.05, Heterogeneity: 0.5, Box: Unbounded}, false},
	{"logistic_box", Params{Kind: objective.KindLogistic, Dim: 6, SamplesPerAgent: 40, Batch: 4, Noise: 0.1, Reg: 0.01, Heterogeneity: 0.5, Box: registry.Interval{-0.2, 0.2}}, true},
	{"nonconvex", Params{Kind: objective.KindNonconvex, Dim: 6, SamplesPerAgent: 40, Batch: 4, Noise: 0.1, Reg: 0.05, Heterogeneity: 0.5, Scale: 1, Outliers: 0.1, Box: Unbounded}, false},
	{"nonconvex_box", Params{Kind: objective.KindNonconvex, Dim: 6, SamplesPerAgent: 40, Batch: 4, Noise: 0.1, Reg: 0.05, Heterogeneity: 0.5, Scale: 1, Outliers: 0.1, Box: registry.Interval{-0.4, 0.4}}, true},
}

func mustNew(t testing.TB, spec Params, n int, seed uint64) *objective.Problem {
	t.Helper()
	p, err := New(spec, n, seed)
	if err != nil {
		t.Fatalf("New(%+v): %v", spec, err)
	}
	return p
}

func randVec(rng *rand.Rand, n int, scale float64) []float64 {
	x := make([]float64, n)
	for k := range x {
		x[k] = scale * rng.NormFloat64()
	}
	return x
}

// TestGradFiniteDifference compares Grad with central differences of
// Value for every kind, and FullGrad with those of Problem.Value.
func TestGradFiniteDifference(t *testing.T) {
	const h = 1e-6
	for _, tc := range testSpecs {
		t.Run(tc.name, func(t *testing.T) {
			p := mustNew(t, tc.spec, testAgents, 7)
			rng := rand.New(rand.NewPCG(1, 2))
			n := p.Dim()
			g := make([]float64, n)
			xp := make([]float64, n)
			check := func(what string, value func([]float64) float64, grad func(x, g []float64)) {
				for trial := range 3 {
					x := randVec(rng, n, 1)
					grad(x, g)
					for k := range n {
						copy(xp, x)
						xp[k] = x[k] + h
						fp := value(xp)
						xp[k] = x[k] - h
						fm := value(xp)
						fd := (fp - fm) / (2 * h)
						if math.Abs(fd-g[k]) > 1e-6*(1+math.Abs(fd)) {
							t.Errorf("%s trial %d: d/dx_%d = %.10g, finite difference %.10g", what, trial, k, g[k], fd)
						}
					}
				}
			}
			for i, f := range p.Locals {
				check("agent "+string(rune('0'+i)), f.Value, f.Grad)
			}
			check("full", p.Value, p.FullGrad)
		})
	}
}

// TestSmoothness checks ||grad f_i(x) - grad f_i(y)|| <= L_i ||x - y|| on
// random pairs and, for least squares (where L_i is tight), that L_i is
// the top eigenvalue found independently by power iteration.
func TestSmoothness(t *testing.T) {
	for _, tc := range testSpecs {
		t.Run(tc.name, func(t *testing.T) {
			p := mustNew(t, tc.spec, testAgents, 11)
			rng := rand.New(rand.NewPCG(3, 4))
			n := p.Dim()
			gx, gy, d := make([]float64, n), make([]float64, n), make([]float64, n)
			for i, f := range p.Locals {
				L := f.Smoothness()
				if !(L > 0) || math.IsInf(L, 0) {
					t.Fatalf("agent %d: L = %g, want finite > 0", i, L)
				}
				for range 50 {
					x, y := randVec(rng, n, 2), randVec(rng, n, 2)
					f.Grad(x, gx)
					f.Grad(y, gy)
					floats.SubTo(d, gx, gy)
					lhs := floats.Norm(d, 2)
					floats.SubTo(d, x, y)
					if rhs := L * floats.Norm(d, 2); lhs > rhs*(1+1e-12) {
						t.Errorf("agent %d: ||grad diff|| = %g > L ||x - y|| = %g", i, lhs, rhs)
					}
				}
				if tc.spec.Kind == objective.KindLeastSquares {
					// grad f_i(x) - grad f_i(0) = (A^T A/m + lambda I) x.
					x := randVec(rng, n, 1)
					zero := make([]float64, n)
					f.Grad(zero, gy)
					var est float64
					for range 500 {
						floats.Scale(1/floats.Norm(x, 2), x)
						f.Grad(x, gx)
						floats.SubTo(x, gx, gy)
						est = floats.Norm(x, 2)
					}
					if math.Abs(est-L) > 1e-8*L {
						t.Errorf("agent %d: L = %.12g, power iteration %.12g", i, L, est)
					}
				}
			}
			if got, want := p.Smoothness(), maxL(p); got != want {
				t.Errorf("Problem.Smoothness = %g, want max_i L_i = %g", got, want)
			}
		})
	}
}

func maxL(p *objective.Problem) float64 {
	var l float64
	for _, f := range p.Locals {
		l = math.Max(l, f.Smoothness())
	}
	return l
}

// TestStochGradUnbiased averages many minibatch gradients and checks each
// coordinate is within 5 standard errors (from the sample variance) of
// Grad.
func TestStochGradUnbiased(t *testing.T) {
	const draws = 20000
	for _, tc := range testSpecs {
		t.Run(tc.name, func(t *testing.T) {
			p := mustNew(t, tc.spec, testAgents, 5)
			rng := rand.New(rand.NewPCG(9, 10))
			n := p.Dim()
			x := randVec(rng, n, 1)
			g, sg := make([]float64, n), make([]float64, n)
			mean, sq := make([]float64, n), make([]float64, n)
			f := p.Locals[1]
			f.Grad(x, g)
			for range draws {
				if got := f.StochGrad(x, sg, rng); got != tc.spec.Batch {
					t.Fatalf("StochGrad used %d samples, want Batch = %d", got, tc.spec.Batch)
				}
				for k, v := range sg {
					mean[k] += v / draws
					sq[k] += v * v / draws
				}
			}
			for k := range n {
				se := math.Sqrt(math.Max(sq[k]-mean[k]*mean[k], 0) / draws)
				if math.Abs(mean[k]-g[k]) > 5*se+1e-12 {
					t.Errorf("coordinate %d: mean of StochGrad %g, Grad %g, standard error %g", k, mean[k], g[k], se)
				}
			}
		})
	}
}

// TestNoAllocations checks that the hot-path oracles do not allocate.
func TestNoAllocations(t *testing.T) {
	for _, kind := range []int{0, 2, 4} {
		p := mustNew(t, testSpecs[kind].spec, 2, 1)
		f := p.Locals[0]
		rng := rand.New(rand.NewPCG(1, 1))
		x, g := make([]float64, p.Dim()), make([]float64, p.Dim())
		allocs := testing.AllocsPerRun(100, func() {
			f.StochGrad(x, g, rng)
			f.Grad(x, g)
			_ = f.Value(x)
		})
		if allocs != 0 {
			t.Errorf("%s: %g allocations per oracle round, want 0", testSpecs[kind].name, allocs)
		}
	}
}

// rawData exposes an agent's rows and targets for the determinism tests.
func rawData(t *testing.T, l objective.Local) ([]float64, []float64) {
	t.Helper()
	a, b, _, ok := objective.Samples(l)
	if !ok {
		t.Fatalf("local is %T, want a generalized linear model", l)
	}
	return a, b
}

// naturalResidual returns ||x - proj_X(x - g)||.
func naturalResidual(b objective.Box, x, g []float64) float64 {
	var s float64
	for k, v := range x {
		d := v - math.Min(math.Max(v-g[k], b.Lo), b.Hi)
		s += d * d
	}
	return math.Sqrt(s)
}

// TestDeterminism checks that the same (Params, N, seed) rebuilds identical
// data and optimum, that NewLocal matches New, and that agents and seeds
// differ.
func TestDeterminism(t *testing.T) {
	for _, tc := range testSpecs {
		t.Run(tc.name, func(t *testing.T) {
			p := mustNew(t, tc.spec, testAgents, 42)
			q := mustNew(t, tc.spec, testAgents, 42)
			r := mustNew(t, tc.spec, testAgents, 43)
			for i := range testAgents {
				a1, b1 := rawData(t, p.Locals[i])
				a2, b2 := rawData(t, q.Locals[i])
				if !floats.Equal(a1, a2) || !floats.Equal(b1, b2) {
					t.Errorf("agent %d: same seed gave different data", i)
				}
				l, err := NewLocal(tc.spec, testAgents, 42, i)
				if err != nil {
					t.Fatalf("NewLocal: %v", err)
				}
				a3, b3 := rawData(t, l)
				if !floats.Equal(a1, a3) || !floats.Equal(b1, b3) {
					t.Errorf("agent %d: NewLocal differs from New", i)
				}
				a4, _ := rawData(t, r.Locals[i])
				if floats.Equal(a1, a4) {
					t.Errorf("agent %d: seeds 42 and 43 gave the same rows", i)
				}
				if i > 0 {
					a0, _ := rawData(t, p.Locals[0])
					if floats.Equal(a0, a1) {
						t.Errorf("agents 0 and %d have the same rows", i)
					}
				}
			}
			if !floats.Equal(p.XStar, q.XStar) || p.FStar != q.FStar {
				t.Errorf("same seed gave different optima: %v (%g) vs %v (%g)", p.XStar, p.FStar, q.XStar, q.FStar)
			}
		})
	}
}

// TestHeterogeneity checks that local minimizers differ when h > 0: with
// h = 0 the agents' least-squares gradients at x* are small, and grow
// with h.
func TestHeterogeneity(t *testing.T) {
	spread := func(h float64) float64 {
		spec := Params{Kind: objective.KindLeastSquares, Dim: 5, SamplesPerAgent: 400, Batch: 1, Reg: 0, Heterogeneity: h, Box: Unbounded}
		p := mustNew(t, spec, testAgents, 3)
		g := make([]float64, p.Dim())
		var s float64
		for _, f := range p.Locals {
			f.Grad(p.XStar, g)
			s += floats.Norm(g, 2)
		}
		return s / testAgents
	}
	s0, s1 := spread(0), spread(1)
	if !(s1 > 5*s0) {
		t.Errorf("mean ||grad f_i(x*)||: %g at h = 0, %g at h = 1; want heterogeneity to separate the local minimizers", s0, s1)
	}
}

// TestOptimumKKT checks the box KKT condition at XStar, that
// FStar = f(XStar), that the box binds where intended, and that no
// feasible random point beats FStar for the convex kinds.
func TestOptimumKKT(t *testing.T) {
	for _, tc := range testSpecs {
		t.Run(tc.name, func(t *testing.T) {
			p := mustNew(t, tc.spec, testAgents, 17)
			if p.Convex != (tc.spec.Kind != objective.KindNonconvex) {
				t.Errorf("Convex = %v for %s", p.Convex, tc.spec.Kind)
			}
			if p.FStar != p.Value(p.XStar) {
				t.Errorf("FStar = %g, f(XStar) = %g", p.FStar, p.Value(p.XStar))
			}
			g := make([]float64, p.Dim())
			p.FullGrad(p.XStar, g)
			if r := naturalResidual(p.Box, p.XStar, g); r > 1e-8 {
				t.Errorf("||x* - proj_X(x* - grad f(x*))|| = %g, want < 1e-8", r)
			}
			atBound := 0
			for _, v := range p.XStar {
				if v < p.Box.Lo || v > p.Box.Hi {
					t.Fatalf("XStar = %v outside the box %+v", p.XStar, p.Box)
				}
				if v == p.Box.Lo || v == p.Box.Hi {
					atBound++
				}
			}
			if tc.active && atBound == 0 {
				t.Errorf("no coordinate of XStar = %v at the box bound, the test meant an active box", p.XStar)
			}
			rng := rand.New(rand.NewPCG(5, 6))
			for range 200 {
				x := randVec(rng, p.Dim(), 0.01)
				floats.Add(x, p.XStar)
				p.Box.Project(x)
				if v := p.Value(x); v < p.FStar-1e-12 {
					t.Errorf("f(%v) = %.15g < FStar = %.15g", x, v, p.FStar)
					break
				}
			}
		})
	}
}

// TestLeastSquaresDirect compares XStar with the least-squares solution of
// the stacked system [A; sqrt(lambda N m) I] x = [b; 0] by QR, which
// minimizes the same f without forming the normal equations.
func TestLeastSquaresDirect(t *testing.T) {
	for _, reg := range []float64{0, 0.1} {
		spec := Params{Kind: objective.KindLeastSquares, Dim: 7, SamplesPerAgent: 30, Batch: 2, Noise: 0.3, Reg: reg, Heterogeneity: 1, Box: Unbounded}
		p := mustNew(t, spec, testAgents, 23)
		n, m := spec.Dim, spec.SamplesPerAgent
		rows := testAgents*m + n
		a := mat.NewDense(rows, n, nil)
		b := mat.NewVecDense(rows, nil)
		for i, l := range p.Locals {
			ai, bi := rawData(t, l)
			for k := range m {
				a.SetRow(i*m+k, ai[k*n:(k+1)*n])
				b.SetVec(i*m+k, bi[k])
			}
		}
		for j := range n {
			a.Set(testAgents*m+j, j, math.Sqrt(reg*float64(testAgents*m)))
		}
		var x mat.VecDense
		if err := x.SolveVec(a, b); err != nil {
			t.Fatalf("QR solve: %v", err)
		}
		for j := range n {
			if d := math.Abs(x.AtVec(j) - p.XStar[j]); d > 1e-10*(1+math.Abs(x.AtVec(j))) {
				t.Errorf("reg %g: x*_%d = %.15g, QR %.15g", reg, j, p.XStar[j], x.AtVec(j))
			}
		}
	}
}

// TestNewErrors checks that each bad spec is rejected with an error naming
// the offending field.
func TestNewErrors(t *testing.T) {
	good := Params{Kind: objective.KindLeastSquares, Dim: 3, SamplesPerAgent: 10, Batch: 2, Reg: 0.1, Box: Unbounded}
	nc := Params{Kind: objective.KindNonconvex, Dim: 3, SamplesPerAgent: 10, Batch: 2, Reg: 0.1, Scale: 1, Box: Unbounded}
	tests := []struct {
		name string
		edit func(*Params)
		base Params
		n    int
		want string
	}{
		{"empty kind", func(s *Params) { s.Kind = "" }, good, 2, "Kind"},
		{"unknown kind", func(s *Params) { s.Kind = "svm" }, good, 2, "Kind"},
		{"no agents", func(s *Params) {}, good, 0, "N ="},
		{"dim", func(s *Params) { s.Dim = 0 }, good, 2, "dim"},
		{"samples", func(s *Params) { s.SamplesPerAgent = 0 }, good, 2, "samples_per_agent"},
		{"batch zero", func(s *Params) { s.Batch = 0 }, good, 2, "batch"},
		{"batch too big", func(s *Params) { s.Batch = 11 }, good, 2, "batch"},
		{"negative reg", func(s *Params) { s.Reg = -1 }, good, 2, "reg"},
		{"nan reg", func(s *Params) { s.Reg = math.NaN() }, good, 2, "reg"},
		{"heterogeneity", func(s *Params) { s.Heterogeneity = -0.1 }, good, 2, "heterogeneity"},
		{"noise", func(s *Params) { s.Noise = -1 }, good, 2, "noise"},
		{"box reversed", func(s *Params) { s.Box = registry.Interval{1, -1} }, good, 2, "lo < hi"},
		{"box nan", func(s *Params) { s.Box[0] = math.NaN() }, good, 2, "box"},
		{"box empty", func(s *Params) { s.Box = registry.Interval{2, 2} }, good, 2, "lo < hi"},
		{"logistic flip", func(s *Params) { s.Kind = objective.KindLogistic; s.Noise = 0.5 }, good, 2, "noise"},
		{"logistic unregularized", func(s *Params) { s.Kind = objective.KindLogistic; s.Reg = 0 }, good, 2, "reg"},
		{"scale on convex", func(s *Params) { s.Scale = 1 }, good, 2, "scale"},
		{"outliers on convex", func(s *Params) { s.Outliers = 0.1 }, good, 2, "outliers"},
		{"nonconvex scale", func(s *Params) { s.Scale = -1 }, nc, 2, "scale"},
		{"nonconvex outliers", func(s *Params) { s.Outliers = 1 }, nc, 2, "outliers"},
		{"data", func(s *Params) { s.Data = &DataSource{Path: "rows.csv"} }, good, 2, "rows.csv"},
		{"singular", func(s *Params) { s.Reg = 0; s.Dim = 30 }, good, 2, "singular"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.base
			tc.edit(&s)
			_, err := New(s, tc.n, 1)
			if err == nil {
				t.Fatalf("New(%+v, %d) succeeded, want an error naming %q", s, tc.n, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not name %q", err, tc.want)
			}
		})
	}
	if _, err := NewLocal(good, 2, 1, 2); err == nil {
		t.Error("NewLocal with agent id 2 of N = 2 succeeded")
	}
}
