package penalty

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/problems/constrlogistic"
)

// Alg2Config configures a run of Algorithm 2.
type Alg2Config struct {
	Rule Rule2
	// K is the run length of the constant rules (rho depends on it) and,
	// unless Outer is set, the number of outer iterations run.
	K int
	// Outer, if positive, stops the run after Outer outer iterations
	// (a prefix of the run of length K).
	Outer int
	// X0 is x^0 in dom psi (copied).
	X0 []float64
	// Seed keys the samples: outer iteration k draws i_1..i_{T_k} from one
	// PCG seeded by graph.SeedSample(seed, k, 0).
	Seed uint64
	// Shards, if non-nil, are the boundaries 0 = b_0 < b_1 < ... < b_N = s
	// of the data shards of the data-parallel form: the full gradient is
	// then summed shard by shard, sum_a (sum_{b_a <= i < b_{a+1}} grad
	// f_i), which is the order of the agents' all-reduce, so that the run
	// reproduces the agents bit for bit. Nil means one shard.
	Shards []int
	// Every records every Every-th outer iteration (and the start and the
	// last); 0 means every one.
	Every int
	// Objective evaluates F(x) for the trace; nil means fbar + psi.
	Objective func(x []float64) float64
	// Lf overrides L_grad_fbar of (20) (sum_i L_i / s) when positive.
	Lf float64
}

// vr is the state of Algorithm 2 between steps, shared by the single-agent
// run and the data-parallel agents so that both execute the same floating
// point operations.
type vr struct {
	rule       Rule2
	s, bigK, n int
	lf, lc2    float64
	c          constrlogistic.Constraints
	psi        constrlogistic.Regularizer
	seed       uint64

	lip   []float64 // L_i
	cum   []float64 // cumulative L_i, the sampling distribution q
	total float64   // sum_i L_i

	xt, zt  []float64 // x~_k, z~_k
	x, z, y []float64 // x_{t-1}, z_{t-1}, y_t
	gt      []float64 // g~_k = grad fbar(x~_k)
	g, cv   []float64
	acc     []float64 // sum_t theta_t x_t
	wsum    float64   // sum_t theta_t

	k     int // current outer iteration (1-based)
	t     int // inner steps done in outer k
	i     int // sampled component of the current step
	step  Step2
	pcg   rand.PCG
	rng   *rand.Rand
	evals int64
}

// newVR builds the state at x~_1 = z~_1 = x0; lip holds L_1..L_s.
func newVR(rule Rule2, bigK int, lip []float64, lf float64, c constrlogistic.Constraints, psi constrlogistic.Regularizer, x0 []float64, seed uint64) (*vr, error) {
	s, n := len(lip), len(x0)
	if s == 0 {
		return nil, fmt.Errorf("penalty: Algorithm 2: no components")
	}
	if _, err := Params2(rule, s, bigK, 1, 1, 1); err != nil {
		return nil, err
	}
	v := &vr{rule: rule, s: s, bigK: bigK, n: n, c: c, psi: psi, seed: seed, lc2: c.LipGradSq(),
		lip: append([]float64(nil), lip...), cum: make([]float64, s),
		xt: append([]float64(nil), x0...), zt: append([]float64(nil), x0...),
		x: make([]float64, n), z: make([]float64, n), y: make([]float64, n),
		gt: make([]float64, n), g: make([]float64, n), cv: make([]float64, c.Len()),
		acc: make([]float64, n)}
	for i, l := range lip {
		if !(l > 0) {
			return nil, fmt.Errorf("penalty: Algorithm 2: L_%d = %g, want > 0", i, l)
		}
		v.total += l
		v.cum[i] = v.total
	}
	v.lf = lf
	if !(lf > 0) {
		v.lf = v.total / float64(s)
	}
	v.rng = rand.New(&v.pcg)
	return v, nil
}

// begin starts outer iteration k with g~_k = grad fbar(x~_k) in full (the
// caller's sum of the s component gradients, already divided by s).
func (v *vr) begin(k int, full []float64) error {
	st, err := Params2(v.rule, v.s, v.bigK, k, v.lf, v.lc2)
	if err != nil {
		return err
	}
	v.k, v.t, v.step = k, 0, st
	copy(v.gt, full)
	copy(v.x, v.xt)
	copy(v.z, v.zt)
	clear(v.acc)
	v.wsum = 0
	v.evals += int64(v.s)
	graph.SeedSample(&v.pcg, v.seed, k, 0)
	v.sample()
	return nil
}

// sample draws i_t with probability q_i = L_i / sum_j L_j and forms
// y_t = (1 - alpha - p) x_{t-1} + alpha z_{t-1} + p x~_k.
func (v *vr) sample() {
	u := v.rng.Float64() * v.total
	v.i = sort.SearchFloat64s(v.cum, u)
	if v.i < v.s-1 && v.cum[v.i] == u {
		v.i++ // SearchFloat64s finds cum >= u; we want cum > u
	}
	v.i = min(v.i, v.s-1)
	a, p := v.step.Alpha, v.step.P
	for j := range v.y {
		v.y[j] = (1-a-p)*v.x[j] + a*v.z[j] + p*v.xt[j]
	}
}

