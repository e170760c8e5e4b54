package edgeadmm

import (
	"fmt"
	"maps"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Pair is one method of an exact/linearized pair (dadmm and
// dadmm_linearized, radmm and radmm_linearized) as the registry sees it.
type Pair struct {
	// Name is the method's algorithm name, Linearized the name of the
	// pair's linearized method.
	Name, Linearized string
	// Method is MethodExact or MethodLinearized.
	Method string
}

// Reference is a matrix-form reference of a pair's method.
type Reference interface {
	Step(t int) error
	X(i int) []float64
}

// Methods describes an exact/linearized pair to the registry: the exact
// method Name and the linearized Name_linearized, whose configuration is
// a C (the package's Config), whose agents are A and whose reference R.
type Methods[C any, A consensus.Agent, R Reference] struct {
	Name string
	// Summaries are those of the exact and the linearized method.
	Summaries [2]string
	// NewParams returns the defaults of the block of pair (embedding the
	// Keys of pair, with its Tau).
	NewParams func(pair Pair) registry.Params
	// Config resolves a decoded block for the run of env.
	Config func(p registry.Params, env *registry.Env) C
	// Values lists the resolved values of a configuration before the
	// agents' steps tau_i.
	Values       func(C) []registry.Value
	Measures     []consensus.Measure
	NewAgent     func(C, int, *graph.Graph, graph.EdgeProcess, objective.Local, []float64) (A, error)
	NewReference func(C, *graph.Graph, graph.EdgeProcess, []objective.Local, [][]float64) (R, error)
	// Renamed are the old keys of the pair's blocks beyond the step's.
	Renamed map[string]string
}

// Exact is the registry entry of the exact method.
func (m Methods[C, A, R]) Exact() registry.Algorithm {
	return m.entry(Pair{Name: m.Name, Linearized: m.Name + "_linearized", Method: MethodExact}, m.Summaries[0])
}

// Linearized is the registry entry of the linearized method.
func (m Methods[C, A, R]) Linearized() registry.Algorithm {
	return m.entry(Pair{Name: m.Name + "_linearized", Linearized: m.Name + "_linearized", Method: MethodLinearized}, m.Summaries[1])
}

// entry is the registry entry of pair: it needs local objectives, and
// their exact prox for MethodExact; its old keys are those of the
// params: sub-block.
func (m Methods[C, A, R]) entry(pair Pair, summary string) registry.Algorithm {
	renamed := map[string]string{"params.tau": "step"}
	maps.Copy(renamed, m.Renamed)
	a := registry.Algorithm{
		Name:     pair.Name,
		Summary:  summary,
		New:      func() registry.Params { return m.NewParams(pair) },
		Needs:    []string{registry.CapLocals},
		NeedsDoc: "local objectives f_i",
		Renamed:  renamed,
		Build: func(p registry.Params, env *registry.Env) (registry.Run, error) {
			cfg := m.Config(p, env)
			tau := p.(interface{ Tau() float64 }).Tau()
			locals, err := pair.Locals(tau, env)
			if err != nil {
				return nil, err
			}
			return &run[C, A, R]{m: m, pair: pair, cfg: cfg, tau: tau, env: env, locals: locals}, nil
		},
	}
	if pair.Method == MethodExact {
		a.Needs = append(a.Needs, registry.CapProx)
		a.NeedsDoc = fmt.Sprintf("the exact prox of each f_i (%s needs gradients only)", pair.Linearized)
	}
	return a
}

var (
	_ registry.Referencer = (*run[struct{}, consensus.Agent, Reference])(nil)
	_ registry.Measurer   = (*run[struct{}, consensus.Agent, Reference])(nil)
)

// run is a pair's method resolved against one instance.
type run[C any, A consensus.Agent, R Reference] struct {
	m      Methods[C, A, R]
	pair   Pair
	cfg    C
	tau    float64
	env    *registry.Env
	locals []objective.Local
}

func (r *run[C, A, R]) Agent(i int) (consensus.Agent, error) {
	if err := r.env.CheckAgent(r.pair.Name, i); err != nil {
		return nil, err
	}
	return r.m.NewAgent(r.cfg, i, r.env.Graph, r.env.Process, r.locals[i], r.env.Init(i))
}

func (r *run[C, A, R]) Resolved() []registry.Value {
	return append(r.m.Values(r.cfg), r.pair.TauValues(r.tau, r.locals)...)
}

func (r *run[C, A, R]) Measures() []consensus.Measure { return r.m.Measures }

func (r *run[C, A, R]) Reference(rounds int) ([][]float64, error) {
	ref, err := r.m.NewReference(r.cfg, r.env.Graph, r.env.Process, r.locals, r.env.InitialPoints())
	if err != nil {
		return nil, err
	}
	return registry.StepReference(r.env.N, rounds, ref.Step, ref.X)
}

// Keys are the keys that the blocks of both methods of a pair have (a
// block embeds them inline): the penalty of the edge constraints and the
// linearized method's step.
type Keys struct {
	Penalty float64  `yaml:"penalty" doc:"penalty > 0 of the edge constraints: c of x_i = x_j (dadmm), rho of x_i = z_e (radmm)"`
	Step    *float64 `yaml:"step,omitempty" doc:"linearized methods only: step tau > 0" default:"N/L_i per agent"`
	pair    Pair
}

// Keys returns the keys of the method's block with the given default
// penalty.
func (p Pair) Keys(penalty float64) Keys { return Keys{Penalty: penalty, pair: p} }

// Pair is the method the keys belong to.
func (k *Keys) Pair() Pair { return k.pair }

// Tau is the step given, 0 (N/L_i per agent) when none is.
func (k *Keys) Tau() float64 {
	if k.Step == nil {
		return 0
	}
	return *k.Step
}

// Check adds the errors of the keys to errs: penalty > 0 and finite;
// step, given to the linearized method only, > 0 and finite.
func (k *Keys) Check(errs *registry.FieldErrors) {
	errs.Check("penalty", &k.Penalty, registry.Positive)
	switch {
	case k.Step == nil:
	case k.pair.Method != MethodLinearized:
		errs.Add("step", "only applies to %s", k.pair.Linearized)
	default:
		errs.Check("step", k.Step, registry.Positive)
	}
}

// Locals returns the problem's local objectives for a run of the method
// with step tau (0: N/L_i): the methods do not project, so X must be R^n;
// MethodExact needs the exact prox of each f_i, and MethodLinearized's
// default step a positive finite L_i (else an error at the key step).
func (p Pair) Locals(tau float64, env *registry.Env) ([]objective.Local, error) {
	inst, err := registry.As[registry.Locals](env)
	if err != nil {
		return nil, err
	}
	if err := registry.Unconstrained(p.Name, inst.Box()); err != nil {
		return nil, err
	}
	locals := registry.AllLocals(inst, env.N)
	for i, f := range locals {
		if p.Method == MethodExact {
			if _, err := objective.ProxOf(f); err != nil {
				return nil, &registry.ProblemMismatch{Needs: fmt.Sprintf("the exact prox of each f_i (%s needs gradients only)", p.Linearized)}
			}
		} else if _, err := TauFor(tau, f, env.N); err != nil {
			return nil, registry.FieldErrors{{Key: "step", Msg: fmt.Sprintf("agent %d: %v; give step", i, err)}}
		}
	}
	return locals, nil
}

// TauValues lists tau_i of every agent of a linearized run with step tau
// (0: N/L_i), none for MethodExact: what Resolved reports of the local
// steps.
func (p Pair) TauValues(tau float64, locals []objective.Local) []registry.Value {
	if p.Method != MethodLinearized {
		return nil
	}
	v := make([]registry.Value, len(locals))
	for i, f := range locals {
		t, err := TauFor(tau, f, len(locals))
		if err != nil {
			t = math.NaN()
		}
		note := "given"
		if tau == 0 {
			note = "N/L_i"
		}
		v[i] = registry.Value{Name: fmt.Sprintf("tau_%d", i), Value: t, Note: note}
	}
	return v
}
