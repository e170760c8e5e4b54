package dadmm

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/admm"
	"github.com/consim/consim/consensus/edgeadmm"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/problems/portfolio"
)

// CompositionConfig is the configuration shared by all agents of a
// decentralized com-SVR-ADMM run (see CompositionAgent).
type CompositionConfig struct {
	// Params are com-SVR-ADMM's eta, rho, K (rounds per outer iteration)
	// and the mini-batch N of the inner-function estimate; all required.
	admm.Params
	// C is the consensus penalty c > 0; 0 selects DefaultC.
	C float64
	// Reg is the regularizer R of the w block (required); agent i carries
	// R/N_agents, so that the sum over agents is R.
	Reg admm.Regularizer
	// Seed is the run seed of the samples: agent i draws the samples of
	// the outer iteration that starts at round t0 from one generator
	// PCG(Hash(Seed, t0, DrawSample, i, 0), Hash(Seed, t0, DrawSample, i, 1)),
	// in the order of admm.ComSVRADMM.Epoch.
	Seed uint64
}

// normalized fills in the default c and validates cfg.
func (cfg CompositionConfig) normalized() (CompositionConfig, error) {
	if cfg.C == 0 {
		cfg.C = DefaultC
	}
	pos := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) }
	switch {
	case !pos(cfg.C):
		return cfg, fmt.Errorf("c = %v: must be positive and finite", cfg.C)
	case !pos(cfg.Eta):
		return cfg, fmt.Errorf("eta = %v: must be positive and finite", cfg.Eta)
	case !pos(cfg.Rho):
		return cfg, fmt.Errorf("rho = %v: must be positive and finite", cfg.Rho)
	case cfg.K < 1:
		return cfg, fmt.Errorf("K = %d: must be at least 1", cfg.K)
	case cfg.Batch < 1:
		return cfg, fmt.Errorf("mini-batch %d: must be at least 1", cfg.Batch)
	case cfg.Reg == nil:
		return cfg, fmt.Errorf("regularizer is required")
	}
	return cfg, nil
}

// CompositionAgent is agent i of decentralized com-SVR-ADMM for
//
//	min (1/N) sum_i [ F_i(x_i) + R(w_i) ]  s.t.  x_i = w_i,  x_i = x_j on the edges,
//
// where F_i(x) = (1/n_i) sum_l f_l( (1/m_i) sum_j g_j(x) ) is the
// composition objective of agent i's shard (for the portfolio problem: its
// own periods, see portfolio.Split). It holds x_i, w_i, the multiplier
// lambda_i of x_i = w_i and the consensus dual a_i. Rounds are grouped in
// outer iterations of K rounds; round t = sK + k does
//
//	exchange x_i; a_i += c sum_{j live} (x_i - x_j)                 (t >= 1)
//	k = 0:  snapshot g_i(x~), grad F_i(x~) at x~ = x_i (2m_i + n_i queries);
//	        lambda_i = -(1/N) grad F_i(x~) - a_i
//	w_i = prox_{R/(N rho)}(x_i + lambda_i/rho)
//	v   = com-SVR estimate of grad F_i(x_i) (mini-batch g_hat, 2 Batch + 4 queries)
//	x_i = [x_i/eta - v/N - lambda_i + rho w_i - a_i + c (d_i x_i + sum_{j live} x_j)] / (rho + 1/eta + 2c d_i)
//	lambda_i += rho (x_i - w_i)
//	k = K-1: x~ = mean of the round's x_i^1..x_i^K, w~ likewise; x_i = x~, w_i = w~
//
// The x-step minimizes the linearized augmented Lagrangian
// <v/N + lambda_i + a_i, x> + (rho/2)||x - w_i||^2 + (1/(2 eta))||x - x_i||^2
// + c sum_{j live} ||x - (x_i + x_j)/2||^2. lambda~ = -(1/N) grad F_i(x~) - a_i
// is the multiplier that makes x~ stationary in that Lagrangian at
// consensus, the decentralized counterpart of the paper's
// lambda~ = -(A^T)^+ grad F(x~).
//
// With N = 1 there are no edges, a_i = 0, and every step is that of
// admm.ComSVRADMM (Algorithm 1 with A = I, B = -I) on the same samples, so
// the iterates coincide with it (up to rounding).
type CompositionAgent struct {
	exchange

	cfg  CompositionConfig
	invN float64
	orc  *admm.OracleCounter
	reg  admm.Regularizer // R/N is applied through Prox(1/(N rho), ...)

	x, w, lam, a []float64
	xt, wt       []float64 // x~, w~
	xsum, wsum   []float64
	z, sum       []float64 // scratch: prox argument, sum of live x_j
	est          *admm.Estimator

	pcg *rand.PCG
	rng *rand.Rand
}

var _ consensus.Agent = (*CompositionAgent)(nil)

