package fairness

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/consim/consim/consensus/registry"
)

// TestParamsValidate: every bad key of the block is named with what is
// allowed; the synthetic keys are not checked with a data directory.
func TestParamsValidate(t *testing.T) {
	if err := DefaultParams().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		edit func(*Params)
		key  string
	}{
		{func(p *Params) { p.Rows = -1 }, "rows"},
		{func(p *Params) { p.PerClass = 0 }, "per_class"},
		{func(p *Params) { p.Phi = math.NaN() }, "phi"},
		{func(p *Params) { p.Loss = "hinge" }, "loss"},
		{func(p *Params) { p.C = 0 }, "c"},
		{func(p *Params) { p.Box = math.Inf(1) }, "box"},
	} {
		p := DefaultParams()
		tc.edit(p)
		var fe registry.FieldErrors
		if err := p.Validate(); !errors.As(err, &fe) || fe[0].Key != tc.key {
			t.Errorf("%+v: error %v, want one at key %s", p, err, tc.key)
		}
	}
	p := DefaultParams()
	p.Data, p.PerClass = "adult", 0
	if err := p.Validate(); err != nil {
		t.Errorf("per_class checked with a data directory: %v", err)
	}
	p.C = math.Inf(1)
	if err := p.Validate(); err != nil {
		t.Errorf("c = .inf (unconstrained) refused: %v", err)
	}
}

// TestProblemSynthetic: the synthetic instance is Zafar et al.'s data from
// the run seed, measured on itself, and its optimum is Reference's, solved
// once; a nonconvex loss has none.
func TestProblemSynthetic(t *testing.T) {
	p := DefaultParams()
	p.PerClass, p.C = 100, 0.3
	inst, err := Problem().Build(p, registry.ProblemEnv{N: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	pv := inst.(Provider)
	want, _ := Synthetic(100, math.Pi/4, 4)
	if d := pv.Data(); d.Rows() != 200 || d.X[5] != want.X[5] || pv.Test() != d {
		t.Fatalf("synthetic data differ from Synthetic(100, pi/4, 4) or a test set appeared")
	}
	if inst.Dim() != 4 {
		t.Errorf("Dim = %d, want d + 1 = 4", inst.Dim())
	}
	theta, f, ok, err := pv.Optimum()
	if err != nil || !ok {
		t.Fatalf("optimum: %v, %v", ok, err)
	}
	ref, err := Reference(pv.Data(), Logistic{}, 0.3, 10)
	if err != nil || f != ref.L || f != Objective(pv.Data(), Logistic{}, ref.Theta) || theta[0] != ref.Theta[0] {
		t.Errorf("optimum %v, Reference gives %v (%v)", f, ref.L, err)
	}
	if _, err := inst.Central(); !errors.Is(err, registry.ErrNoCentral) {
		t.Errorf("Central: %v, want ErrNoCentral", err)
	}
	p.Loss = "smooth01"
	inst, _ = Problem().Build(p, registry.ProblemEnv{N: 3, Seed: 4})
	if _, f, ok, err := inst.(Provider).Optimum(); ok || err != nil || !math.IsNaN(f) {
		t.Errorf("nonconvex optimum: %v, %v, %v; want NaN, false, nil", f, ok, err)
	}
}

// TestProblemErrors: a missing Adult directory is an error at key data
// naming the file; more agents than rows is refused.
func TestProblemErrors(t *testing.T) {
	p := DefaultParams()
	p.Data = registry.Path(t.TempDir())
	_, err := Problem().Build(p, registry.ProblemEnv{N: 2, Seed: 1})
	var fe registry.FieldErrors
	if !errors.As(err, &fe) || fe[0].Key != "data" || !strings.Contains(err.Error(), "adult.data") {
		t.Errorf("missing files: %v", err)
	}
	p = DefaultParams()
	p.PerClass = 2
	if _, err := Problem().Build(p, registry.ProblemEnv{N: 5, Seed: 1}); err == nil || !strings.Contains(err.Error(), "every agent needs a row") {
		t.Errorf("5 agents for 4 rows: %v", err)
	}
}
