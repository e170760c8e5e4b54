package tsp

import (
	"math"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/problems/bilevel"
)

// Constants are the constants of TSP (Algorithm 1). The paper's analysis takes
// all step sizes of order 1/sqrt(T) and p > L; its hyper-cleaning run uses
// tau = 0.01 and p = 1.
type Constants struct {
	// Alpha, Beta and Eta are the step sizes of x, y and z.
	Alpha, Beta, Eta float64
	// Tau is the dual step size of lambda_+ = max(0, lambda + tau h).
	Tau float64
	// Mu in (0, 1] damps the dual: lambda <- (1 - mu) lambda + mu lambda_+.
	Mu float64
	// Theta in (0, 1] averages the constraint estimate h.
	Theta float64
	// Omega in (0, 1) is the smoothing factor of the anchors x_hat, y_hat.
	Omega float64
	// P is the weight p of the proximal terms (p/2)||x - x_hat||^2 and
	// (p/2)||y - y_hat||^2.
	P float64
	// Gamma is the Moreau-envelope parameter gamma > 0 of g*_gamma.
	Gamma float64
	// Delta is the constraint slack delta >= 0.
	Delta float64
	// Lambda0 is the initial dual variable lambda^1 >= 0.
	Lambda0 float64
	// ZNew selects the appendix form of the y and x updates, which use the
	// new z^{r+1} ((z^{r+1} - y^r)/gamma in (9) and grad_x g(x^r, z^{r+1})
	// in (11)); the default (false) is the main text's z^r. ZNew costs one
	// more lower-level x-gradient per round.
	ZNew bool
}

// Validate checks the ranges of the constants; its errors are a
// registry.FieldErrors at the keys of the algorithm block (Params) that
// set them, each naming its symbol.
func (p Constants) Validate() error {
	var errs registry.FieldErrors
	for _, c := range []struct {
		key, sym string
		v        float64
		r        registry.Range
	}{
		{"step_x", "alpha", p.Alpha, registry.Positive},
		{"step_y", "beta", p.Beta, registry.Positive},
		{"step_z", "eta", p.Eta, registry.Positive},
		{"dual_step", "tau", p.Tau, registry.Positive},
		{"gamma", "gamma", p.Gamma, registry.Positive},
		{"mu", "mu", p.Mu, registry.UnitInterval},
		{"theta", "theta", p.Theta, registry.UnitInterval},
		{"smoothing", "omega", p.Omega, openUnit},
		{"prox_weight", "p", p.P, registry.NonNegative},
		{"delta", "delta", p.Delta, registry.NonNegative},
		{"initial_dual", "lambda0", p.Lambda0, registry.NonNegative},
	} {
		if !c.r.In(c.v) {
			errs.Add(c.key, "%s must be %s, got %s", c.sym, c.r.Want, registry.Num(c.v))
		}
	}
	return errs.Err()
}

// openUnit is the range (0, 1) of omega.
var openUnit = registry.Range{In: func(x float64) bool { return x > 0 && x < 1 }, Want: "in (0, 1)"}

// TSP is the centralized (single-process, matrix-form) TSP iteration on a
// Bilevel. Round r (Step) computes, in this order,
//
//	h      <- (1 - theta) h + theta (g(x, y) - g(x, z) - ||z - y||^2/(2 gamma) - delta)   (7a)
//	lam_+  =  max(0, lam + tau h);  lam <- (1 - mu) lam + mu lam_+                        (7b, 7c)
//	z'     =  z - eta (grad_y g(x, z) + (z - y)/gamma)                                    (8)
//	y'     =  y - beta (grad_y f(x, y) + lam (grad_y g(x, y) + (zu - y)/gamma) + p (y - y_hat))   (9)
//	y_hat <- y_hat + omega (y' - y_hat)                                                    (10)
//	x'     =  x - alpha (grad_x f(x, y') + lam (grad_x g(x, y') - grad_x g(x, zu)) + p (x - x_hat))  (11)
//	x_hat <- x_hat + omega (x' - x_hat)                                                    (12)
//
// with zu = z (main text) or zu = z' (Params.ZNew, the appendix), all with
// full (deterministic) oracles. Its fields are the current iterates.
type TSP struct {
	X, Y, Z, XHat, YHat []float64
	// Lambda is lambda^r; H is h^r.
	Lambda, H float64
	// Round is the number of completed rounds.
	Round int
	// GradEvals counts oracle calls (a ValueGrad with any gradient counts
	// as one).
	GradEvals int64

	pb  bilevel.Bilevel
	prm Constants

	gyY, gyZ, gxZ, gfY []float64 // grad_y g(x,y), grad_y g(x,z), grad_x g(x,zu), grad_y f(x,y)
	gfX, gxY, zNew     []float64 // grad_x f(x,y'), grad_x g(x,y'), z'
}

