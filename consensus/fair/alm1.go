package fair

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/consim/consim/graph"
)

// streamSample is the common-randomness stream of the mini-batches and
// the sampled constraint rows.
var streamSample = graph.NamedStream("fair-sample")

// Params are the parameters of Algorithm 1 on problem (6.6). A zero step
// (Tau, Eta, Beta, Mu) is set by the practical rule of Resolve.
type Params struct {
	// C is the covariance threshold c > 0 (math.Inf(1): unconstrained,
	// the slack box is then [-|a|_1 R, |a|_1 R] so the constraint never
	// binds).
	C float64
	// R is the box on theta, |theta_j| <= R.
	R float64
	// Rho is the penalty rho of the augmented Lagrangian.
	Rho float64
	// Tau is the primal step tau.
	Tau float64
	// Eta is the dual step eta.
	Eta float64
	// Beta is the proximal-centre step beta.
	Beta float64
	// Mu is the proximal weight mu.
	Mu float64
	// Batch is the mini-batch size of the stochastic gradient.
	Batch int
	// Rounds is T, the number of iterations.
	Rounds int
	// SampledConstraint replaces A by A_zeta = [a_B^T, -1], a_B = (1/B)
	// sum_{j in B} (z_j - zbar) x_j over the iteration's mini-batch B
	// (E[A_zeta] = A): the stochastic-constraint form, one draw of data
	// rows serving the gradient, the dual step and the penalty term. Its
	// penalty is biased: E||A_zeta x||^2 = ||A x||^2 + Var(a_B^T theta),
	// which pulls theta towards 0 by rho/2 times that variance.
	SampledConstraint bool
	// Seed seeds the samples.
	Seed uint64
}

// Resolved are the constants Resolve computed.
type Resolved struct {
	// Lf is the Lipschitz constant of grad L: Curvature * lambda_max.
	Lf float64
	// NormA2 is ||A||^2 = ||a||^2 + 1.
	NormA2 float64
	// LK is L_f + mu + rho ||A||^2, the Lipschitz constant of the
	// gradient of the proximal augmented Lagrangian in x.
	LK float64
}

// Resolve fills the zero steps of p by the practical rule and returns the
// constants: mu = L_f (as (3.1)), tau = 1/(2 L_K), eta = rho/2, beta =
// 1/2 tau mu; Batch defaults to 32, Rounds to 20,000, R to 10 and Rho to
// 1 (0.1 in the sampled-constraint form).
func Resolve(d *Data, loss Loss, p Params) (Params, Resolved, error) {
	if err := d.Validate(); err != nil {
		return p, Resolved{}, err
	}
	if p.R == 0 {
		p.R = 10
	}
	if p.Rho == 0 {
		p.Rho = 1
		if p.SampledConstraint {
			// E||A_zeta x||^2 = ||A x||^2 + Var(a_B^T theta): the penalty
			// of the sampled form adds rho/2 times that variance, so it
			// takes a smaller rho.
			p.Rho = 0.1
		}
	}
	if p.Batch == 0 {
		p.Batch = 32
	}
	if p.Rounds == 0 {
		p.Rounds = 20000
	}
	var errs []error
	if !(p.C > 0) {
		errs = append(errs, fmt.Errorf("c %g: want > 0 (or +Inf: unconstrained)", p.C))
	}
	if !(p.R > 0) || math.IsInf(p.R, 0) {
		errs = append(errs, fmt.Errorf("R %g: want a finite box radius > 0", p.R))
	}
	if !(p.Rho >= 0) || math.IsInf(p.Rho, 0) {
		errs = append(errs, fmt.Errorf("rho %g: want finite >= 0", p.Rho))
	}
	for _, s := range []struct {
		name string
		v    float64
	}{{"tau", p.Tau}, {"eta", p.Eta}, {"beta", p.Beta}, {"mu", p.Mu}} {
		if s.v < 0 || math.IsNaN(s.v) || math.IsInf(s.v, 0) {
			errs = append(errs, fmt.Errorf("%s %g: want finite >= 0 (0: the practical rule)", s.name, s.v))
		}
	}
	if p.Beta > 1 {
		errs = append(errs, fmt.Errorf("beta %g: want <= 1", p.Beta))
	}
	if p.Batch < 1 || p.Batch > d.Rows() {
		errs = append(errs, fmt.Errorf("batch %d: want 1..%d (the examples)", p.Batch, d.Rows()))
	}
	if p.Rounds < 1 {
		errs = append(errs, fmt.Errorf("rounds %d: want >= 1", p.Rounds))
	}
	if err := errors.Join(errs...); err != nil {
		return p, Resolved{}, fmt.Errorf("fair: %w", err)
	}
	a := d.CovVector()
	r := Resolved{Lf: loss.Curvature() * PowerLambdaMax(d), NormA2: dot(a, a) + 1}
	if p.Mu == 0 {
		p.Mu = r.Lf
	}
	r.LK = r.Lf + p.Mu + p.Rho*r.NormA2
	if p.Tau == 0 {
		p.Tau = 1 / (2 * r.LK)
	}
	if p.Eta == 0 {
		p.Eta = p.Rho / 2
	}
	if p.Beta == 0 {
		p.Beta = math.Min(1, p.Tau*p.Mu/2)
	}
	return p, r, nil
}

