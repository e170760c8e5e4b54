package tsp

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/problems/bilevel"
)

// Params is the algorithm block of tsp: the constants of Algorithm 1 in
// the units the scenario chooses.
type Params struct {
	Units string `yaml:"units" doc:"units of the steps: mean (for the lower level as a mean over its m terms, converted to the sum as Experiment.Convert does: step_z/m, dual_step/m^2, gamma/m, delta m) or sum (as given)"`
	// The constants of Constants, in Units.
	StepX       float64 `yaml:"step_x" doc:"x step alpha > 0"`
	StepY       float64 `yaml:"step_y" doc:"y step beta > 0"`
	StepZ       float64 `yaml:"step_z" doc:"z step eta > 0"`
	DualStep    float64 `yaml:"dual_step" doc:"dual step tau > 0"`
	Mu          float64 `yaml:"mu" doc:"dual damping mu in (0, 1]"`
	Theta       float64 `yaml:"theta" doc:"constraint averaging theta in (0, 1]"`
	Smoothing   float64 `yaml:"smoothing" doc:"anchor smoothing omega in (0, 1) of x_hat <- x_hat + omega (x - x_hat)"`
	ProxWeight  float64 `yaml:"prox_weight" doc:"proximal weight p >= 0 of (p/2)||x - x_hat||^2"`
	Gamma       float64 `yaml:"gamma" doc:"Moreau parameter gamma > 0"`
	Delta       float64 `yaml:"delta" doc:"constraint slack delta >= 0"`
	InitialDual float64 `yaml:"initial_dual" doc:"initial dual lambda >= 0"`
	ZNew        bool    `yaml:"z_new" doc:"the appendix's updates with z^{r+1} instead of the main text's z^r"`
}

// DefaultParams are DefaultMeanUnits' TSP constants in mean units.
func DefaultParams() Params {
	u := DefaultMeanUnits()
	return Params{Units: "mean", StepX: u.Alpha, StepY: u.Beta, StepZ: u.Eta, DualStep: u.Tau, Mu: u.Mu, Theta: u.Theta,
		Smoothing: u.Omega, ProxWeight: u.P, Gamma: u.Gamma, Delta: u.Delta}
}

// Validate checks the ranges.
func (s *Params) Validate() error {
	var errs registry.FieldErrors
	errs.OneOf("units", s.Units, "mean", "sum")
	if err := s.constants(1).Validate(); err != nil {
		errs = append(errs, err.(registry.FieldErrors)...)
	}
	return errs.Err()
}

// constants converts s for a lower level of m terms.
func (s *Params) constants(m int) Constants {
	p := Constants{Alpha: s.StepX, Beta: s.StepY, Eta: s.StepZ, Tau: s.DualStep, Mu: s.Mu, Theta: s.Theta, Omega: s.Smoothing,
		P: s.ProxWeight, Gamma: s.Gamma, Delta: s.Delta, Lambda0: s.InitialDual, ZNew: s.ZNew}
	if s.Units == "mean" {
		fm := float64(m)
		p.Eta, p.Tau, p.Gamma, p.Delta = p.Eta/fm, p.Tau/(fm*fm), p.Gamma/fm, p.Delta*fm
	}
	return p
}

// Algorithm describes tsp to the registry: the star of Algorithm 1's
// distributed form, agent 0 the upper-level agent (y, z, lambda) and
// agents 1..N-1 task agents, each holding a block of x and its share of
// the lower level (Star).
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:    "tsp",
		Summary: "TSP (Lu, ICML 2025): two-sided smoothed primal-dual bilevel method, an upper-level agent (agent 0) and N-1 task agents in a star",
		New:     func() registry.Params { s := DefaultParams(); return &s },
		Build: registry.BuildWith(func(p registry.Params, env *registry.Env, inst bilevel.Provider) (registry.Run, error) {
			prm := p.(*Params).constants(inst.LowerTerms())
			if err := prm.Validate(); err != nil {
				return nil, registry.FieldErrors{{Key: "units", Msg: fmt.Sprintf("after conversion: %v", err)}}
			}
			meas, err := inst.Split(1)
			if err != nil {
				return nil, err
			}
			return &StarRun{inst: inst, prm: prm, n: env.N, meas: meas, given: make([]bool, env.N)}, nil
		}),
		Needs:    []string{bilevel.Cap},
		NeedsDoc: "a bilevel problem whose lower level is a sum over task blocks",
		Roles:    registry.Star,
		Renamed: map[string]string{"alpha": "step_x", "beta": "step_y", "eta": "step_z", "tau": "dual_step",
			"omega": "smoothing", "p": "prox_weight", "lambda0": "initial_dual"},
	}
}

var (
	_ registry.Referencer = (*StarRun)(nil)
	_ registry.Measurer   = (*StarRun)(nil)
	_ registry.Evaluator  = (*StarRun)(nil)
)

// StarRun is tsp resolved against one problem.
type StarRun struct {
	inst  bilevel.Provider
	prm   Constants
	n     int
	meas  *bilevel.Split // oracles of the measurement
	star  *Star
	given []bool // agents of star handed out
}

