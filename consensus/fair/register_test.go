package fair

import (
	"errors"
	"math"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/problems/fairness"
)

// TestParamsValidate: every bad key of the block is named.
func TestParamsValidate(t *testing.T) {
	if err := DefaultParams().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		edit func(*Params)
		key  string
	}{
		{func(p *Params) { p.Penalty = -1 }, "penalty"},
		{func(p *Params) { p.Step = math.Inf(1) }, "step"},
		{func(p *Params) { p.DualStep = math.NaN() }, "dual_step"},
		{func(p *Params) { p.Smoothing = 1.5 }, "smoothing"},
		{func(p *Params) { p.ProxWeight = -2 }, "prox_weight"},
		{func(p *Params) { p.Batch = 0 }, "batch"},
	} {
		p := DefaultParams()
		tc.edit(p)
		var fe registry.FieldErrors
		if err := p.Validate(); !errors.As(err, &fe) || fe[0].Key != tc.key {
			t.Errorf("%+v: error %v, want one at key %s", p, err, tc.key)
		}
	}
}

// TestBuild: fair_alm needs a fairness problem, a batch within the rows
// and a row per agent; its agents start at (theta, s) = 0, which Evaluate
// measures against the instance's optimum.
func TestBuild(t *testing.T) {
	pp := fairness.DefaultParams()
	pp.PerClass = 40
	inst, err := fairness.Problem().Build(pp, registry.ProblemEnv{N: 4, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	env := &registry.Env{N: 4, Seed: 2, Rounds: 10, Problem: inst}
	a := Algorithm()
	p := a.New().(*Params)
	p.Batch = 81
	var fe registry.FieldErrors
	if _, err := a.Build(p, env); !errors.As(err, &fe) || fe[0].Key != "batch" {
		t.Errorf("batch 81 of 80 rows: %v", err)
	}
	if len(a.Needs) != 1 || a.Needs[0] != fairness.Cap || a.Roles != registry.Shards {
		t.Errorf("fair_alm needs %v with roles %q, want [%s] and shards", a.Needs, a.Roles, fairness.Cap)
	}
	if _, err := a.Build(a.New(), &registry.Env{N: 1, Problem: otherInstance{}}); err == nil {
		t.Error("built on an instance that is not a fairness problem")
	}
	run, err := a.Build(a.New(), env)
	if err != nil {
		t.Fatal(err)
	}
	reps := make([]consensus.Report, env.N)
	for i := range reps {
		ag, err := run.Agent(i)
		if err != nil {
			t.Fatal(err)
		}
		reps[i] = ag.Report()
	}
	ev := run.(registry.Evaluator)
	m, err := ev.Evaluate(reps)
	if err != nil {
		t.Fatal(err)
	}
	_, fstar, _, _ := inst.(fairness.Provider).Optimum()
	if want := math.Log(2) - fstar; math.Abs(m.OptGap-want) > 1e-12 || m.ConsensusErr != 0 || m.Values[0] != 0 {
		t.Errorf("at the start: gap %v (want log 2 - f* = %v), consensus %v, covariance %v", m.OptGap, want, m.ConsensusErr, m.Values[0])
	}
	if _, err := run.Agent(4); err == nil {
		t.Error("agent 4 of 4 built")
	}
}

// otherInstance is a problem that is not a fairness problem.
type otherInstance struct{ registry.Instance }
