package slicing

import (
	"fmt"
	"os"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/problems/datafile"
)

// Cap is the capability of the problems that are network-slicing
// instances (they implement Provider).
const Cap = "slicing"

// Provider is the capability Cap: a network-slicing instance whose nodes
// are the agents of the run (agent i is node i). Dim is 0 (the nodes hold
// blocks of different lengths) and Central fails with
// registry.ErrNoCentral: the runs on it measure themselves
// (registry.Evaluator).
type Provider interface {
	registry.Instance
	// Slicing returns the model of the instance.
	Slicing() *Model
}

// Params is the problem block of kind slicing: a network-slicing instance
// read from a file, or generated from the run seed with one network node
// per agent.
type Params struct {
	Example   bool          `yaml:"example,omitempty" doc:"use the documented 6-node example (slicing.ExampleJSON; its binary optimum is known by enumeration) instead of file or generation"`
	File      registry.Path `yaml:"file,omitempty" doc:"instance file in the JSON form of slicing.ExampleJSON (relative to the scenario); empty: generate from the seed"`
	Flows     int           `yaml:"flows" doc:"generated: number of flows K >= 1"`
	MinChain  int           `yaml:"min_chain" doc:"generated: shortest service function chain, >= 1"`
	MaxChain  int           `yaml:"max_chain" doc:"generated: longest service function chain, >= min_chain"`
	Functions int           `yaml:"functions" doc:"generated: function types (0: max(4, max_chain))"`
	HostFrac  float64       `yaml:"host_frac" doc:"generated: fraction of the nodes that host each function, in (0, 1] (0: 1/3)"`
	Degree    float64       `yaml:"degree" doc:"generated: mean undirected degree of the network (0: 3)"`
	Cut       float64       `yaml:"cut" doc:"generated: share of the uncapacitated load the capacities keep, in (0, 1] (0: 0.8)"`
}

// DefaultParams returns a generated instance of the medium size (Medium:
// 10 flows, chains of 2..4).
func DefaultParams() *Params {
	return &Params{Flows: Medium.Flows, MinChain: Medium.MinChain, MaxChain: Medium.MaxChain}
}

// Validate checks the values that need no file.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	if p.Example && p.File != "" {
		errs.Add("file", "give either file or example: true, not both")
	}
	if p.Example || p.File != "" {
		return errs.Err()
	}
	if p.Flows < 1 {
		errs.Add("flows", "must be >= 1, got %d", p.Flows)
	}
	if p.MinChain < 1 || p.MaxChain < p.MinChain {
		key := "min_chain"
		if p.MinChain >= 1 {
			key = "max_chain"
		}
		errs.Add(key, "need 1 <= min_chain <= max_chain, got %d and %d", p.MinChain, p.MaxChain)
	}
	if p.Functions != 0 && p.Functions < p.MaxChain {
		errs.Add("functions", "must be 0 or >= max_chain = %d (chains have distinct functions), got %d", p.MaxChain, p.Functions)
	}
	if !(p.HostFrac >= 0 && p.HostFrac <= 1) {
		errs.Add("host_frac", "must be in (0, 1] or 0 for the default, got %s", registry.Num(p.HostFrac))
	}
	if !(p.Degree >= 0) {
		errs.Add("degree", "must be > 0 or 0 for the default, got %s", registry.Num(p.Degree))
	}
	if !(p.Cut >= 0 && p.Cut <= 1) {
		errs.Add("cut", "must be in (0, 1] or 0 for the default, got %s", registry.Num(p.Cut))
	}
	return errs.Err()
}

// Slicing describes the problem kind slicing: place and route service
// function chains on a network (Huang, Zhang and Alacaoglu §6.2), one
// agent per network node. A generated instance has the medium size of
// the table by default (10 flows, chains of 2..4) and as many
// nodes as agents; the run seed s generates the same instance as
// Generate(opts, s), so a scenario with seed s reruns instance s of
// `consim reproduce slicing`.
func Problem() registry.Problem {
	return registry.Problem{
		Kind:    "slicing",
		Summary: "network slicing: service function chains placed and routed under link and node capacities, one agent per network node",
		New:     func() registry.Params { return DefaultParams() },
		Build: func(p registry.Params, env registry.ProblemEnv) (registry.Instance, error) {
			sp := p.(*Params)
			var in *Instance
			var err error
			switch {
			case sp.Example:
				if in, err = DecodeInstance([]byte(ExampleJSON)); err != nil {
					return nil, err
				}
			case sp.File != "":
				data, rerr := os.ReadFile(string(sp.File))
				if rerr != nil {
					return nil, registry.FieldErrors{{Key: "file", Msg: rerr.Error()}}
				}
				if in, err = DecodeInstance(data); err != nil {
					return nil, registry.FieldErrors{{Key: "file", Msg: fmt.Sprintf("%s: %v", sp.File, err)}}
				}
			default:
				opt := GenOptions{Nodes: env.N, Flows: sp.Flows, MinChain: sp.MinChain, MaxChain: sp.MaxChain,
					Functions: sp.Functions, HostFrac: sp.HostFrac, Degree: sp.Degree, Cut: sp.Cut}
				if in, err = Generate(opt, env.Seed); err != nil {
					return nil, fmt.Errorf("generate a slicing instance of %d nodes from seed %d: %w", env.N, env.Seed, err)
				}
			}
			if in.Nodes != env.N {
				return nil, fmt.Errorf("the instance has %d nodes, one agent each: set agents: %d (got %d)", in.Nodes, in.Nodes, env.N)
			}
			md, err := NewModel(in)
			if err != nil {
				return nil, err
			}
			return instance{md}, nil
		},
		Offers: []string{Cap},
	}
}

// instance is a network-slicing instance: Provider.
type instance struct{ md *Model }

// Dim is 0: the nodes hold blocks of different lengths.
func (s instance) Dim() int { return 0 }

// Central fails with registry.ErrNoCentral: slicing_alm measures itself.
func (s instance) Central() (*objective.Problem, error) {
	return nil, fmt.Errorf("slicing: %w", registry.ErrNoCentral)
}

// Slicing returns the model.
func (s instance) Slicing() *Model { return s.md }

// MarshalYAML writes the block without the generator's keys (at their
// defaults) when the instance is the example or a file.
func (p Params) MarshalYAML() (any, error) {
	type plain Params
	var omit []string
	if p.Example || p.File != "" {
		def := DefaultParams()
		for _, k := range []struct {
			key    string
			unused bool
		}{
			{"flows", p.Flows == def.Flows},
			{"min_chain", p.MinChain == def.MinChain},
			{"max_chain", p.MaxChain == def.MaxChain},
			{"functions", p.Functions == def.Functions},
			{"host_frac", p.HostFrac == def.HostFrac},
			{"degree", p.Degree == def.Degree},
			{"cut", p.Cut == def.Cut},
		} {
			if k.unused {
				omit = append(omit, k.key)
			}
		}
	}
	return datafile.Without(plain(p), omit...)
}
