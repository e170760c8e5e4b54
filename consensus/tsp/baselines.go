package tsp

import (
	"fmt"
	"math"

	"github.com/consim/consim/problems/bilevel"
)

// The baselines of the paper's comparison, implemented from their public
// descriptions on the same oracles. What the descriptions leave open is
// stated at each type and is an assumption of this package.

// PBGDParams are the constants of V-PBGD (Shen and Chen, 2023).
type PBGDParams struct {
	// Alpha and Beta are the step sizes of x and y.
	Alpha, Beta float64
	// InnerStep and Inner are the step size and the number T of the inner
	// gradient steps on omega.
	InnerStep float64
	Inner     int
	// Gamma0, GammaMax and Ramp give the penalty schedule
	// gamma_k = min(GammaMax, Gamma0 + k (GammaMax - Gamma0)/Ramp).
	Gamma0, GammaMax float64
	Ramp             int
}

// Validate checks the constants.
func (p PBGDParams) Validate() error {
	if !(p.Alpha > 0 && p.Beta > 0 && p.InnerStep > 0) || p.Inner < 1 || p.Ramp < 1 || !(p.Gamma0 >= 0 && p.GammaMax >= p.Gamma0) {
		return fmt.Errorf("tsp: V-PBGD needs positive steps (%v, %v, %v), inner steps %d >= 1, ramp %d >= 1 and 0 <= gamma0 %v <= gammaMax %v",
			p.Alpha, p.Beta, p.InnerStep, p.Inner, p.Ramp, p.Gamma0, p.GammaMax)
	}
	return nil
}

// PBGD is the value-gap penalty-based bilevel gradient descent V-PBGD:
// iteration k runs T inner steps omega <- omega - InnerStep grad_y
// g(x_k, omega) on a copy omega of the lower-level variable (warm-started
// from its previous value; omega^0 = y0), then one joint step on the
// penalized objective f + gamma_k (g(x, y) - g(x, omega)):
//
//	x <- x - alpha (grad_x f(x, y) + gamma_k (grad_x g(x, y) - grad_x g(x, omega)))
//	y <- y - beta  (grad_y f(x, y) + gamma_k  grad_y g(x, y))
//
// with gamma_k ramped linearly (the authors' hyper-cleaning code ramps
// 0 -> 0.2 in mean-loss units; its factor min(1, 1/gamma_k) on the step is
// 1 there and is omitted).
type PBGD struct {
	// X, Y and Omega are x_k, y_k and the inner copy omega; K is the
	// number of completed outer iterations.
	X, Y, Omega                  []float64
	K                            int
	evals                        int64
	pb                           bilevel.Bilevel
	prm                          PBGDParams
	gxY, gyY, gxO, gyO, gfX, gfY []float64
}

// NewPBGD returns V-PBGD on pb from (x0, y0).
func NewPBGD(pb bilevel.Bilevel, x0, y0 []float64, prm PBGDParams) (*PBGD, error) {
	if err := startChecks(pb, x0, y0); err != nil {
		return nil, err
	}
	if err := prm.Validate(); err != nil {
		return nil, err
	}
	nx, ny := pb.NX, pb.NY
	return &PBGD{
		X: clone(x0), Y: clone(y0), Omega: clone(y0), pb: pb, prm: prm,
		gxY: make([]float64, nx), gyY: make([]float64, ny), gxO: make([]float64, nx), gyO: make([]float64, ny),
		gfX: make([]float64, nx), gfY: make([]float64, ny),
	}, nil
}

// gamma returns gamma_k.
func (p *PBGD) gamma() float64 {
	q := p.prm
	return math.Min(q.GammaMax, q.Gamma0+float64(p.K)*(q.GammaMax-q.Gamma0)/float64(q.Ramp))
}

// Step runs one outer iteration.
func (p *PBGD) Step() {
	pb, q := p.pb, p.prm
	for range q.Inner {
		pb.G.Grad(p.X, p.Omega, nil, p.gyO)
		axpy(p.Omega, -q.InnerStep, p.gyO)
	}
	pb.G.Grad(p.X, p.Omega, p.gxO, nil)
	pb.G.Grad(p.X, p.Y, p.gxY, p.gyY)
	pb.F.Grad(p.X, p.Y, p.gfX, p.gfY)
	p.evals += int64(q.Inner) + 3
	g := p.gamma()
	for i := range p.X {
		p.X[i] -= q.Alpha * (p.gfX[i] + g*(p.gxY[i]-p.gxO[i]))
	}
	for i := range p.Y {
		p.Y[i] -= q.Beta * (p.gfY[i] + g*p.gyY[i])
	}
	p.K++
}

// Name returns "PBGD".
func (p *PBGD) Name() string { return NamePBGD }

// Point returns (x_k, y_k).
func (p *PBGD) Point() (x, y []float64) { return p.X, p.Y }

// Evals returns the oracle calls so far.
func (p *PBGD) Evals() int64 { return p.evals }

// Multiplier returns the penalty gamma_k of the next step.
func (p *PBGD) Multiplier() float64 { return p.gamma() }

