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
	RegWeight float64 `yaml:"reg_weight" doc:"sigma >= 0, weight of the l_p regularizer P_eps in units of g (0: the LP relaxation)"`
	P         float64 `yaml:"p" doc:"exponent p in (0, 1) of P_eps"`
	Eps       float64 `yaml:"eps" doc:"offset eps > 0 of P_eps"`
	Params    struct {
		Rho   *float64 `yaml:"rho,omitempty" doc:"penalty rho >= 0" default:"1"`
		Mu    *float64 `yaml:"mu,omitempty" doc:"proximal weight mu >= 0" default:"max{2, 4 L_f}"`
		Tau   *float64 `yaml:"tau,omitempty" doc:"primal step tau > 0" default:"1/(2 L_K)"`
		Eta   *float64 `yaml:"eta,omitempty" doc:"dual step eta >= 0" default:"rho"`
		Beta  *float64 `yaml:"beta,omitempty" doc:"smoothing step beta in [0, 1]" default:"tau mu"`
		Scale *float64 `yaml:"scale,omitempty" doc:"objective scale > 0" default:"1/max_k lambda(k)"`
	} `yaml:"params"`
}

// DefaultParams are the table's regularizer: sigma = 2, p = 0.5,
// eps = 0.1, with Practical's parameters.
func DefaultParams() Params { return Params{RegWeight: 2, P: 0.5, Eps: 0.1} }

// Validate checks the values that need no instance.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	if !(p.RegWeight >= 0) || math.IsInf(p.RegWeight, 0) {
		errs.Add("reg_weight", "must be a finite number >= 0, got %s", registry.Num(p.RegWeight))
	}
	if !(p.P > 0 && p.P < 1) {
		errs.Add("p", "must be in (0, 1), got %s", registry.Num(p.P))
	}
	if !(p.Eps > 0) || math.IsInf(p.Eps, 0) {
		errs.Add("eps", "must be a finite number > 0, got %s", registry.Num(p.Eps))
	}
	o := p.Params
	for _, c := range []struct {
		key string
		v   *float64
		ok  func(float64) bool
		msg string
	}{
		{"params.rho", o.Rho, func(v float64) bool { return v >= 0 }, ">= 0"},
		{"params.mu", o.Mu, func(v float64) bool { return v >= 0 }, ">= 0"},
		{"params.tau", o.Tau, func(v float64) bool { return v > 0 }, "> 0"},
		{"params.eta", o.Eta, func(v float64) bool { return v >= 0 }, ">= 0"},
		{"params.beta", o.Beta, func(v float64) bool { return v >= 0 && v <= 1 }, "in [0, 1]"},
		{"params.scale", o.Scale, func(v float64) bool { return v > 0 }, "> 0"},
	} {
		if c.v != nil && (!c.ok(*c.v) || math.IsInf(*c.v, 0)) {
			errs.Add(c.key, "must be finite and %s, got %s", c.msg, registry.Num(*c.v))
		}
	}
	return errs.Err()
}

// Algorithm describes slicing_alm to the registry: the per-node agents of
// Algorithm 1 on the regularized slicing problem (6.5) of a problem.Provider
// instance, one agent per network node.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:    "slicing_alm",
		Summary: "network slicing by the smoothed linearized ALM (Algorithm 1) on the l_p-regularized relaxation, one agent per network node",
		New:     func() registry.Params { p := DefaultParams(); return &p },
		Build: func(p registry.Params, env *registry.Env) (registry.Run, error) {
			inst, ok := env.Problem.(problem.Provider)
			if !ok {
				return nil, &registry.ProblemMismatch{Algorithm: "slicing_alm", Needs: "a network-slicing instance (one agent per network node)", Capability: problem.Cap}
			}
			md := inst.Slicing()
			if md.Inst.Nodes != env.N {
				return nil, fmt.Errorf("the slicing instance has %d nodes, one agent each: set agents: %d (got %d)", md.Inst.Nodes, md.Inst.Nodes, env.N)
			}
			prm := *p.(*Params)
			return NewRun(md, prm.Config(md, env.Rounds))
		},
		CanRejoin: true,
	}
}

// Config resolves p on md: Practical's parameters for the regularizer,
// with the overrides given, and horizon T = rounds.
func (p Params) Config(md *problem.Model, rounds int) Config {
	c := Practical(md, p.RegWeight, p.P, p.Eps, rounds)
	o := p.Params
	for _, f := range []struct {
		dst *float64
		v   *float64
	}{{&c.Rho, o.Rho}, {&c.Mu, o.Mu}, {&c.Tau, o.Tau}, {&c.Eta, o.Eta}, {&c.Beta, o.Beta}, {&c.Scale, o.Scale}} {
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

// NewRun returns the run of cfg on md.
func NewRun(md *problem.Model, cfg Config) (*RunOn, error) {
	if err := cfg.Validate(); err != nil {
		return nil, registry.FieldErrors{{Key: "params", Msg: err.Error()}}
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

// Measures declares the agents' own measures (AgentMeasures).
func (r *RunOn) Measures() []consensus.Measure { return AgentMeasures() }

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

// Columns declares the run's own columns: binary_frac and lp_gap_rel.
func (r *RunOn) Columns() []consensus.Measure {
	return []consensus.Measure{
		{Name: "binary_frac", Reduce: consensus.ReduceMean, Doc: "fraction of the placement variables x_i(k,m) within 1e-3 of 0 or 1"},
		{Name: "lp_gap_rel", Reduce: consensus.ReduceSum, Doc: "(g(u) - LP) / LP, the relative gap of the routing cost to the LP bound"},
	}
}

// Evaluate measures the slice the nodes hold: ObjValue is the routing
// cost g(u), OptGap g(u) - LP, Feasibility the largest violation of the
// constraints of (6.4) relaxed to [0,1] (Measures.Violation: conservation
// and assignment residuals, relative capacity excess), and the columns
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
