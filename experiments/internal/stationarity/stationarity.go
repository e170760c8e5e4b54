// Package stationarity runs a scenario in lockstep and measures the
// Moreau-envelope stationarity of its consensus problem between rounds:
// what experiments/storm and experiments/compare share.
//
// stationarity imports scenarios, consensus, consensus/lockstep,
// consensus/registry and consensus/almstorm (the stationarity evaluator);
// it must not import node, coordinator, sim or cmd.
package stationarity

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/almstorm"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/scenarios"
)

// Build parses the scenario src (named name.yaml in errors), builds it
// and its agents, and returns them with a lockstep driver over the agents.
func Build(src, name string) (*scenarios.Setup, []consensus.Agent, *lockstep.Driver, error) {
	s, err := scenarios.Parse([]byte(src), name+".yaml")
	if err != nil {
		return nil, nil, nil, err
	}
	st, err := s.Build()
	if err != nil {
		return nil, nil, nil, err
	}
	agents, err := st.Agents()
	if err != nil {
		return nil, nil, nil, err
	}
	d, err := lockstep.New(agents)
	if err != nil {
		return nil, nil, nil, err
	}
	return st, agents, d, nil
}

// ZAgent is an agent whose proximal center z_i can be read (the ALM's).
type ZAgent interface{ Z() []float64 }

// Observer evaluates the stationarity of a run's agents.
type Observer struct {
	atX, atZ *almstorm.Stationarity
}

// NewObserver builds the Moreau stationarity evaluators (mu = 2 L_f with
// L_f = max_i L_i / N) of a built scenario.
func NewObserver(st *scenarios.Setup) (*Observer, error) {
	inst, ok := st.Env.Problem.(registry.Locals)
	if !ok {
		return nil, fmt.Errorf("problem %s has no local objectives", st.Scenario.Problem.Kind)
	}
	locals := registry.AllLocals(inst, st.Env.N)
	var lmax float64
	for _, f := range locals {
		lmax = math.Max(lmax, f.Smoothness())
	}
	mu := 2 * lmax / float64(st.Env.N)
	ox, err := almstorm.NewStationarity(locals, inst.Box(), mu)
	if err != nil {
		return nil, err
	}
	oz, err := almstorm.NewStationarity(locals, inst.Box(), mu)
	if err != nil {
		return nil, err
	}
	return &Observer{atX: ox, atZ: oz}, nil
}

// Measure returns ||grad Psi|| at the agents' x and, for agents with a
// proximal center (ZAgent), at z (NaN otherwise), and the samples drawn so
// far.
func (o *Observer) Measure(agents []consensus.Agent) (sx, sz float64, samples int64, err error) {
	xs, zs := make([][]float64, len(agents)), make([][]float64, len(agents))
	hasZ := true
	for i, a := range agents {
		r := a.Report()
		xs[i], samples = r.X, samples+r.GradEvals
		if za, ok := a.(ZAgent); ok {
			zs[i] = za.Z()
		} else {
			hasZ = false
		}
	}
	if sx, err = o.atX.At(xs); err != nil {
		return 0, 0, 0, err
	}
	sz = math.NaN()
	if hasZ {
		if sz, err = o.atZ.At(zs); err != nil {
			return 0, 0, 0, err
		}
	}
	return sx, sz, samples, nil
}