// Result is the outcome of Solve.
type Result struct {
	// Theta is theta_T.
	Theta []float64
	// Slack is s_T.
	Slack float64
	// Y is the dual y_T.
	Y float64
	// Certificate is ||x_T - xhat||/tau for the output xhat of (3.2)
	// computed with the full-batch gradient at the frozen iterate (x_T,
	// y_T, z_T): the norm of the projected-gradient mapping, a measure of
	// stationarity.
	Certificate float64
	// Samples counts the stochastic gradient samples used.
	Samples int64
	// Params are the parameters the run used, after Resolve.
	Params Params
	// Resolved are the constants of Resolve.
	Resolved Resolved
}

// Solve runs Algorithm 1 (stochastic smoothed linearized ALM) on (6.6)
// from theta_0 = 0, s_0 = 0, y_0 = 0, z_0 = x_0: for t = 0..T-1,
//
//	y_{t+1} = y_t + eta (A x_t - b)
//	G_t     = grad_B f(x_t) + A^T y_{t+1} + rho A^T (A x_t - b) + mu (x_t - z_t)
//	x_{t+1} = proj_X(x_t - tau G_t)
//	z_{t+1} = z_t + beta (x_t - z_t)
//
// with x = (theta, s), A = [a^T, -1], b = 0, grad_B f the gradient of the
// loss averaged over a mini-batch of Batch rows drawn uniformly with
// replacement, and X = [-R, R]^d x [-c, c].
func Solve(d *Data, loss Loss, p Params) (*Result, error) {
	p, res, err := Resolve(d, loss, p)
	if err != nil {
		return nil, err
	}
	n, dim := d.Rows(), d.Dim
	a := d.CovVector()
	var zbar float64
	for _, z := range d.Z {
		zbar += z
	}
	zbar /= float64(n)
	c := p.C
	if math.IsInf(c, 1) {
		// |a^T theta| <= |a|_1 R on the box: the slack box never binds.
		var l1 float64
		for _, v := range a {
			l1 += math.Abs(v)
		}
		c = l1*p.R + 1
	}
	theta := make([]float64, dim)
	zt := make([]float64, dim)
	g := make([]float64, dim)
	rowA := make([]float64, dim)
	rows := make([]int, p.Batch)
	var s, zs, y float64
	var pcg rand.PCG
	rng := rand.New(&pcg)
	for t := range p.Rounds {
		streamSample.Seed(&pcg, p.Seed, uint64(t), 0)
		for k := range rows {
			rows[k] = rng.IntN(n)
		}
		// The constraint row of this iteration: a, or its one-row sample.
		ca := a
		if p.SampledConstraint {
			clear(rowA)
			for _, j := range rows {
				w := (d.Z[j] - zbar) / float64(len(rows))
				for k, v := range d.Row(j) {
					rowA[k] += w * v
				}
			}
			ca = rowA
		}
		r := dot(ca, theta) - s // A x_t - b
		y += p.Eta * r
		Gradient(d, loss, theta, rows, g)
		m := y + p.Rho*r // the multiplier of A^T in G_t
		for j := range theta {
			gj := g[j] + m*ca[j] + p.Mu*(theta[j]-zt[j])
			zt[j] += p.Beta * (theta[j] - zt[j])
			theta[j] = clamp(theta[j]-p.Tau*gj, p.R)
		}
		gs := -m + p.Mu*(s-zs)
		zs += p.Beta * (s - zs)
		s = clamp(s-p.Tau*gs, c)
		if !finite(y) || !finite(s) {
			return nil, fmt.Errorf("fair: diverged at iteration %d (dual %g, slack %g); lower tau or rho", t, y, s)
		}
	}
	out := &Result{Theta: theta, Slack: s, Y: y, Samples: int64(p.Rounds) * int64(p.Batch), Params: p, Resolved: res}
	// The certificate (3.2) at the frozen iterate, with the full-batch
	// gradient and the exact A (an average over every constraint row).
	r := dot(a, theta) - s
	m := y + p.Eta*r + p.Rho*r
	Gradient(d, loss, theta, nil, g)
	var sq float64
	for j := range theta {
		gj := g[j] + m*a[j] + p.Mu*(theta[j]-zt[j])
		diff := theta[j] - clamp(theta[j]-p.Tau*gj, p.R)
		sq += diff * diff
	}
	gs := -m + p.Mu*(s-zs)
	diff := s - clamp(s-p.Tau*gs, c)
	sq += diff * diff
	out.Certificate = math.Sqrt(sq) / p.Tau
	return out, nil
}

// clamp projects v onto [-r, r].
func clamp(v, r float64) float64 { return math.Max(-r, math.Min(r, v)) }

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
