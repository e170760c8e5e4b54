package slicing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	problem "github.com/consim/consim/problems/slicing"
)

// Params is the algorithm block of slicing_alm: the regularizer of (6.5)
// and optional overrides of Practical's parameters.
type Params struct {
	RegWeight  float64  `yaml:"reg_weight" doc:"sigma >= 0, weight of the l_p regularizer P_eps in units of g (0: the LP relaxation)"`
	P          float64  `yaml:"p" doc:"exponent p in (0, 1) of P_eps"`
	Eps        float64  `yaml:"eps" doc:"offset eps > 0 of P_eps"`
	Penalty    *float64 `yaml:"penalty,omitempty" doc:"penalty rho >= 0" default:"1"`
	ProxWeight *float64 `yaml:"prox_weight,omitempty" doc:"proximal weight mu >= 0 of (mu/2)||w - z||^2" default:"max{2, 4 L_f}"`
	Step       *float64 `yaml:"step,omitempty" doc:"primal step tau > 0" default:"1/(2 L_K)"`
	DualStep   *float64 `yaml:"dual_step,omitempty" doc:"dual step eta >= 0" default:"rho"`
	Smoothing  *float64 `yaml:"smoothing,omitempty" doc:"smoothing step beta in [0, 1] of z <- z + beta (w - z)" default:"tau mu"`
	Scale      *float64 `yaml:"scale,omitempty" doc:"objective scale > 0" default:"1/max_k lambda(k)"`
}

// DefaultParams are the table's regularizer: sigma = 2, p = 0.5,
// eps = 0.1, with Practical's parameters.
func DefaultParams() Params { return Params{RegWeight: 2, P: 0.5, Eps: 0.1} }

// Validate checks the values that need no instance.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	checkKeys(&errs, keys{&p.RegWeight, &p.P, &p.Eps, p.Scale, p.Penalty, p.ProxWeight, p.Step, p.DualStep, p.Smoothing})
	return errs.Err()
}

// keys are the values of the block's keys that have a range: those of the
// regularizer, the scale and the steps (nil: not given).
type keys struct{ regWeight, p, eps, scale, rho, mu, tau, eta, beta *float64 }

// The ranges of the exponent p and of the smoothing step beta.
var (
	openUnit   = registry.Range{In: func(x float64) bool { return x > 0 && x < 1 }, Want: "in (0, 1)"}
	closedUnit = registry.Range{In: func(x float64) bool { return x >= 0 && x <= 1 }, Want: "in [0, 1]"}
)

// checkKeys adds the errors of k, at the keys of the block, to errs.
func checkKeys(errs *registry.FieldErrors, k keys) {
	errs.Check("reg_weight", k.regWeight, registry.NonNegative)
	errs.Check("p", k.p, openUnit)
	errs.Check("eps", k.eps, registry.Positive)
	errs.Check("scale", k.scale, registry.Positive)
	errs.Check("penalty", k.rho, registry.NonNegative)
	errs.Check("prox_weight", k.mu, registry.NonNegative)
	errs.Check("step", k.tau, registry.Positive)
	errs.Check("dual_step", k.eta, registry.NonNegative)
	errs.Check("smoothing", k.beta, closedUnit)
}

// Algorithm describes slicing_alm to the registry: the per-node agents of
// Algorithm 1 on the regularized slicing problem (6.5) of a problem.Provider
// instance, one agent per network node.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:    "slicing_alm",
		Summary: "network slicing by the smoothed linearized ALM (Algorithm 1) on the l_p-regularized relaxation, one agent per network node",
		New:     func() registry.Params { p := DefaultParams(); return &p },
		Build: registry.BuildWith(func(p registry.Params, env *registry.Env, inst problem.Provider) (registry.Run, error) {
			md := inst.Slicing()
			if md.Inst.Nodes != env.N {
				return nil, registry.FieldErrors{{Key: "agents", Msg: fmt.Sprintf("the slicing instance has %d nodes, one agent each: set agents: %d (got %d)", md.Inst.Nodes, md.Inst.Nodes, env.N)}}
			}
			prm := *p.(*Params)
			return NewRun(md, prm.Config(md, env.Rounds))
		}),
		CanRejoin: true,
		Needs:     []string{problem.Cap},
		NeedsDoc:  "a network-slicing instance (one agent per network node)",
		Roles:     registry.Nodes,
		Renamed: map[string]string{"params.rho": "penalty", "params.mu": "prox_weight", "params.tau": "step",
			"params.eta": "dual_step", "params.beta": "smoothing", "params.scale": "scale"},
	}
}