// NewTSP returns TSP on pb from x^1 = x_hat^1 = x0, y^1 = y_hat^1 = z^1 =
// y0, lambda^1 = Lambda0, h^1 = 0.
func NewTSP(pb bilevel.Bilevel, x0, y0 []float64, prm Constants) (*TSP, error) {
	if err := pb.Validate(); err != nil {
		return nil, err
	}
	if err := pb.CheckStart(x0, y0); err != nil {
		return nil, err
	}
	if err := prm.Validate(); err != nil {
		return nil, err
	}
	nx, ny := pb.NX, pb.NY
	cp := func(v []float64) []float64 { return append([]float64(nil), v...) }
	return &TSP{
		X: cp(x0), XHat: cp(x0), Y: cp(y0), YHat: cp(y0), Z: cp(y0),
		Lambda: prm.Lambda0,
		pb:     pb, prm: prm,
		gyY: make([]float64, ny), gyZ: make([]float64, ny), gxZ: make([]float64, nx),
		gfY: make([]float64, ny), gfX: make([]float64, nx), gxY: make([]float64, nx),
		zNew: make([]float64, ny),
	}, nil
}

// dualStep applies (7a)-(7c) given gxy = g(x, y), gxz = g(x, z) and
// dist2 = ||z - y||^2, and returns the new h and lambda.
func dualStep(prm Constants, h, lam, gxy, gxz, dist2 float64) (float64, float64) {
	h = (1-prm.Theta)*h + prm.Theta*(gxy-gxz-dist2/(2*prm.Gamma)-prm.Delta)
	lamPlus := math.Max(0, lam+prm.Tau*h)
	lam = (1-prm.Mu)*lam + prm.Mu*lamPlus
	return h, lam
}

// zStep writes z' = z - eta (gyz + (z - y)/gamma) into dst.
func zStep(prm Constants, dst, z, y, gyz []float64) {
	for i := range dst {
		dst[i] = z[i] - prm.Eta*(gyz[i]+(z[i]-y[i])/prm.Gamma)
	}
}

// yStep applies (9) and (10) in place: y <- y - beta (gfy + lam (gyy +
// (zu - y)/gamma) + p (y - y_hat)), then y_hat <- y_hat + omega (y -
// y_hat).
func yStep(prm Constants, lam float64, y, yHat, gfy, gyy, zu []float64) {
	for i := range y {
		d := gfy[i] + lam*(gyy[i]+(zu[i]-y[i])/prm.Gamma) + prm.P*(y[i]-yHat[i])
		y[i] -= prm.Beta * d
		yHat[i] += prm.Omega * (y[i] - yHat[i])
	}
}

// xStep applies (11) and (12) in place.
func xStep(prm Constants, lam float64, x, xHat, gfx, gxy, gxz []float64) {
	for i := range x {
		var f float64
		if gfx != nil {
			f = gfx[i]
		}
		d := f + lam*(gxy[i]-gxz[i]) + prm.P*(x[i]-xHat[i])
		x[i] -= prm.Alpha * d
		xHat[i] += prm.Omega * (x[i] - xHat[i])
	}
}

// dist2 returns ||a - b||^2.
func dist2(a, b []float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}

// Step runs one round of Algorithm 1.
func (s *TSP) Step() {
	prm, pb := s.prm, s.pb
	gxy := bilevel.ValueGrad(pb.G, s.X, s.Y, nil, s.gyY)
	var gxz float64
	if prm.ZNew {
		gxz = bilevel.ValueGrad(pb.G, s.X, s.Z, nil, s.gyZ)
	} else {
		gxz = bilevel.ValueGrad(pb.G, s.X, s.Z, s.gxZ, s.gyZ)
	}
	s.GradEvals += 2
	s.H, s.Lambda = dualStep(prm, s.H, s.Lambda, gxy, gxz, dist2(s.Z, s.Y))

	zStep(prm, s.zNew, s.Z, s.Y, s.gyZ)
	zu := s.Z
	if prm.ZNew {
		zu = s.zNew
		pb.G.Grad(s.X, zu, s.gxZ, nil)
		s.GradEvals++
	}
	pb.F.Grad(s.X, s.Y, nil, s.gfY)
	s.GradEvals++
	yStep(prm, s.Lambda, s.Y, s.YHat, s.gfY, s.gyY, zu)
	// The x step needs z^r only through gxZ, computed above.
	s.Z, s.zNew = s.zNew, s.Z

	pb.F.Grad(s.X, s.Y, s.gfX, nil)
	pb.G.Grad(s.X, s.Y, s.gxY, nil)
	s.GradEvals += 2
	xStep(prm, s.Lambda, s.X, s.XHat, s.gfX, s.gxY, s.gxZ)
	s.Round++
}
