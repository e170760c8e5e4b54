package almstorm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// TestStationarityQuadratic: for f_i = (1/2) sum_k d_ik (u_k - c_ik)^2 and
// X = R^n the prox point has the closed form, per coordinate,
// u*_k = ((1/N) sum_i d_ik c_ik + N mu vbar_k) / ((1/N) sum_i d_ik + N mu).
func TestStationarityQuadratic(t *testing.T) {
	const N, n, mu = 4, 3, 1.5
	rng := rand.New(rand.NewPCG(1, 1))
	var locals []objective.Local
	dd, cc := make([][]float64, N), make([][]float64, N)
	v := make([][]float64, N)
	for i := range N {
		dd[i], cc[i], v[i] = make([]float64, n), make([]float64, n), make([]float64, n)
		for k := range n {
			dd[i][k], cc[i][k], v[i][k] = 0.5+rng.Float64(), 2*rng.NormFloat64(), rng.NormFloat64()
		}
		locals = append(locals, objective.QuadraticNoisy(dd[i], cc[i], 0))
	}
	s, err := NewStationarity(locals, objective.Box{Lo: math.Inf(-1), Hi: math.Inf(1)}, mu)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.At(v)
	if err != nil {
		t.Fatal(err)
	}
	var sq float64
	for k := range n {
		var num, den, vbar float64
		for i := range N {
			num += dd[i][k] * cc[i][k] / N
			den += dd[i][k] / N
			vbar += v[i][k] / N
		}
		u := (num + N*mu*vbar) / (den + N*mu)
		for i := range N {
			sq += (v[i][k] - u) * (v[i][k] - u)
		}
	}
	if want := mu * math.Sqrt(sq); math.Abs(got-want) > 1e-9*want {
		t.Errorf("||grad Psi|| = %.12g, closed form %.12g", got, want)
	}
	// Warm start: a second call at a nearby point takes fewer iterations.
	cold := s.Iters
	v[0][0] += 1e-3
	if _, err := s.At(v); err != nil {
		t.Fatal(err)
	}
	if s.Iters >= cold {
		t.Errorf("warm-started solve took %d iterations, the cold one %d", s.Iters, cold)
	}
	if _, err := NewStationarity(locals, objective.Box{Lo: -1, Hi: 1}, 0.1); err == nil {
		t.Errorf("mu below L_f accepted")
	}
}

// TestCertifyMatchesDense: the certificate's step equals the dense
// computation with E[A] = graph.ExpectedIncidence kron I_n (noise-free
// oracles, so the batch is exact).
func TestCertifyMatchesDense(t *testing.T) {
	inst := ringInstance(t, 5, 2, 0.5, false)
	N, n := 5, 2
	locals := make([]objective.Local, N)
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range locals {
		d, c := []float64{1 + rng.Float64(), 1}, []float64{rng.NormFloat64(), rng.NormFloat64()}
		locals[i] = objective.QuadraticNoisy(d, c, 0)
	}
	X, Z := make([][]float64, N), make([][]float64, N)
	for i := range X {
		X[i] = []float64{rng.NormFloat64(), rng.NormFloat64()}
		Z[i] = []float64{rng.NormFloat64(), rng.NormFloat64()}
	}
	Y := make([][]float64, len(inst.g.Edges))
	for k := range Y {
		Y[k] = []float64{rng.NormFloat64(), rng.NormFloat64()}
	}
	in := CertifyInput{Graph: inst.g, Locals: locals, Box: inst.box, Scale: 2, Eta: 0.3, Rho: 1.2, Mu: 2, TauOut: 0.1, X: X, Z: Z, Y: Y, B: 3, Seed: 1}
	c, err := Certify(in)
	if err != nil {
		t.Fatal(err)
	}
	A := graph.KronIdentity(inst.g.ExpectedIncidence(), n)
	stack := func(b [][]float64) *mat.VecDense {
		var d []float64
		for _, r := range b {
			d = append(d, r...)
		}
		return mat.NewVecDense(len(d), d)
	}
	x, z, y := stack(X), stack(Z), stack(Y)
	var ax, yp, G, tmp, ata mat.VecDense
	ax.MulVec(A, x)
	yp.AddScaledVec(y, in.Eta, &ax)
	gr := make([]float64, N*n)
	for i, f := range locals {
		f.Grad(X[i], gr[i*n:(i+1)*n])
	}
	G.ScaleVec(in.Scale/float64(N), mat.NewVecDense(N*n, gr))
	tmp.MulVec(A.T(), &yp)
	G.AddVec(&G, &tmp)
	ata.MulVec(A.T(), &ax)
	G.AddScaledVec(&G, in.Rho, &ata)
	tmp.SubVec(x, z)
	G.AddScaledVec(&G, in.Mu, &tmp)
	var xh mat.VecDense
	xh.AddScaledVec(x, -in.TauOut, &G)
	inst.box.Project(xh.RawVector().Data)
	var worst float64
	for i := range N {
		for k := range n {
			worst = math.Max(worst, math.Abs(c.XHat[i][k]-xh.AtVec(i*n+k)))
		}
	}
	if worst > 1e-12 {
		t.Errorf("xhat differs from the dense computation by %.3g", worst)
	}
	var axh mat.VecDense
	axh.MulVec(A, &xh)
	if want := mat.Norm(&axh, 2); math.Abs(c.Feasibility-want) > 1e-12 {
		t.Errorf("feasibility %.12g, dense %.12g", c.Feasibility, want)
	}
	if c.Samples != int64(N*in.B) {
		t.Errorf("batch used %d samples, want %d", c.Samples, N*in.B)
	}
}

