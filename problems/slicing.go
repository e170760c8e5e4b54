package problems

import (
	"fmt"
	"os"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/consensus/slicing"
	"github.com/consim/consim/objective"
)

// SlicingParams is the problem block of kind slicing: a network-slicing
// instance (package slicing) read from a file, or generated from the run
// seed with one network node per agent.
type SlicingParams struct {
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

// Validate checks the values that need no file.
func (p *SlicingParams) Validate() error {
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
// slicing.Generate(opts, s), so a scenario with seed s reruns instance s of
// `consim reproduce slicing`.
func Slicing() registry.Problem {
	return registry.Problem{
		Kind:    "slicing",
		Summary: "network slicing: service function chains placed and routed under link and node capacities, one agent per network node",
		New: func() registry.Params {
			m := slicing.Medium
			return &SlicingParams{Flows: m.Flows, MinChain: m.MinChain, MaxChain: m.MaxChain}
		},
		Build: func(p registry.Params, env registry.ProblemEnv) (registry.Instance, error) {
			sp := p.(*SlicingParams)
			var in *slicing.Instance
			var err error
			switch {
			case sp.Example:
				if in, err = slicing.DecodeInstance([]byte(slicing.ExampleJSON)); err != nil {
					return nil, err
				}
			case sp.File != "":
				data, rerr := os.ReadFile(string(sp.File))
				if rerr != nil {
					return nil, registry.FieldErrors{{Key: "file", Msg: rerr.Error()}}
				}
				if in, err = slicing.DecodeInstance(data); err != nil {
					return nil, registry.FieldErrors{{Key: "file", Msg: fmt.Sprintf("%s: %v", sp.File, err)}}
				}
			default:
				opt := slicing.GenOptions{Nodes: env.N, Flows: sp.Flows, MinChain: sp.MinChain, MaxChain: sp.MaxChain,
					Functions: sp.Functions, HostFrac: sp.HostFrac, Degree: sp.Degree, Cut: sp.Cut}
				if in, err = slicing.Generate(opt, env.Seed); err != nil {
					return nil, fmt.Errorf("generate a slicing instance of %d nodes from seed %d: %w", env.N, env.Seed, err)
				}
			}
			if in.Nodes != env.N {
				return nil, fmt.Errorf("the instance has %d nodes, one agent each: set agents: %d (got %d)", in.Nodes, in.Nodes, env.N)
			}
			md, err := slicing.NewModel(in)
			if err != nil {
				return nil, err
			}
			return slicingInstance{md}, nil
		},
		Offers: []string{slicing.CapSlicing},
	}
}

// slicingInstance is a network-slicing instance: slicing.Provider.
type slicingInstance struct{ md *slicing.Model }

// Dim is 0: the nodes hold blocks of different lengths.
func (s slicingInstance) Dim() int { return 0 }

// Central fails with registry.ErrNoCentral: slicing_alm measures itself.
func (s slicingInstance) Central() (*objective.Problem, error) {
	return nil, fmt.Errorf("slicing: %w", registry.ErrNoCentral)
}

// Slicing returns the model.
func (s slicingInstance) Slicing() *slicing.Model { return s.md }