// BOMEParams are the constants of BOME (Liu et al., 2022).
type BOMEParams struct {
	// Alpha and Beta are the step sizes of x and y (BOME's single xi,
	// split so that the steps can match TSP's).
	Alpha, Beta float64
	// InnerStep and Inner are the step size and number T of the inner
	// steps y_hat <- y_hat - InnerStep grad_y g(x, y_hat).
	InnerStep float64
	Inner     int
	// Eta is eta of the control phi_k = eta ||grad q(v_k)||^2.
	Eta float64
	// Scale > 0 (0 means 1) divides the lower level: BOME runs on
	// q/Scale. BOME's lambda_k is not invariant to the scale of g (phi_k
	// and <grad f, grad q> scale differently), so a lower level written as
	// a sum over m samples with Scale = m runs BOME exactly as on the mean.
	Scale float64
}

// Validate checks the constants.
func (p BOMEParams) Validate() error {
	if !(p.Alpha > 0 && p.Beta > 0 && p.InnerStep > 0 && p.Eta >= 0 && p.Scale >= 0) || p.Inner < 1 {
		return fmt.Errorf("tsp: BOME needs positive steps (%v, %v, %v), eta %v >= 0, scale %v >= 0 and inner steps %d >= 1", p.Alpha, p.Beta, p.InnerStep, p.Eta, p.Scale, p.Inner)
	}
	return nil
}

// BOME is "bilevel optimization made easy": iteration k starts the inner
// loop at y_hat = y_k, runs T gradient steps on g(x_k, .), and with
// q(v) = g(x, y) - g(x, y_hat) (y_hat frozen), v = (x, y),
//
//	grad q = (grad_x g(x, y) - grad_x g(x, y_hat), grad_y g(x, y)) / Scale,
//	lambda_k = max(phi_k - <grad f, grad q>, 0) / ||grad q||^2,  phi_k = eta ||grad q||^2,
//	v <- v - (alpha, beta) (grad f + lambda_k grad q).
type BOME struct {
	// X, Y are x_k, y_k; YHat is the last inner solution; Lambda is
	// lambda_k of the last step; K counts the completed iterations.
	X, Y, YHat                   []float64
	Lambda                       float64
	K                            int
	evals                        int64
	pb                           bilevel.Bilevel
	prm                          BOMEParams
	gxY, gyY, gxH, gyH, gfX, gfY []float64
}

// NewBOME returns BOME on pb from (x0, y0).
func NewBOME(pb bilevel.Bilevel, x0, y0 []float64, prm BOMEParams) (*BOME, error) {
	if err := startChecks(pb, x0, y0); err != nil {
		return nil, err
	}
	if err := prm.Validate(); err != nil {
		return nil, err
	}
	nx, ny := pb.NX, pb.NY
	return &BOME{
		X: clone(x0), Y: clone(y0), YHat: make([]float64, ny), pb: pb, prm: prm,
		gxY: make([]float64, nx), gyY: make([]float64, ny), gxH: make([]float64, nx), gyH: make([]float64, ny),
		gfX: make([]float64, nx), gfY: make([]float64, ny),
	}, nil
}

// Step runs one outer iteration.
func (b *BOME) Step() {
	pb, q := b.pb, b.prm
	copy(b.YHat, b.Y)
	for range q.Inner {
		pb.G.Grad(b.X, b.YHat, nil, b.gyH)
		axpy(b.YHat, -q.InnerStep, b.gyH)
	}
	pb.G.Grad(b.X, b.YHat, b.gxH, nil)
	pb.G.Grad(b.X, b.Y, b.gxY, b.gyY)
	pb.F.Grad(b.X, b.Y, b.gfX, b.gfY)
	b.evals += int64(q.Inner) + 3
	// grad q = (gxY - gxH, gyY) / Scale.
	sc := 1.0
	if q.Scale > 0 {
		sc = 1 / q.Scale
	}
	for i := range b.X {
		b.gxY[i] = (b.gxY[i] - b.gxH[i]) * sc
	}
	for i := range b.Y {
		b.gyY[i] *= sc
	}
	var nq, dot float64
	for i := range b.X {
		nq += b.gxY[i] * b.gxY[i]
		dot += b.gfX[i] * b.gxY[i]
	}
	for i := range b.Y {
		nq += b.gyY[i] * b.gyY[i]
		dot += b.gfY[i] * b.gyY[i]
	}
	b.Lambda = 0
	if nq > 0 {
		b.Lambda = math.Max(q.Eta*nq-dot, 0) / nq
	}
	for i := range b.X {
		b.X[i] -= q.Alpha * (b.gfX[i] + b.Lambda*b.gxY[i])
	}
	for i := range b.Y {
		b.Y[i] -= q.Beta * (b.gfY[i] + b.Lambda*b.gyY[i])
	}
	b.K++
}

// Name returns "BOME".
func (b *BOME) Name() string { return NameBOME }

// Point returns (x_k, y_k).
func (b *BOME) Point() (x, y []float64) { return b.X, b.Y }

// Evals returns the oracle calls so far.
func (b *BOME) Evals() int64 { return b.evals }