// finish completes inner step t given d = grad f_i(y_t) - grad f_i(x~_k)
// for the sampled i:
//
//	g_t = d/(q_i s) + g~_k + rho_k grad c(y_t) [c(y_t)]_+
//	z_t = prox_{gamma_k psi}(z_{t-1} - gamma_k g_t)
//	x_t = (1 - alpha_k - p_k) x_{t-1} + alpha_k z_t + p_k x~_k
//
// and accumulates theta_t x_t. After step T_k it sets z~_{k+1} = z_{T_k}
// and x~_{k+1} = sum_t theta_t x_t / sum_t theta_t and reports done;
// otherwise it samples the next step.
func (v *vr) finish(d []float64) (done bool) {
	st := v.step
	w := v.total / v.lip[v.i] / float64(v.s) // 1/(q_i s)
	for j := range v.g {
		v.g[j] = d[j]*w + v.gt[j]
	}
	addPenaltyGrad(v.c, v.y, st.Rho, v.g, v.cv)
	for j := range v.z {
		v.z[j] -= st.Gamma * v.g[j]
	}
	v.psi.Prox(v.z, st.Gamma, v.z)
	a, p := st.Alpha, st.P
	for j := range v.x {
		v.x[j] = (1-a-p)*v.x[j] + a*v.z[j] + p*v.xt[j]
	}
	v.t++
	v.evals += 2
	theta := st.ThetaInner()
	if v.t == st.T {
		theta = st.ThetaLast()
	}
	for j := range v.acc {
		v.acc[j] += theta * v.x[j]
	}
	v.wsum += theta
	if v.t < st.T {
		v.sample()
		return false
	}
	copy(v.zt, v.z)
	for j := range v.xt {
		v.xt[j] = v.acc[j] / v.wsum
	}
	return true
}

// lipOf returns L_1..L_s of f.
func lipOf(f constrlogistic.FiniteSum) []float64 {
	l := make([]float64, f.Len())
	for i := range l {
		l[i] = f.Lip(i)
	}
	return l
}

// validShards checks 0 = b_0 < ... < b_N = s.
func validShards(b []int, s int) error {
	if b == nil {
		return nil
	}
	if len(b) < 2 || b[0] != 0 || b[len(b)-1] != s {
		return fmt.Errorf("penalty: shard bounds %v: want 0 = b_0 < ... < b_N = %d", b, s)
	}
	for a := 1; a < len(b); a++ {
		if b[a] <= b[a-1] {
			return fmt.Errorf("penalty: shard bounds %v are not increasing", b)
		}
	}
	return nil
}

// RunAlg2 runs cfg.K (or cfg.Outer) outer iterations of Algorithm 2 (variance-reduced ASG
// on the penalty sequence, with the exact penalty gradient) from
// x~_1 = z~_1 = x^0 and returns the trace of x~_k and x~_{K+1}. Outer
// iteration k computes g~_k = grad fbar(x~_k) (s component gradients), then
// T_k inner steps (two component gradients each) with i_t drawn with
// probability q_i = L_i / sum_j L_j, as described at vr.finish.
func RunAlg2(f constrlogistic.FiniteSum, c constrlogistic.Constraints, psi constrlogistic.Regularizer, cfg Alg2Config) (Trace, []float64, error) {
	n := f.Dim()
	if len(cfg.X0) != n {
		return Trace{}, nil, fmt.Errorf("penalty: Algorithm 2: x0 has length %d, want %d", len(cfg.X0), n)
	}
	if err := validShards(cfg.Shards, f.Len()); err != nil {
		return Trace{}, nil, err
	}
	v, err := newVR(cfg.Rule, cfg.K, lipOf(f), cfg.Lf, c, psi, cfg.X0, cfg.Seed)
	if err != nil {
		return Trace{}, nil, err
	}
	obj := cfg.Objective
	if obj == nil {
		obj = objectiveFunc(f.Value, psi)
	}
	full := make([]float64, n)
	part := make([]float64, n)
	d := make([]float64, n)
	invS := 1 / float64(f.Len())
	outer := cfg.K
	if cfg.Outer > 0 {
		outer = cfg.Outer
	}
	rec := recorder{every: cfg.Every, last: outer}
	tr := Trace{Method: "Algorithm 2, " + cfg.Rule.String()}
	tr.Records = append(tr.Records, Record{Objective: obj(v.xt), Violation: constrlogistic.Violation(c, v.xt, v.cv)})
	for k := 1; k <= outer; k++ {
		constrlogistic.SumGrad(f, cfg.Shards, v.xt, full, part)
		for j := range full {
			full[j] *= invS
		}
		if err := v.begin(k, full); err != nil {
			return Trace{}, nil, err
		}
		for {
			clear(d)
			f.AddGrad(v.i, v.y, 1, d)
			f.AddGrad(v.i, v.xt, -1, d)
			if v.finish(d) {
				break
			}
		}
		if rec.want(k) {
			tr.Records = append(tr.Records, Record{Iter: k, GradEvals: v.evals,
				Objective: obj(v.xt), Violation: constrlogistic.Violation(c, v.xt, v.cv), Rho: v.step.Rho})
		}
	}
	return tr, append([]float64(nil), v.xt...), nil
}
