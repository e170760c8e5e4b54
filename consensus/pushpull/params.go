package pushpull

import (
	"github.com/consim/consim/consensus/registry"
)

// Forms of Params.Form: where the step is taken.
const (
	// FormPushPull is Pu, Shi, Xu and Nedic's push-pull gradient method,
	// x <- R (x - alpha y): the step is mixed with the iterate.
	FormPushPull = "push_pull"
	// FormAB is Xin and Khan's AB algorithm, x <- R x - alpha y: the step
	// is taken after the mix.
	FormAB = "ab"
)

// DefaultStep is the default step alpha, for objectives scaled so that
// the smoothness constants L_i are about 1.
const DefaultStep = 0.1

// Params are the push-pull method's parameters, with the keys of a
// scenario's algorithm block. DefaultParams gives the defaults.
type Params struct {
	// Step is the constant step alpha > 0, the same at every agent. Both
	// forms converge linearly for a small enough alpha (Pu et al.,
	// Theorem 1; Xin and Khan, Theorem 1), bounds that depend on the
	// mixing matrices and on the strong convexity and smoothness of the
	// f_i and that are not computed here.
	Step float64 `yaml:"step" doc:"constant step alpha > 0"`
	// Form is FormPushPull (the default) or FormAB.
	Form string `yaml:"form" doc:"push_pull|ab: x <- R (x - alpha y) (Pu, Shi, Xu, Nedic), or x <- R x - alpha y (Xin, Khan)"`
}

// DefaultParams returns alpha = DefaultStep in the push-pull form.
func DefaultParams() Params { return Params{Step: DefaultStep, Form: FormPushPull} }

// Validate checks every key against its allowed values.
func (p Params) Validate() error {
	var errs registry.FieldErrors
	errs.Check("step", &p.Step, registry.Positive)
	errs.OneOf("form", p.Form, FormPushPull, FormAB)
	return errs.Err()
}