// TestSigmaBarBound: on quadratics with X = R^n the error bound
// ||x*(y, z) - xbar*(z)|| <= sigmabar ||E[A] x*(y, z)|| holds for random
// y, z, with x* the minimizer of f(x) + <y, Ax> + (rho/2)||Ax||^2 +
// (mu/2)||x - z||^2 and xbar* that of f(x) + (mu/2)||x - z||^2 on {Ax = 0}
// (both solved densely here).
func TestSigmaBarBound(t *testing.T) {
	inst := ringInstance(t, 5, 1, 0.7, false)
	const N = 5.0
	rng := rand.New(rand.NewPCG(4, 4))
	// f = (1/N) sum_i (d_i/2)(x_i - c_i)^2 with d_i of either sign: weakly convex.
	d, c := make([]float64, int(N)), make([]float64, int(N))
	var lf float64
	for i := range d {
		d[i], c[i] = 2*rng.Float64()-0.5, rng.NormFloat64()
		lf = math.Max(lf, math.Abs(d[i])/N)
	}
	mu, rho := 4*lf, 1.0
	A := inst.g.ExpectedIncidence()
	smin, err := inst.g.SigmaMinPlus()
	if err != nil {
		t.Fatal(err)
	}
	sb := SigmaBar(lf, mu, smin)
	var ata mat.Dense
	ata.Mul(A.T(), A)
	for trial := range 20 {
		y := make([]float64, len(inst.g.Edges))
		z := make([]float64, int(N))
		for k := range y {
			y[k] = 3 * rng.NormFloat64()
		}
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		// x*: (D/N + rho A^T A + mu I) x = D c/N + mu z - A^T y.
		H := mat.NewDense(int(N), int(N), nil)
		rhs := mat.NewVecDense(int(N), nil)
		var aty mat.VecDense
		aty.MulVec(A.T(), mat.NewVecDense(len(y), y))
		for i := range int(N) {
			for j := range int(N) {
				H.Set(i, j, rho*ata.At(i, j))
			}
			H.Set(i, i, H.At(i, i)+d[i]/N+mu)
			rhs.SetVec(i, d[i]*c[i]/N+mu*z[i]-aty.AtVec(i))
		}
		var xs mat.VecDense
		if err := xs.SolveVec(H, rhs); err != nil {
			t.Fatal(err)
		}
		// xbar*: common u minimizing sum_i (d_i/(2N))(u - c_i)^2 + (mu/2)(u - z_i)^2.
		var num, den float64
		for i := range int(N) {
			num += d[i]*c[i]/N + mu*z[i]
			den += d[i]/N + mu
		}
		u := num / den
		var dist2 float64
		for i := range int(N) {
			dist2 += (xs.AtVec(i) - u) * (xs.AtVec(i) - u)
		}
		var ax mat.VecDense
		ax.MulVec(A, &xs)
		if lhs, rhs := math.Sqrt(dist2), sb*mat.Norm(&ax, 2); lhs > rhs*(1+1e-9) {
			t.Fatalf("trial %d: ||x* - xbar*|| = %.6g exceeds sigmabar ||A x*|| = %.6g", trial, lhs, rhs)
		}
	}
}

// TestTheoryPreset: the theory preset satisfies every inequality of
// Theorem 5.6 and scales tau as T^(-1/3) once that term is active.
func TestTheoryPreset(t *testing.T) {
	c := Constants{L0: 3}
	c.Lf, c.NormA, c.SigmaMinPlus = 1, 1.5, 0.4
	lk := c.Lf + c.NormA*c.NormA + 4
	for _, T := range []int{1, 1000, 1e6, 1e9} {
		p := Theory(c, T)
		a, a2 := c.NormA, c.NormA*c.NormA
		sb := SigmaBar(c.Lf, p.Mu, c.SigmaMinPlus)
		switch {
		case p.Mu != 4:
			t.Errorf("T=%d: mu = %v, want max{2, 4 L_f} = 4", T, p.Mu)
		case p.Tau > 1/(4*lk+8*p.Mu)+1e-15 || p.Tau > 1/math.Sqrt(48*(c.L0*c.L0+1))+1e-15 || p.Tau > math.Pow(float64(T), -1.0/3)+1e-15:
			t.Errorf("T=%d: tau = %v breaks a bound", T, p.Tau)
		case p.Eta > (p.Mu-c.Lf)*(p.Mu-c.Lf)*p.Tau/(4*a2)*(1+1e-12) || p.Eta > (2*p.Mu+a)/(4*a2*a2) || p.Eta > p.Tau/(200*a2)*(1+1e-12):
			t.Errorf("T=%d: eta = %v breaks a bound of (5.5)", T, p.Eta)
		case p.Beta > p.Tau/100 || p.Beta > 1.0/50 || p.Beta > p.Eta/(36*p.Mu*sb*sb)*(1+1e-12):
			t.Errorf("T=%d: beta = %v breaks a bound", T, p.Beta)
		case math.Abs(p.Alpha-48*(c.L0*c.L0+1)*p.Tau*p.Tau) > 1e-12 || p.Alpha > 1:
			t.Errorf("T=%d: alpha = %v, want 48 (L0^2 + L_f^2) tau^2 <= 1", T, p.Alpha)
		case p.N0 != int(math.Ceil(math.Cbrt(float64(T))-1e-9)):
			t.Errorf("T=%d: N_0 = %d", T, p.N0)
		}
	}
	if r := Theory(c, 1e9).Tau / Theory(c, 8e9).Tau; math.Abs(r-2) > 1e-9 {
		t.Errorf("tau(T)/tau(8T) = %v at large T, want 2", r)
	}
}