// newStar builds the agents of a fresh star from x = 0, y = 0.
func (r *StarRun) newStar() (*Star, error) {
	s, err := r.inst.Split(r.n - 1)
	if err != nil {
		return nil, err
	}
	if len(s.Tasks) != r.n-1 {
		return nil, fmt.Errorf("tsp: the problem splits into %d task blocks, the run has %d task agents", len(s.Tasks), r.n-1)
	}
	_, nx := s.Offsets()
	return NewStar(s, make([]float64, nx), make([]float64, s.NY), r.prm)
}

// Agent returns agent i of the star: each agent of one star is handed out
// once; asking again for an agent (a rebuild) takes it from a new star.
func (r *StarRun) Agent(i int) (consensus.Agent, error) {
	if i < 0 || i >= r.n {
		return nil, fmt.Errorf("tsp: agent id %d is outside [0, %d)", i, r.n)
	}
	if r.star == nil || r.given[i] {
		st, err := r.newStar()
		if err != nil {
			return nil, err
		}
		r.star = st
		clear(r.given)
	}
	r.given[i] = true
	if i == 0 {
		return upperReporter{r.star.Upper}, nil
	}
	return taskReporter{r.star.Tasks[i-1]}, nil
}

// upperReporter is the upper-level agent with its measures h^r and
// lambda^r in the report.
type upperReporter struct{ *UpperAgent }

func (u upperReporter) Report() consensus.Report {
	rep := u.UpperAgent.Report()
	rep.Measures = []float64{u.H, u.Lambda}
	return rep
}

// taskReporter is a task agent; it reports 0 for the upper agent's
// measures.
type taskReporter struct{ *TaskAgent }

func (a taskReporter) Report() consensus.Report {
	rep := a.TaskAgent.Report()
	rep.Measures = []float64{0, 0}
	return rep
}

// Measures declares h_est and lambda, which only the upper-level agent
// holds (the task agents report 0), and the problem's own measures,
// which Evaluate computes.
func (r *StarRun) Measures() []consensus.Measure {
	ms := []consensus.Measure{
		{Name: "h_est", Reduce: consensus.ReduceSum, Doc: "h^r, the averaged estimate of g(x, y) - g*_gamma(x, y) - delta (7a)"},
		{Name: "lambda", Reduce: consensus.ReduceSum, Doc: "lambda^r, the multiplier of the lower-level constraint"},
	}
	for _, c := range r.inst.Columns() {
		c.Evaluated = true
		ms = append(ms, c)
	}
	return ms
}

// Resolved lists the constants after the unit conversion.
func (r *StarRun) Resolved() []registry.Value {
	p := r.prm
	return []registry.Value{
		{Name: "m", Value: float64(r.inst.LowerTerms()), Note: "terms of the lower-level sum"},
		{Name: "alpha", Value: p.Alpha}, {Name: "beta", Value: p.Beta}, {Name: "eta", Value: p.Eta},
		{Name: "tau", Value: p.Tau}, {Name: "mu", Value: p.Mu}, {Name: "theta", Value: p.Theta},
		{Name: "omega", Value: p.Omega}, {Name: "p", Value: p.P}, {Name: "gamma", Value: p.Gamma},
		{Name: "delta", Value: p.Delta}, {Name: "lambda0", Value: p.Lambda0},
	}
}

// Reference runs the centralized TSP on the joined problem (Split.Join
// sums the lower level in the agents' order) and returns y for agent 0
// and block x_k for task agent k.
func (r *StarRun) Reference(rounds int) ([][]float64, error) {
	s, err := r.inst.Split(r.n - 1)
	if err != nil {
		return nil, err
	}
	pb, err := s.Join()
	if err != nil {
		return nil, err
	}
	m, err := NewTSP(pb, make([]float64, pb.NX), make([]float64, pb.NY), r.prm)
	if err != nil {
		return nil, err
	}
	off, _ := s.Offsets()
	block := func(i int) []float64 {
		if i == 0 {
			return clone(m.Y)
		}
		return clone(m.X[off[i-1] : off[i-1]+s.NX[i-1]])
	}
	return registry.StepReference(r.n, rounds, func(int) error { m.Step(); return nil }, block)
}

// Optimum is the problem's.
func (r *StarRun) Optimum() (float64, bool, error) {
	f, convex := r.inst.Optimum()
	return f, convex, nil
}

// Evaluate assembles (x, y) from the reports (PointFromReports) and
// measures it: ObjValue is the upper objective f(x, y) = F0(y), OptGap
// f - f*, Feasibility max(0, h^r) (the upper agent's estimate of the
// lower-level constraint's violation), and the problem's columns.
// ConsensusErr is 0: no two agents hold copies of the same variable.
func (r *StarRun) Evaluate(reps []consensus.Report) (registry.Evaluation, error) {
	for i, rep := range reps {
		if rep.X == nil {
			return registry.Evaluation{}, fmt.Errorf("tsp: agent %d has no report: the star cannot be measured without it", i)
		}
	}
	x, y, err := PointFromReports(reps)
	if err != nil {
		return registry.Evaluation{}, err
	}
	vals, dist, err := r.inst.Measure(x, y)
	if err != nil {
		return registry.Evaluation{}, err
	}
	f := r.meas.F0.Value(nil, y)
	fstar, _ := r.inst.Optimum()
	h := 0.0
	if len(reps[0].Measures) > 0 {
		h = math.Max(0, reps[0].Measures[0])
	}
	return registry.Evaluation{ObjValue: f, OptGap: f - fstar, DistToOpt: dist, Feasibility: h, Values: vals}, nil
}
