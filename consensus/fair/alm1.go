package fair

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/problems/fairness"
)

// streamSample is the common-randomness stream of the mini-batches and
// the sampled constraint rows.
var streamSample = graph.NamedStream("fair-sample")

// Config is the configuration of Algorithm 1 on problem (6.6). A zero step
// (Tau, Eta, Beta, Mu) is set by the practical rule of Resolve.
type Config struct {
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
func Resolve(d *fairness.Data, loss fairness.Loss, p Config) (Config, Resolved, error) {
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
	r := Resolved{Lf: loss.Curvature() * fairness.PowerLambdaMax(d), NormA2: dot(a, a) + 1}
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
	// Config is the configuration the run used, after Resolve.
	Config Config
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
// loss averaged over a mini-batch B of Batch rows drawn uniformly with
// replacement, and X = [-R, R]^d x [-c, c].
//
// Sums over rows (a, zbar, the batch gradient) are taken block by block
// over the contiguous row blocks Shards (0 = b_0 < ... < b_N = n; nil is
// one block), each block's partial sum in row order and the partials
// added in block order: the arithmetic of N data-parallel agents whose
// partials an all-reduce adds (Agent), so both give the same bits.
func Solve(d *fairness.Data, loss fairness.Loss, p Config, shards ...int) (*Result, error) {
	p, res, err := Resolve(d, loss, p)
	if err != nil {
		return nil, err
	}
	if shards == nil {
		shards = []int{0, d.Rows()}
	}
	if err := validShards(shards, d.Rows()); err != nil {
		return nil, err
	}
	blocks := len(shards) - 1
	view := func(b int) *fairness.Data { return d.Slice(shards[b], shards[b+1]) }
	// zbar and a, as the agents' setup phases compute them.
	var zsum, cnt float64
	for b := range blocks {
		s, c := view(b).ZSum()
		zsum += s
		cnt += c
	}
	zbar := zsum / cnt
	a := make([]float64, d.Dim)
	part := make([]float64, 2*d.Dim)
	for b := range blocks {
		clear(part[:d.Dim])
		view(b).CovPartial(zbar, cnt, part[:d.Dim])
		for j := range a {
			a[j] += part[j]
		}
	}
	st := newState(p, a, zbar, d.Rows(), d.Dim)
	sum := make([]float64, st.reduceLen())
	for t := range p.Rounds {
		st.draw(t)
		clear(sum)
		for b := range blocks {
			clear(part)
			st.partial(view(b), loss, shards[b], part)
			for j := range sum {
				sum[j] += part[j]
			}
		}
		if err := st.step(t, sum); err != nil {
			return nil, err
		}
	}
	out := st.result(d, loss)
	out.Config, out.Resolved = p, res
	return out, nil
}

// validShards checks 0 = b_0 < b_1 < ... < b_N = n.
func validShards(b []int, n int) error {
	if len(b) < 2 || b[0] != 0 || b[len(b)-1] != n {
		return fmt.Errorf("fair: shard bounds %v: want 0 = b_0 < ... < b_N = %d (the rows)", b, n)
	}
	for k := 1; k < len(b); k++ {
		if b[k] <= b[k-1] {
			return fmt.Errorf("fair: shard bounds %v: want strictly increasing (every shard non-empty)", b)
		}
	}
	return nil
}

// state is the iterate of Algorithm 1 and its step, the same in Solve and
// in every data-parallel agent.
type state struct {
	p       Config
	n       int
	a       []float64
	zbar    float64
	c       float64 // the slack box
	theta   []float64
	zt      []float64
	s, zs   float64
	y       float64
	rows    []int
	pcg     rand.PCG
	rng     *rand.Rand
	rowA    []float64
	samples int64
}

// newState starts Algorithm 1 at theta = 0, s = 0, y = 0 for n rows of
// dimension dim with covariance vector a.
func newState(p Config, a []float64, zbar float64, n, dim int) *state {
	st := &state{p: p, n: n, a: a, zbar: zbar, c: p.C,
		theta: make([]float64, dim), zt: make([]float64, dim),
		rows: make([]int, p.Batch), rowA: make([]float64, dim)}
	st.rng = rand.New(&st.pcg)
	if math.IsInf(st.c, 1) {
		// |a^T theta| <= |a|_1 R on the box: the slack box never binds.
		var l1 float64
		for _, v := range a {
			l1 += math.Abs(v)
		}
		st.c = l1*p.R + 1
	}
	return st
}

// reduceLen is the length of an iteration's partial sums: the batch
// gradient, and the batch's covariance row in the sampled form.
func (st *state) reduceLen() int {
	if st.p.SampledConstraint {
		return 2 * len(st.theta)
	}
	return len(st.theta)
}

// draw draws iteration t's mini-batch (row indices in 0..n-1) from the
// common randomness.
func (st *state) draw(t int) {
	streamSample.Seed(&st.pcg, st.p.Seed, uint64(t), 0)
	for k := range st.rows {
		st.rows[k] = st.rng.IntN(st.n)
	}
}

// partial adds to part the sums over the batch rows held in d (global
// rows lo..lo+d.Rows()-1), in batch order: of V'(m_k) y_k x_k in part[:dim]
// and, in the sampled form, of (z_k - zbar) x_k in part[dim:]. It returns
// the number of batch rows it evaluated.
func (st *state) partial(d *fairness.Data, loss fairness.Loss, lo int, part []float64) int64 {
	dim := len(st.theta)
	var evals int64
	for _, k := range st.rows {
		if k < lo || k >= lo+d.Rows() {
			continue
		}
		evals++
		x := d.Row(k - lo)
		fairness.AddLossGrad(loss, x, d.Y[k-lo], st.theta, part[:dim])
		if st.p.SampledConstraint {
			wz := d.Z[k-lo] - st.zbar
			for j, v := range x {
				part[dim+j] += wz * v
			}
		}
	}
	return evals
}

// step takes iteration t with the batch sums sum (reduceLen values).
func (st *state) step(t int, sum []float64) error {
	p := &st.p
	dim := len(st.theta)
	inv := 1 / float64(len(st.rows))
	ca := st.a
	if p.SampledConstraint {
		for j := range st.rowA {
			st.rowA[j] = sum[dim+j] * inv
		}
		ca = st.rowA
	}
	r := dot(ca, st.theta) - st.s // A x_t - b
	st.y += p.Eta * r
	m := st.y + p.Rho*r // the multiplier of A^T in G_t
	for j := range st.theta {
		gj := sum[j]*inv + m*ca[j] + p.Mu*(st.theta[j]-st.zt[j])
		st.zt[j] += p.Beta * (st.theta[j] - st.zt[j])
		st.theta[j] = clamp(st.theta[j]-p.Tau*gj, p.R)
	}
	gs := -m + p.Mu*(st.s-st.zs)
	st.zs += p.Beta * (st.s - st.zs)
	st.s = clamp(st.s-p.Tau*gs, st.c)
	st.samples += int64(len(st.rows))
	if !finite(st.y) || !finite(st.s) {
		return fmt.Errorf("fair: diverged at iteration %d (dual %g, slack %g); lower tau or rho", t, st.y, st.s)
	}
	return nil
}

// result returns the iterate and its certificate (3.2) at the frozen
// iterate, with the full-batch gradient on d and the exact A.
func (st *state) result(d *fairness.Data, loss fairness.Loss) *Result {
	p := &st.p
	theta := append([]float64(nil), st.theta...)
	out := &Result{Theta: theta, Slack: st.s, Y: st.y, Samples: st.samples}
	r := dot(st.a, theta) - st.s
	m := st.y + p.Eta*r + p.Rho*r
	g := make([]float64, len(theta))
	fairness.Gradient(d, loss, theta, nil, g)
	var sq float64
	for j := range theta {
		gj := g[j] + m*st.a[j] + p.Mu*(theta[j]-st.zt[j])
		diff := theta[j] - clamp(theta[j]-p.Tau*gj, p.R)
		sq += diff * diff
	}
	gs := -m + p.Mu*(st.s-st.zs)
	diff := st.s - clamp(st.s-p.Tau*gs, st.c)
	sq += diff * diff
	out.Certificate = math.Sqrt(sq) / p.Tau
	return out
}

// clamp projects v onto [-r, r].
func clamp(v, r float64) float64 { return math.Max(-r, math.Min(r, v)) }

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// dot is sum_j u_j v_j in index order, as fairness.Covariance sums.
func dot(u, v []float64) float64 {
	var s float64
	for j := range u {
		s += u[j] * v[j]
	}
	return s
}
