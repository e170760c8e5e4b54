package registrytest

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/consim/consim/consensus/registry"
)

// Params follows the idiom: flat keys, each documented and checked.
type Params struct {
	Step     float64 `yaml:"step" doc:"step > 0"`
	Schedule string  `yaml:"schedule" doc:"constant|sqrt"`
	Batch    *int    `yaml:"batch,omitempty" doc:"minibatch >= 1" default:"all"`
	Mixing   mixing  `yaml:"mixing"`
	Shared   `yaml:",inline"`
	File     registry.Path `yaml:"file" doc:"a data file"`
	Exact    bool          `yaml:"exact" doc:"exact prox"`
	Seed     uint64        `yaml:"-"`
}

type mixing struct {
	Rule string `yaml:"rule" doc:"metropolis|uniform"`
}

// Shared are keys that several blocks embed.
type Shared struct {
	Penalty *float64 `yaml:"penalty,omitempty" doc:"penalty >= 0" default:"preset"`
}

func (p *Params) Validate() error {
	var errs registry.FieldErrors
	errs.Check("step", &p.Step, registry.Positive)
	errs.OneOf("schedule", p.Schedule, "constant", "sqrt")
	if p.Batch != nil && *p.Batch < 1 {
		errs.Add("batch", "must be >= 1, got %d", *p.Batch)
	}
	errs.OneOf("mixing.rule", p.Mixing.Rule, "metropolis", "uniform")
	errs.Check("penalty", p.Penalty, registry.NonNegative)
	return errs.Err()
}

func good() *Params {
	return &Params{Step: 0.1, Schedule: "constant", Mixing: mixing{Rule: "metropolis"}}
}

// SubBlockParams is the other idiom: the values in a params: sub-block.
type SubBlockParams struct {
	Preset string `yaml:"preset" doc:"practical|theory"`
	Params struct {
		Eta *float64 `yaml:"eta,omitempty" doc:"dual step > 0"`
	} `yaml:"params"`
}

func (p *SubBlockParams) Validate() error {
	var errs registry.FieldErrors
	errs.OneOf("preset", p.Preset, "practical", "theory")
	errs.Check("params.eta", p.Params.Eta, registry.Positive)
	return errs.Err()
}

// Settings is a block whose Validate returns a plain error about the
// block, not the key.
type Settings struct {
	Alpha float64 `yaml:"alpha" doc:"step alpha > 0"`
}

func (s *Settings) Validate() error {
	if !(s.Alpha > 0) || math.IsInf(s.Alpha, 0) {
		return fmt.Errorf("alpha = %v: must be positive and finite", s.Alpha)
	}
	return nil
}

// LaxParams forgets to check a key, names another's error wrongly and
// leaves a key undocumented.
type LaxParams struct {
	Step  float64 `yaml:"step" doc:"step > 0"`
	Tau   float64 `yaml:"tau" doc:"step tau > 0"`
	Batch int     `yaml:"batch"`
}

func (p *LaxParams) Validate() error {
	var errs registry.FieldErrors
	errs.Check("stepsize", &p.Tau, registry.Positive)
	if p.Batch < 0 {
		errs.Add("batch", "must be >= 0")
	}
	return errs.Err()
}

// TestCheckParamsAcceptsTheIdiom: a block with flat keys (a struct-valued
// key and an inline embedding included), each documented and named by
// Validate, passes; CheckParams leaves it unchanged.
func TestCheckParamsAcceptsTheIdiom(t *testing.T) {
	p := good()
	if err := CheckParams(p); err != nil {
		t.Fatal(err)
	}
	if err := CheckName(p); err != nil {
		t.Fatal(err)
	}
	if *p != *good() {
		t.Fatalf("CheckParams changed the block: %+v", p)
	}
}

// TestCheckParamsRejectsTheOtherIdiom: each deliberately wrong block fails
// with an error naming what is wrong.
func TestCheckParamsRejectsTheOtherIdiom(t *testing.T) {
	eta := 0.1
	sub := &SubBlockParams{Preset: "practical"}
	sub.Params.Eta = &eta
	for _, tc := range []struct {
		name string
		p    registry.Params
		want []string
	}{
		{"params sub-block", sub, []string{"key params (field Params): the block's keys belong in the block itself, not in a params sub-block"}},
		{"block-level errors", &Settings{Alpha: 0.1}, []string{"key alpha = NaN: Validate returns *errors.errorString", "want a registry.FieldErrors naming the key"}},
		{"lax validation", &LaxParams{Step: 1, Tau: 1}, []string{
			"key step = NaN: Validate accepts it",
			"key tau = NaN: Validate's errors do not name the key: stepsize",
			"key batch: no doc tag",
		}},
		{"bad defaults", &Params{Step: -1, Schedule: "constant", Mixing: mixing{Rule: "metropolis"}}, []string{"the block given does not validate: step: must be a finite number > 0, got -1"}},
		{"not a pointer to a struct", nil, []string{"want a non-nil pointer to a struct"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckParams(tc.p)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to contain %q", err, w)
				}
			}
		})
	}
	if err := CheckName(&Settings{}); err == nil || !strings.Contains(err.Error(), "name it Params") {
		t.Errorf("a block type named Settings: %v", err)
	}
	if err := CheckParams((*Params)(nil)); err == nil {
		t.Error("a nil block: accepted")
	}
}
