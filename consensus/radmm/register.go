package radmm

import (
	"github.com/consim/consim/consensus/edgeadmm"
	"github.com/consim/consim/consensus/registry"
)

// Params is the algorithm block of radmm and radmm_linearized: the
// penalty rho of x_i = z_e and the linearized method's step tau.
type Params struct {
	edgeadmm.Keys `yaml:",inline"`
}

// Validate checks penalty and step and that step is given only to the
// method that reads it.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	p.Check(&errs)
	return errs.Err()
}

// methods describes radmm and radmm_linearized to the registry.
var methods = edgeadmm.Methods[Config, *Agent, *Reference]{
	Name: "radmm",
	Summaries: [2]string{"ADMM under random edge activation, per-edge duals (Iutzeler et al., Wei-Ozdaglar), exact prox of f_i",
		"ADMM under random edge activation, per-edge duals, linearized: one stochastic gradient step per active round"},
	NewParams: func(pair edgeadmm.Pair) registry.Params { return &Params{Keys: pair.Keys(DefaultRho)} },
	Config: func(p registry.Params, env *registry.Env) Config {
		q := p.(*Params)
		return Config{Method: q.Pair().Method, Rho: q.Penalty, Tau: q.Tau(), Seed: env.Seed, ReportDuals: env.Faulty}
	},
	Values: func(cfg Config) []registry.Value {
		return []registry.Value{{Name: "rho", Value: cfg.Rho, Note: "penalty of x_i = z_e"}}
	},
	Measures:     Measures(),
	NewAgent:     NewAgent,
	NewReference: NewReference,
	Renamed:      map[string]string{"params.rho": "penalty"},
}

// Exact describes radmm, ADMM under random edge activation with per-edge
// duals and the exact prox of f_i, to the registry.
func Exact() registry.Algorithm { return methods.Exact() }

// Linearized describes radmm_linearized, the same method with one
// stochastic gradient step on the linearized subproblem, to the registry.
func Linearized() registry.Algorithm { return methods.Linearized() }
