package tsp

import (
	"fmt"
	"math"
	"strings"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/problems/bilevel"
)

// Settings is the algorithm block of tsp: the constants of Algorithm 1 in
// the units the scenario chooses.
type Settings struct {
	Units string `yaml:"units" doc:"units of the steps: mean (for the lower level as a mean over its m terms, converted to the sum as Experiment.Convert does: eta/m, tau/m^2, gamma/m, delta m) or sum (as given)"`
	// The constants of Params, in Units.
	Alpha   float64 `yaml:"alpha" doc:"x step alpha > 0"`
	Beta    float64 `yaml:"beta" doc:"y step beta > 0"`
	Eta     float64 `yaml:"eta" doc:"z step eta > 0"`
	Tau     float64 `yaml:"tau" doc:"dual step tau > 0"`
	Mu      float64 `yaml:"mu" doc:"dual damping mu in (0, 1]"`
	Theta   float64 `yaml:"theta" doc:"constraint averaging theta in (0, 1]"`
	Omega   float64 `yaml:"omega" doc:"anchor smoothing omega in (0, 1)"`
	P       float64 `yaml:"p" doc:"proximal weight p >= 0"`
	Gamma   float64 `yaml:"gamma" doc:"Moreau parameter gamma > 0"`
	Delta   float64 `yaml:"delta" doc:"constraint slack delta >= 0"`
	Lambda0 float64 `yaml:"lambda0" doc:"initial dual lambda >= 0"`
	ZNew    bool    `yaml:"z_new" doc:"the appendix's updates with z^{r+1} instead of the main text's z^r"`
}

// DefaultSettings are DefaultMeanUnits' TSP constants in mean units.
func DefaultSettings() Settings {
	u := DefaultMeanUnits()
	return Settings{Units: "mean", Alpha: u.Alpha, Beta: u.Beta, Eta: u.Eta, Tau: u.Tau, Mu: u.Mu, Theta: u.Theta,
		Omega: u.Omega, P: u.P, Gamma: u.Gamma, Delta: u.Delta}
}

// Validate checks the ranges.
func (s *Settings) Validate() error {
	var errs registry.FieldErrors
	errs.OneOf("units", s.Units, "mean", "sum")
	if err := s.params(1).Validate(); err != nil {
		// Params.Validate names the constant first: "tsp: alpha = ...".
		key, _, _ := strings.Cut(strings.TrimPrefix(err.Error(), "tsp: "), " ")
		errs.Add(key, "%v", err)
	}
	return errs.Err()
}

// params converts s for a lower level of m terms.
func (s *Settings) params(m int) Params {
	p := Params{Alpha: s.Alpha, Beta: s.Beta, Eta: s.Eta, Tau: s.Tau, Mu: s.Mu, Theta: s.Theta, Omega: s.Omega,
		P: s.P, Gamma: s.Gamma, Delta: s.Delta, Lambda0: s.Lambda0, ZNew: s.ZNew}
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
		New:     func() registry.Params { s := DefaultSettings(); return &s },
		Build: func(p registry.Params, env *registry.Env) (registry.Run, error) {
			inst, ok := env.Problem.(bilevel.Provider)
			if !ok {
				return nil, &registry.ProblemMismatch{Algorithm: "tsp", Needs: "a bilevel problem whose lower level is a sum over task blocks", Capability: bilevel.Cap}
			}
			if env.N < 2 {
				return nil, fmt.Errorf("tsp runs an upper-level agent and at least one task agent: set agents >= 2, got %d", env.N)
			}
			prm := p.(*Settings).params(inst.LowerTerms())
			if err := prm.Validate(); err != nil {
				return nil, registry.FieldErrors{{Key: "units", Msg: fmt.Sprintf("after conversion: %v", err)}}
			}
			meas, err := inst.Split(1)
			if err != nil {
				return nil, err
			}
			return &StarRun{inst: inst, prm: prm, n: env.N, meas: meas, given: make([]bool, env.N)}, nil
		},
	}
}

// StarRun is tsp resolved against one problem.
type StarRun struct {
	inst  bilevel.Provider
	prm   Params
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
// holds (the task agents report 0).
func (r *StarRun) Measures() []consensus.Measure {
	return []consensus.Measure{
		{Name: "h_est", Reduce: consensus.ReduceSum, Doc: "h^r, the averaged estimate of g(x, y) - g*_gamma(x, y) - delta (7a)"},
		{Name: "lambda", Reduce: consensus.ReduceSum, Doc: "lambda^r, the multiplier of the lower-level constraint"},
	}
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

// Columns are the problem's own measures.
func (r *StarRun) Columns() []consensus.Measure { return r.inst.Columns() }

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
