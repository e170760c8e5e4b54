package edgeadmm

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus/registry"
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

// Entry returns the registry entry of the method: summary, its block
// (newParams) and its Build, with what it needs of a problem (local
// objectives, and their exact prox for MethodExact) and its old keys
// (the params: sub-block of the pair, with the key that replaced each).
func (p Pair) Entry(summary string, newParams func() registry.Params, build func(registry.Params, *registry.Env) (registry.Run, error), renamed map[string]string) registry.Algorithm {
	a := registry.Algorithm{
		Name:     p.Name,
		Summary:  summary,
		New:      newParams,
		Build:    build,
		Needs:    []string{registry.CapLocals},
		NeedsDoc: "local objectives f_i",
		Renamed:  renamed,
	}
	if p.Method == MethodExact {
		a.Needs = append(a.Needs, registry.CapProx)
		a.NeedsDoc = fmt.Sprintf("the exact prox of each f_i (%s needs gradients only)", p.Linearized)
	}
	return a
}

// Check adds the errors of the keys penalty and step of the method's
// block to errs: penalty > 0 and finite; step, given to the linearized
// method only, > 0 and finite.
func (p Pair) Check(errs *registry.FieldErrors, penalty float64, step *float64) {
	if !(penalty > 0 && !math.IsInf(penalty, 0)) {
		errs.Add("penalty", "must be a finite number > 0, got %s", registry.Num(penalty))
	}
	if step == nil {
		return
	}
	if p.Method != MethodLinearized {
		errs.Add("step", "only applies to %s", p.Linearized)
	} else if !(*step > 0 && !math.IsInf(*step, 0)) {
		errs.Add("step", "must be a finite number > 0, got %s", registry.Num(*step))
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

// Renamed are the old keys of a pair's block, from its params: sub-block
// to the keys that replaced them, extended by extra.
func Renamed(extra map[string]string) map[string]string {
	m := map[string]string{"params.tau": "step"}
	for k, v := range extra {
		m[k] = v
	}
	return m
}
