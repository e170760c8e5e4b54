package penalty

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/observe"
	"github.com/consim/consim/problems/constrlogistic"
)

// Params is the algorithm block of penalty_vrasg.
type Params struct {
	Preset string  `yaml:"preset" doc:"parameter rule of Algorithm 2: 3i|3ii (Theorem 3, constant rho)|4i|4ii (Theorem 4, dynamic rho)"`
	Lf     float64 `yaml:"lf" doc:"L of grad fbar; 0 takes (20), sum_i L_i / s"`
}

// Validate checks the preset and lf.
func (s *Params) Validate() error {
	var errs registry.FieldErrors
	errs.OneOf("preset", s.Preset, "3i", "3ii", "4i", "4ii")
	errs.Check("lf", &s.Lf, registry.NonNegative)
	return errs.Err()
}

// Algorithm describes penalty_vrasg to the registry: Algorithm 2 of Lu
// and Xiao (variance-reduced accelerated stochastic gradient on the
// quadratic penalty) in its data-parallel form: agent a holds a
// contiguous shard of the samples and a replica of the iterate, the full
// gradient of every outer iteration is a sum over the agents (all-reduce)
// and the inner steps reduce the one sampled component's gradient (Agent).
// A round is one outer iteration k, with 1 + T_k phases; the scenario's
// rounds are K.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:    "penalty_vrasg",
		Summary: "Lu-Xiao Algorithm 2 (variance-reduced ASG, quadratic penalty, constant or dynamic rho), data-parallel agents with an all-reduced full gradient",
		New:     func() registry.Params { return &Params{Preset: "4ii"} },
		Build: registry.BuildWith(func(p registry.Params, env *registry.Env, inst constrlogistic.Provider) (registry.Run, error) {
			st := p.(*Params)
			f := inst.FiniteSum()
			s := f.Len()
			if env.N > s {
				return nil, fmt.Errorf("penalty_vrasg: %d agents for %d samples: every agent needs a shard", env.N, s)
			}
			rule, _ := ParseRule2(st.Preset)
			if !rule.Dynamic() && env.Rounds < MinK(rule, s) {
				return nil, registry.FieldErrors{{Key: "rounds", Msg: fmt.Sprintf("preset %s with s = %d samples needs K = rounds >= %d", st.Preset, s, MinK(rule, s))}}
			}
			bounds := make([]int, env.N+1)
			for a := range bounds {
				bounds[a] = a * s / env.N
			}
			cfg := AgentConfig{Rule: rule, K: env.Rounds, X0: inst.Start(), Seed: env.Seed, Bounds: bounds,
				Lip: lipOf(f), Lf: st.Lf, Cons: inst.Linear(), Psi: inst.Psi()}
			return &VRRun{inst: inst, f: f, cfg: cfg}, nil
		}),
		Needs:    []string{constrlogistic.Cap},
		NeedsDoc: "a finite-sum problem with linear constraints and an l1 + box regularizer",
		Roles:    registry.Shards,
		Renamed:  map[string]string{"rule": "preset"},
	}
}

var (
	_ registry.Referencer = (*VRRun)(nil)
	_ registry.Measurer   = (*VRRun)(nil)
	_ registry.Evaluator  = (*VRRun)(nil)
)

// VRRun is penalty_vrasg resolved against one instance.
type VRRun struct {
	inst constrlogistic.Provider
	f    *constrlogistic.Logistic
	cfg  AgentConfig
	opt  *constrlogistic.Optimum
}

// Agent builds agent a with its shard.
func (r *VRRun) Agent(a int) (consensus.Agent, error) {
	if a < 0 || a+1 >= len(r.cfg.Bounds) {
		return nil, fmt.Errorf("penalty: agent id %d is outside [0, %d)", a, len(r.cfg.Bounds)-1)
	}
	return NewAgent(a, r.f.Slice(r.cfg.Bounds[a], r.cfg.Bounds[a+1]), r.cfg)
}