// Multiplier returns lambda_k of the last step.
func (b *BOME) Multiplier() float64 { return b.Lambda }

// MEHAParams are the constants of MEHA (Liu et al., 2024).
type MEHAParams struct {
	// Alpha, Beta and Eta are the step sizes of x, y and theta.
	Alpha, Beta, Eta float64
	// Gamma is the Moreau-envelope parameter.
	Gamma float64
	// C and Power give the penalty schedule c_k = C (k+1)^Power.
	C, Power float64
}

// Validate checks the constants.
func (p MEHAParams) Validate() error {
	if !(p.Alpha > 0 && p.Beta > 0 && p.Eta > 0 && p.Gamma > 0 && p.C > 0 && p.Power >= 0) {
		return fmt.Errorf("tsp: MEHA needs positive steps (%v, %v, %v), gamma %v > 0, c %v > 0 and power %v >= 0", p.Alpha, p.Beta, p.Eta, p.Gamma, p.C, p.Power)
	}
	return nil
}

// MEHA is the single-loop Moreau-envelope Hessian-free method: a tracker
// theta of the proximal point z* (like TSP's z) and a fixed increasing
// penalty c_k = C (k+1)^Power in place of a dual variable, with
// Gauss-Seidel order:
//
//	theta <- theta - eta (grad_y g(x, theta) + (theta - y)/gamma)
//	x     <- x - alpha (grad_x f(x, y) + c_k (grad_x g(x, y) - grad_x g(x, theta)))
//	y     <- y - beta  (grad_y f(x, y) + c_k (grad_y g(x, y) + (theta - y)/gamma))   at the new x
//
// MEHA's paper writes the step on (1/c_k) f + (g - v_gamma); the penalty
// form above keeps the step sizes those of TSP (the paper under
// reproduction uses the same step sizes for all methods) and is the same
// direction.
type MEHA struct {
	// X, Y, Theta are x_k, y_k and the tracker theta_k; K counts the
	// completed iterations.
	X, Y, Theta                  []float64
	K                            int
	evals                        int64
	pb                           bilevel.Bilevel
	prm                          MEHAParams
	gyT, gxT, gxY, gyY, gfX, gfY []float64
}

// NewMEHA returns MEHA on pb from (x0, y0), theta^0 = y0.
func NewMEHA(pb bilevel.Bilevel, x0, y0 []float64, prm MEHAParams) (*MEHA, error) {
	if err := startChecks(pb, x0, y0); err != nil {
		return nil, err
	}
	if err := prm.Validate(); err != nil {
		return nil, err
	}
	nx, ny := pb.NX, pb.NY
	return &MEHA{
		X: clone(x0), Y: clone(y0), Theta: clone(y0), pb: pb, prm: prm,
		gyT: make([]float64, ny), gxT: make([]float64, nx), gxY: make([]float64, nx), gyY: make([]float64, ny),
		gfX: make([]float64, nx), gfY: make([]float64, ny),
	}, nil
}

// penalty returns c_k.
func (m *MEHA) penalty() float64 { return m.prm.C * math.Pow(float64(m.K+1), m.prm.Power) }

// Step runs one iteration.
func (m *MEHA) Step() {
	pb, q := m.pb, m.prm
	c := m.penalty()
	pb.G.Grad(m.X, m.Theta, nil, m.gyT)
	for i := range m.Theta {
		m.Theta[i] -= q.Eta * (m.gyT[i] + (m.Theta[i]-m.Y[i])/q.Gamma)
	}
	pb.G.Grad(m.X, m.Theta, m.gxT, nil)
	pb.G.Grad(m.X, m.Y, m.gxY, nil)
	pb.F.Grad(m.X, m.Y, m.gfX, nil)
	for i := range m.X {
		m.X[i] -= q.Alpha * (m.gfX[i] + c*(m.gxY[i]-m.gxT[i]))
	}
	pb.G.Grad(m.X, m.Y, nil, m.gyY)
	pb.F.Grad(m.X, m.Y, nil, m.gfY)
	m.evals += 6
	for i := range m.Y {
		m.Y[i] -= q.Beta * (m.gfY[i] + c*(m.gyY[i]+(m.Theta[i]-m.Y[i])/q.Gamma))
	}
	m.K++
}

// Name returns "MEHA".
func (m *MEHA) Name() string { return NameMEHA }

// Point returns (x_k, y_k).
func (m *MEHA) Point() (x, y []float64) { return m.X, m.Y }

// Evals returns the oracle calls so far.
func (m *MEHA) Evals() int64 { return m.evals }

// Multiplier returns c_k of the next step.
func (m *MEHA) Multiplier() float64 { return m.penalty() }

// startChecks validates pb and the start point.
func startChecks(pb bilevel.Bilevel, x0, y0 []float64) error {
	if err := pb.Validate(); err != nil {
		return err
	}
	return pb.CheckStart(x0, y0)
}

// clone returns a copy of v.
func clone(v []float64) []float64 { return append([]float64(nil), v...) }

// axpy computes y += a x.
func axpy(y []float64, a float64, x []float64) {
	for i := range y {
		y[i] += a * x[i]
	}
}