// Config resolves p on md: Practical's parameters for the regularizer,
// with the overrides given, and horizon T = rounds.
func (p Params) Config(md *problem.Model, rounds int) Config {
	c := Practical(md, p.RegWeight, p.P, p.Eps, rounds)
	for _, f := range []struct {
		dst *float64
		v   *float64
	}{{&c.Rho, p.Penalty}, {&c.Mu, p.ProxWeight}, {&c.Tau, p.Step}, {&c.Eta, p.DualStep}, {&c.Beta, p.Smoothing}, {&c.Scale, p.Scale}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
	return c
}

// RunOn is slicing_alm resolved against one instance: the agents, their
// matrix-form reference, and the coordinator's measures of the slice.
type RunOn struct {
	cfg Config
	md  *problem.Model
	lp  float64 // the LP bound, once solved
}

var (
	_ registry.Referencer = (*RunOn)(nil)
	_ registry.Measurer   = (*RunOn)(nil)
	_ registry.Evaluator  = (*RunOn)(nil)
	_ registry.Artefacter = (*RunOn)(nil)
)

// NewRun returns the run of cfg on md; an invalid cfg is a FieldErrors at
// the keys of the block.
func NewRun(md *problem.Model, cfg Config) (*RunOn, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &RunOn{cfg: cfg, md: md, lp: math.NaN()}, nil
}

// Agent builds node i's agent.
func (r *RunOn) Agent(i int) (consensus.Agent, error) { return NewAgent(r.cfg, r.md, i) }

// Resolved lists the parameters the agents run with.
func (r *RunOn) Resolved() []registry.Value {
	c := r.cfg
	return []registry.Value{
		{Name: "sigma", Value: c.RegWeight, Note: "reg_weight"},
		{Name: "p", Value: c.P},
		{Name: "eps", Value: c.Eps},
		{Name: "scale", Value: c.Scale, Note: "1/max_k lambda(k) unless given"},
		{Name: "L_f", Value: c.Lf(), Note: "scale sigma p (1-p) eps^(p-2)"},
		{Name: "rho", Value: c.Rho},
		{Name: "mu", Value: c.Mu},
		{Name: "tau", Value: c.Tau},
		{Name: "eta", Value: c.Eta},
		{Name: "beta", Value: c.Beta},
	}
}

// Measures declares the agents' own measures (AgentMeasures) and the
// run's: binary_frac and lp_gap_rel, which Evaluate computes.
func (r *RunOn) Measures() []consensus.Measure {
	return append(AgentMeasures(),
		consensus.Measure{Name: "binary_frac", Reduce: consensus.ReduceMean, Evaluated: true, Doc: "fraction of the placement variables x_i(k,m) within 1e-3 of 0 or 1"},
		consensus.Measure{Name: "lp_gap_rel", Reduce: consensus.ReduceSum, Evaluated: true, Doc: "(g(u) - LP) / LP, the relative gap of the routing cost to the LP bound"},
	)
}

// Reference runs the matrix-form Algorithm 1 (Reference) and returns
// every node's block of w after rounds rounds.
func (r *RunOn) Reference(rounds int) ([][]float64, error) {
	ref, err := NewReference(r.cfg, r.md)
	if err != nil {
		return nil, err
	}
	block := func(i int) []float64 { return ref.W()[r.md.VarOff[i]:r.md.VarOff[i+1]] }
	return registry.StepReference(r.md.Inst.Nodes, rounds, ref.Step, block)
}

// Optimum returns the LP bound of the relaxation (PathLP) as f*: the
// optimality gap is g(u) - LP, which a binary slice cannot make negative
// unless it violates a constraint. The problem is not convex (P_eps).
func (r *RunOn) Optimum() (float64, bool, error) {
	if math.IsNaN(r.lp) {
		v, err := problem.PathLP(r.md)
		if err != nil {
			return 0, false, fmt.Errorf("slicing: LP bound: %w", err)
		}
		r.lp = v
	}
	return r.lp, false, nil
}

// point gathers w (Model order) from the nodes' reports; a node without
// a report (departed) counts with its initial block.
func (r *RunOn) point(reps []consensus.Report) ([]float64, error) {
	if len(reps) != r.md.Inst.Nodes {
		return nil, fmt.Errorf("slicing: %d reports for %d nodes", len(reps), r.md.Inst.Nodes)
	}
	w := r.md.Initial()
	for i, rep := range reps {
		if rep.X == nil {
			continue
		}
		lo, hi := r.md.VarOff[i], r.md.VarOff[i+1]
		if len(rep.X) != hi-lo {
			return nil, fmt.Errorf("slicing: node %d reports %d values, its block has %d", i, len(rep.X), hi-lo)
		}
		copy(w[lo:hi], rep.X)
	}
	return w, nil
}

// Evaluate measures the slice the nodes hold: ObjValue is the routing
// cost g(u), OptGap g(u) - LP, Feasibility the largest violation of the
// constraints of (6.4) relaxed to [0,1] (Measures.Violation: conservation
// and assignment residuals, relative capacity excess), and the measures
// binary_frac and lp_gap_rel. ConsensusErr is 0: no two nodes hold a
// copy of the same variable.
func (r *RunOn) Evaluate(reps []consensus.Report) (registry.Evaluation, error) {
	w, err := r.point(reps)
	if err != nil {
		return registry.Evaluation{}, err
	}
	ms, err := problem.Evaluate(r.md, w)
	if err != nil {
		return registry.Evaluation{}, err
	}
	lp, _, err := r.Optimum()
	if err != nil {
		return registry.Evaluation{}, err
	}
	return registry.Evaluation{
		ObjValue: ms.Objective, OptGap: ms.Objective - lp, DistToOpt: math.NaN(),
		Feasibility: ms.Violation, Values: []float64{ms.BinaryFrac, (ms.Objective - lp) / lp},
	}, nil
}

// SliceFile and OutcomeFile name the run's own files of the results
// bundle (Artefacts).
const (
	SliceFile   = "slice.dot"
	OutcomeFile = "slice.json"
)

// Outcome is slice.json: the final slice's measures and its rounding.
type Outcome struct {
	Objective  float64 `json:"objective"`
	LP         float64 `json:"lp_bound"`
	Violation  float64 `json:"violation"`
	BinaryFrac float64 `json:"binary_frac"`
	Binary     bool    `json:"binary"`
	// RoundFeasible reports whether rounding the final x (Round) gives a
	// feasible slice; RoundObjective is its routing cost (null if not).
	RoundFeasible  bool     `json:"round_feasible"`
	RoundObjective *float64 `json:"round_objective"`
	// Place[k][m-1] is the host of the m-th function of flow k after
	// rounding.
	Place [][]int `json:"place"`
}

// Artefacts writes the final slice as a Graphviz digraph (slice.dot,
// WriteDOT) and its measures with the rounding (slice.json, Outcome).
func (r *RunOn) Artefacts(reps []consensus.Report) ([]registry.File, error) {
	w, err := r.point(reps)
	if err != nil {
		return nil, err
	}
	var dot bytes.Buffer
	if err := problem.WriteDOT(&dot, r.md, w); err != nil {
		return nil, err
	}
	ms, err := problem.Evaluate(r.md, w)
	if err != nil {
		return nil, err
	}
	lp, _, err := r.Optimum()
	if err != nil {
		return nil, err
	}
	rd, err := problem.Round(r.md, w)
	if err != nil {
		return nil, err
	}
	out := Outcome{Objective: ms.Objective, LP: lp, Violation: ms.Violation, BinaryFrac: ms.BinaryFrac, Binary: ms.Binary,
		RoundFeasible: rd.Feasible, Place: rd.Place}
	if rd.Feasible {
		out.RoundObjective = &rd.Objective
	}
	js, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return []registry.File{{Name: SliceFile, Data: dot.Bytes()}, {Name: OutcomeFile, Data: append(js, '\n')}}, nil
}