// Resolved lists the rule's constants and those of the first outer
// iteration.
func (r *VRRun) Resolved() []registry.Value {
	s := r.f.Len()
	lf := r.cfg.Lf
	if lf <= 0 {
		lf = constrlogistic.MeanLip(r.f)
	}
	lc2 := r.cfg.Cons.LipGradSq()
	vals := []registry.Value{
		{Name: "s", Value: float64(s), Note: "samples"},
		{Name: "K", Value: float64(r.cfg.K), Note: "outer iterations (rounds)"},
		{Name: "k0", Value: float64(K0(r.cfg.Rule, s))},
		{Name: "L_f", Value: lf, Note: "(20) unless lf is given"},
		{Name: "L_c2", Value: lc2},
	}
	if st, err := Params2(r.cfg.Rule, s, r.cfg.K, 1, lf, lc2); err == nil {
		vals = append(vals, registry.Value{Name: "rho_1", Value: st.Rho}, registry.Value{Name: "gamma_1", Value: st.Gamma},
			registry.Value{Name: "T_1", Value: float64(st.T)})
	}
	return vals
}

// Reference runs the single-agent Algorithm 2 with the agents' shards
// (RunAlg2 with Shards = Bounds, which sums the full gradient in their
// order) and returns x~ after rounds outer iterations for every agent.
func (r *VRRun) Reference(rounds int) ([][]float64, error) {
	_, x, err := RunAlg2(r.f, r.cfg.Cons, r.cfg.Psi, Alg2Config{Rule: r.cfg.Rule, K: r.cfg.K, Outer: rounds,
		X0: r.cfg.X0, Seed: r.cfg.Seed, Shards: r.cfg.Bounds, Lf: r.cfg.Lf})
	if err != nil {
		return nil, err
	}
	xs := make([][]float64, len(r.cfg.Bounds)-1)
	for a := range xs {
		xs[a] = append([]float64(nil), x...)
	}
	return xs, nil
}

// Optimum is F* of the certified solve; the problem is convex.
func (r *VRRun) Optimum() (float64, bool, error) {
	if r.opt == nil {
		o, err := r.inst.Optimum()
		if err != nil {
			return 0, true, err
		}
		r.opt = &o
	}
	return r.opt.F, true, nil
}

// Measures declares the KKT residual of the point, which Evaluate
// computes.
func (r *VRRun) Measures() []consensus.Measure {
	return []consensus.Measure{
		{Name: "kkt_stationarity", Reduce: consensus.ReduceMax, Evaluated: true, Doc: "||x - prox_psi(x - grad fbar(x) - A^T lambda*)|| at the optimum's multiplier lambda*"},
	}
}

// Evaluate measures the replicas: ConsensusErr is their disagreement
// (observe.Replicas; 0 when the all-reduce kept them equal), and at the
// first agent's x~: ObjValue F(x) = fbar(x) + psi(x), OptGap F - F*,
// DistToOpt ||x - x*||, Feasibility ||[A x - b]_+||, and the column
// kkt_stationarity.
func (r *VRRun) Evaluate(reps []consensus.Report) (registry.Evaluation, error) {
	ids := make([]int, len(reps))
	first := -1
	for i := range reps {
		ids[i] = i
		if first < 0 && reps[i].X != nil {
			first = i
		}
	}
	if first < 0 {
		return registry.Evaluation{}, fmt.Errorf("penalty: no agent's report")
	}
	x := reps[first].X
	if len(x) != r.f.Dim() {
		return registry.Evaluation{}, fmt.Errorf("penalty: agent %d reports %d values, want %d", first, len(x), r.f.Dim())
	}
	fstar, _, err := r.Optimum()
	if err != nil {
		return registry.Evaluation{}, err
	}
	obj := r.f.Value(x) + r.cfg.Psi.Value(x)
	var d float64
	for k, v := range x {
		e := v - r.opt.X[k]
		d += e * e
	}
	viol := constrlogistic.Violation(r.cfg.Cons, x, make([]float64, r.cfg.Cons.Len()))
	kkt := constrlogistic.KKTResidual(constrlogistic.FullGradient(r.f, constrlogistic.MeanLip(r.f)), r.inst.Linear(), r.cfg.Psi, x, r.opt.Lambda)
	return registry.Evaluation{ConsensusErr: observe.Replicas(reps, ids), ObjValue: obj, OptGap: obj - fstar,
		DistToOpt: math.Sqrt(d), Feasibility: viol, Values: []float64{kkt.Stationarity}}, nil
}