// NewCompositionAgent returns agent id of the run with configuration cfg
// over graph g and edge process proc, holding the composition shard p,
// started at x~^0 = w~^0 = x0 (copied), a = 0.
func NewCompositionAgent(cfg CompositionConfig, id int, g *graph.Graph, proc graph.EdgeProcess, p portfolio.Composition, x0 []float64) (*CompositionAgent, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, fmt.Errorf("dadmm: composition agent %d: config: %w", id, err)
	}
	if g == nil || proc == nil {
		return nil, fmt.Errorf("dadmm: composition agent %d: graph and edge process are required", id)
	}
	if id < 0 || id >= g.N {
		return nil, fmt.Errorf("dadmm: composition agent id %d: must be in [0, %d)", id, g.N)
	}
	orc, err := admm.NewOracleCounter(p)
	if err != nil {
		return nil, fmt.Errorf("dadmm: composition agent %d: %w", id, err)
	}
	d := p.Dims()
	if len(x0) != d.D {
		return nil, fmt.Errorf("dadmm: composition agent %d: initial point has length %d, want d = %d", id, len(x0), d.D)
	}
	vec := func() []float64 { return make([]float64, d.D) }
	ag := &CompositionAgent{
		exchange: newExchange(id, d.D, g, proc),
		cfg:      cfg,
		invN:     1 / float64(g.N),
		orc:      orc,
		reg:      cfg.Reg,
		x:        append([]float64(nil), x0...),
		w:        append([]float64(nil), x0...),
		lam:      vec(), a: vec(),
		xt: append([]float64(nil), x0...), wt: append([]float64(nil), x0...),
		xsum: vec(), wsum: vec(), z: vec(), sum: vec(),
		est: admm.NewEstimator(orc),
		pcg: rand.NewPCG(0, 0),
	}
	ag.rng = rand.New(ag.pcg)
	return ag, nil
}

// ID implements consensus.Agent.
func (ag *CompositionAgent) ID() int { return ag.id }

// Phases implements consensus.Agent: one exchange phase per round.
func (ag *CompositionAgent) Phases(int) int { return 1 }

// X returns a copy of x_i (x~ after the last round of an outer iteration).
func (ag *CompositionAgent) X() []float64 { return append([]float64(nil), ag.x...) }

// W returns a copy of w_i.
func (ag *CompositionAgent) W() []float64 { return append([]float64(nil), ag.w...) }

// Dual returns a copy of the consensus dual a_i.
func (ag *CompositionAgent) Dual() []float64 { return append([]float64(nil), ag.a...) }

// Oracle returns the agent's query counter.
func (ag *CompositionAgent) Oracle() *admm.OracleCounter { return ag.orc }

// Send implements consensus.Agent: x_i to the present neighbours.
func (ag *CompositionAgent) Send(t, ph int) consensus.Outbox { return ag.send(t, ph, ag.x) }

// Receive implements consensus.Agent: the dual step and one inner
// iteration of com-SVR-ADMM with the consensus terms.
func (ag *CompositionAgent) Receive(t, ph int, in consensus.Inbox) error {
	if err := ag.receive(t, ph, in); err != nil {
		return fmt.Errorf("dadmm: composition agent %d: %w", ag.id, err)
	}
	c, eta, rho, K := ag.cfg.C, ag.cfg.Eta, ag.cfg.Rho, ag.cfg.K
	if t > 0 {
		ag.dualStep(c, ag.x, ag.a)
	}
	k := t % K
	if k == 0 {
		graph.SeedSample(ag.pcg, ag.cfg.Seed, t, ag.id)
		ag.est.Snapshot(ag.x)
		for l, g := range ag.est.Grad {
			ag.lam[l] = -float64(ag.invN*g) - ag.a[l]
		}
		clear(ag.xsum)
		clear(ag.wsum)
	}
	z := ag.z
	for l := range z {
		z[l] = ag.x[l] + ag.lam[l]/rho
	}
	ag.reg.Prox(ag.invN/rho, z, ag.w)
	v := ag.est.Estimate(ag.rng, ag.cfg.Batch, ag.x)
	sum := ag.sum
	d := float64(ag.liveSum(sum))
	den := rho + 1/eta + float64(2*c*d)
	for l := range ag.x {
		ag.x[l] = (ag.x[l]/eta - float64(ag.invN*v[l]) - ag.lam[l] + float64(rho*ag.w[l]) - ag.a[l] + float64(c*(float64(d*ag.x[l])+sum[l]))) / den
		ag.lam[l] += float64(rho * (ag.x[l] - ag.w[l]))
		ag.xsum[l] += ag.x[l]
		ag.wsum[l] += ag.w[l]
	}
	if k == K-1 {
		inv := 1 / float64(K)
		for l := range ag.x {
			ag.xt[l] = inv * ag.xsum[l]
			ag.wt[l] = inv * ag.wsum[l]
		}
		copy(ag.x, ag.xt)
		copy(ag.w, ag.wt)
	}
	ag.round++
	return nil
}

// Report implements consensus.Agent: X = x_i, Measures as Measures
// declares them: the dual share ||a_i||^2,
// GradEvals the oracle queries so far (admm.OracleCounter.Total), and
// and the agent's block of the squared KKT residual of the split problem,
//
//	||(1/N) grad F_i(x_i) + lambda_i + a_i||^2          stationarity in x
//	+ ||w_i - prox_{R/(N rho)}(w_i + lambda_i/rho)||^2  lambda_i in (1/N) dR(w_i)
//	+ ||x_i - w_i||^2                                   x_i = w_i,
//
// with the exact gradient of F_i, whose m_i + n_i queries are not counted.
func (ag *CompositionAgent) Report() consensus.Report {
	n := len(ag.x)
	g, z, pw := make([]float64, n), make([]float64, n), make([]float64, n)
	admm.Gradient(ag.orc.P, ag.x, g)
	for l := range z {
		z[l] = ag.w[l] + ag.lam[l]/ag.cfg.Rho
	}
	ag.reg.Prox(ag.invN/ag.cfg.Rho, z, pw)
	var kkt float64
	for l := range g {
		rx := float64(ag.invN*g[l]) + ag.lam[l] + ag.a[l]
		rw := ag.w[l] - pw[l]
		rf := ag.x[l] - ag.w[l]
		kkt += float64(rx*rx) + float64(rw*rw) + float64(rf*rf)
	}
	return consensus.Report{
		ID:        ag.id,
		Round:     ag.round,
		X:         ag.X(),
		Measures:  []float64{kkt, edgeadmm.Sq(ag.a)},
		GradEvals: ag.orc.Total(),
	}
}
