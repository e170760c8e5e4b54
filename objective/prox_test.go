package objective

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// proxObjective returns h(x) = f(x) + (c/2)||x - v||^2 as an objective of
// the package's reference solver, built from f's own Value, Grad and
// Hessian (not from the normal equations the prox factors).
func proxObjective(f *glm, v []float64, c float64) objective {
	n := f.n
	return objective{
		n:   n,
		lip: f.lip + c,
		value: func(x []float64) float64 {
			var s float64
			for k := range x {
				d := x[k] - v[k]
				s += d * d
			}
			return f.Value(x) + c/2*s
		},
		grad: func(x, g []float64) {
			f.Grad(x, g)
			for k := range g {
				g[k] += c * (x[k] - v[k])
			}
		},
		hess: func(x []float64, h *mat.SymDense) {
			h.Zero()
			f.addHess(x, 1, h)
			for k := range n {
				h.SetSym(k, k, h.At(k, k)+c)
			}
		},
	}
}

// proxResidual returns ||grad f(x) + c (x - v)||, zero exactly at the prox.
func proxResidual(f Local, v []float64, c float64, x []float64) float64 {
	g := make([]float64, len(x))
	f.Grad(x, g)
	var s float64
	for k := range g {
		r := g[k] + c*(x[k]-v[k])
		s += r * r
	}
	return math.Sqrt(s)
}

// gaussLocals returns agents local objectives of kind over m rows each of
// Gaussian features in R^n scaled by 1/sqrt(n), with Gaussian targets
// (least squares) or random signs (logistic), drawn from seed.
func gaussLocals(t *testing.T, kind string, n, m, agents int, opt GivenOptions, seed uint64) []Local {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	locals := make([]Local, agents)
	for i := range locals {
		s := Shard{A: make([]float64, m*n), B: make([]float64, m), Dim: n}
		for k := range s.A {
			s.A[k] = rng.NormFloat64() / math.Sqrt(float64(n))
		}
		for k := range s.B {
			s.B[k] = rng.NormFloat64()
			if kind == KindLogistic {
				s.B[k] = math.Copysign(1, s.B[k])
			}
		}
		l, err := LocalFromShard(kind, s, agents, agents*m, opt)
		if err != nil {
			t.Fatal(err)
		}
		locals[i] = l
	}
	return locals
}

func TestProxLeastSquares(t *testing.T) {
	tests := []struct {
		name string
		n, m int
		opt  GivenOptions
		c    []float64
	}{
		{"ridge, m > n", 6, 40, GivenOptions{Reg: 0.01, Batch: 4}, []float64{0.01, 1, 30}},
		{"no ridge, m < n", 12, 5, GivenOptions{Batch: 1}, []float64{0.05, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Problem{Locals: gaussLocals(t, KindLeastSquares, tc.n, tc.m, 3, tc.opt, 9)}
			rng := rand.New(rand.NewPCG(1, 2))
			for i, l := range p.Locals {
				op, err := ProxOf(l)
				if err != nil {
					t.Fatalf("agent %d: %v", i, err)
				}
				f := l.(*glm)
				// Repeat the c values so that the cached factors are reused.
				for _, c := range append(tc.c, tc.c...) {
					v := make([]float64, f.n)
					for k := range v {
						v[k] = 3 * rng.NormFloat64()
					}
					x := make([]float64, f.n)
					op.Prox(v, c, x)
					if r := proxResidual(f, v, c, x); r > 1e-10*(1+c*norm2(v)) {
						t.Errorf("agent %d, c = %g: optimality residual %.3g", i, c, r)
					}
					ref, err := minimize(proxObjective(f, v, c), Box{Lo: math.Inf(-1), Hi: math.Inf(1)}, make([]float64, f.n))
					if err != nil {
						t.Fatal(err)
					}
					if d := dist2(x, ref); d > 1e-8*(1+norm2(ref)) {
						t.Errorf("agent %d, c = %g: prox differs from the numeric minimizer by %.3g", i, c, d)
					}
					// In place: out aliasing v gives the same point.
					op.Prox(v, c, v)
					if d := dist2(x, v); d != 0 {
						t.Errorf("agent %d, c = %g: aliased prox differs by %.3g", i, c, d)
					}
				}
			}
		})
	}
}

func TestProxQuadratic(t *testing.T) {
	f := QuadraticNoisy([]float64{2, 0.5, 0, 4}, []float64{1, -1, 3, 0}, 0.7)
	op, err := ProxOf(f)
	if err != nil {
		t.Fatal(err)
	}
	v := []float64{0.5, 2, -1, 1}
	for _, c := range []float64{0.1, 1, 100} {
		x := make([]float64, 4)
		op.Prox(v, c, x)
		if r := proxResidual(f, v, c, x); r > 1e-13 {
			t.Errorf("c = %g: optimality residual %.3g at %v", c, r, x)
		}
		// Strong convexity: every perturbation increases the prox objective.
		h := func(y []float64) float64 {
			var s float64
			for k := range y {
				s += (y[k] - v[k]) * (y[k] - v[k])
			}
			return f.Value(y) + c/2*s
		}
		for k := range x {
			for _, e := range []float64{-1e-4, 1e-4} {
				y := append([]float64(nil), x...)
				y[k] += e
				if h(y) <= h(x) {
					t.Errorf("c = %g: perturbing x[%d] by %g does not increase the objective", c, k, e)
				}
			}
		}
	}
	x := make([]float64, 4)
	op.Prox(v, 0, x)
	if !math.IsNaN(x[2]) || math.IsNaN(x[0]) {
		t.Errorf("c = 0 with d_2 = 0: got %v, want NaN only in coordinate 2", x)
	}
}

func TestProxOfRejects(t *testing.T) {
	logit := &Problem{Locals: gaussLocals(t, KindLogistic, 3, 10, 1, GivenOptions{Reg: 0.1, Batch: 1}, 1)}
	tests := []struct {
		name string
		f    Local
		want string
	}{
		{"nil", nil, "nil objective"},
		{"logistic", logit.Locals[0], "least squares only"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ProxOf(tc.f)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ProxOf: error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func norm2(x []float64) float64 { return math.Sqrt(dot2(x, x)) }

func dot2(a, b []float64) float64 {
	var s float64
	for k := range a {
		s += a[k] * b[k]
	}
	return s
}

func dist2(a, b []float64) float64 {
	var s float64
	for k := range a {
		d := a[k] - b[k]
		s += d * d
	}
	return math.Sqrt(s)
}
