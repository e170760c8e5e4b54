package registry

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// What an algorithm needs and what a problem offers, declared in their
// entries and checked before anything is built (as gonum/optimize's
// Method.Uses(Available) negotiates a method's needs with what a problem
// provides): an Algorithm names the capabilities it needs (Needs), how its
// agents divide the work (Roles) and whether they fan evaluations out
// (FansOut); a Problem names the capabilities its instances offer
// (Offers). Check compares them; Build runs the algorithm's Build only
// after Check and then holds its Run to what the entry declared.

// Capabilities that instances offer and algorithms need. A problem
// family's package defines more, with the interface that names them
// (e.g. Cap and Provider of problems/slicing).
const (
	// CapLocals: the instance implements Locals.
	CapLocals = "locals"
	// CapProx: besides Locals, every f_i has an exact proximal operator
	// (objective.ProxOf succeeds on it).
	CapProx = "prox"
)

// Roles is how a run's agents divide the problem.
type Roles string

// Roles of Algorithm.Roles.
const (
	// Peers: every agent holds a copy x_i of one common x of a consensus
	// problem; the coordinator measures the run against the instance's
	// Central problem. The default (also when empty).
	Peers Roles = "peers"
	// Server: one agent holds the iterate and fans its evaluations out to
	// the run's oracle workers; the run has exactly one agent.
	Server Roles = "server"
	// Star: agent 0 holds the upper-level variables and agents 1..N-1
	// blocks of the lower level; the run has at least two agents.
	Star Roles = "star"
	// Nodes: agent i is node i of the problem's network and holds that
	// node's variables; the instance fixes the number of agents.
	Nodes Roles = "nodes"
	// Shards: each agent holds a shard of the data and a replica of the
	// iterate of a problem that is not a consensus sum.
	Shards Roles = "shards"
)

// measuresItself reports whether a run of these roles measures itself
// (Evaluator) rather than through the instance's Central problem.
func (r Roles) measuresItself() bool { return r != "" && r != Peers }

// valid reports whether r is one of the declared roles.
func (r Roles) valid() bool {
	return r == "" || slices.Contains([]Roles{Peers, Server, Star, Nodes, Shards}, r)
}

// ProblemMismatch is the error of an algorithm that cannot run on the
// problem it was given: it names what the algorithm needs.
type ProblemMismatch struct {
	Algorithm, Problem string
	// Needs says what the algorithm needs of a problem, e.g. "local
	// objectives f_i with gradients and a box X".
	Needs string
	// Missing are the capabilities the problem does not offer.
	Missing []string
	// Accepts lists the problem kinds that offer every capability the
	// algorithm needs, when known.
	Accepts []string
}

func (e *ProblemMismatch) Error() string {
	msg := fmt.Sprintf("algorithm %s cannot run on problem %s: it needs %s", e.Algorithm, e.Problem, e.Needs)
	if len(e.Accepts) > 0 {
		msg += " (problems that offer it: " + strings.Join(e.Accepts, ", ") + ")"
	}
	return msg
}

// Accepting lists the registered problem kinds whose Offers include
// every capability in needs.
func (r *Registry) Accepting(needs ...string) []string {
	var kinds []string
	for _, k := range r.Problems() {
		if missing(r.problems[k].Offers, needs) == nil {
			kinds = append(kinds, k)
		}
	}
	return kinds
}

// missing returns the capabilities of needs that offers lacks.
func missing(offers, needs []string) []string {
	var out []string
	for _, n := range needs {
		if !slices.Contains(offers, n) {
			out = append(out, n)
		}
	}
	return out
}

// Check reports whether the algorithm registered as name can run on the
// problem registered as kind with n agents, before anything is built: a
// *ProblemMismatch when the problem does not offer every capability the
// algorithm Needs, a FieldErrors at "agents" when n does not suit its
// Roles (Server: 1, Star: at least 2).
func (r *Registry) Check(name, kind string, n int) error {
	a, ok := r.algorithms[name]
	if !ok {
		return fmt.Errorf("registry: no algorithm %q", name)
	}
	p, ok := r.problems[kind]
	if !ok {
		return fmt.Errorf("registry: no problem %q", kind)
	}
	if miss := missing(p.Offers, a.Needs); miss != nil {
		return &ProblemMismatch{Algorithm: name, Problem: kind, Needs: a.needsDoc(), Missing: miss, Accepts: r.Accepting(a.Needs...)}
	}
	switch {
	case a.Roles == Server && n != 1:
		return FieldErrors{{Key: "agents", Msg: fmt.Sprintf("%s runs one server agent (its oracle workers are runtime.workers): set agents: 1, got %d", name, n)}}
	case a.Roles == Star && n < 2:
		return FieldErrors{{Key: "agents", Msg: fmt.Sprintf("%s runs an upper-level agent and at least one task agent: set agents >= 2, got %d", name, n)}}
	}
	return nil
}

func (a Algorithm) needsDoc() string {
	if a.NeedsDoc != "" {
		return a.NeedsDoc
	}
	return "a problem offering " + strings.Join(a.Needs, ", ")
}

// Build resolves p of the algorithm registered as name against env, whose
// problem is the one registered as kind: it checks the algorithm's needs
// first (Check), then calls its Build and holds the Run to the entry's
// declarations: an Evaluator when its Roles measure themselves (a run of
// peers may measure itself too), Oracles when it FansOut, an AsyncRunner
// when it is Async, Evaluated measures only with an Evaluator. An error
// that is the scenario's fault is a *ProblemMismatch or a FieldErrors, as
// the entry's Build returns them.
func (r *Registry) Build(name, kind string, p Params, env *Env) (Run, error) {
	if err := r.Check(name, kind, env.N); err != nil {
		return nil, err
	}
	a := r.algorithms[name]
	run, err := a.Build(p, env)
	if err != nil {
		var mm *ProblemMismatch
		if errors.As(err, &mm) {
			mm.Algorithm, mm.Problem = name, kind
			if len(mm.Accepts) == 0 && len(a.Needs) > 0 {
				mm.Accepts = r.Accepting(a.Needs...)
			}
		}
		return nil, err
	}
	if err := a.holds(run); err != nil {
		return nil, fmt.Errorf("registry: algorithm %s: %w", name, err)
	}
	return run, nil
}

// holds checks that run implements what a declares.
func (a Algorithm) holds(run Run) error {
	_, evaluates := run.(Evaluator)
	if a.Roles.measuresItself() && !evaluates {
		return fmt.Errorf("its roles are %s but its Run %T does not implement Evaluator", a.Roles, run)
	}
	if _, ok := run.(Oracles); ok != a.FansOut {
		return fmt.Errorf("FansOut is %v but its Run %T implements Oracles: %v", a.FansOut, run, ok)
	}
	if _, ok := run.(AsyncRunner); ok != a.Async {
		return fmt.Errorf("Async is %v but its Run %T implements AsyncRunner: %v", a.Async, run, ok)
	}
	if len(Evaluated(MeasuresOf(run))) > 0 && !evaluates {
		return fmt.Errorf("its Run %T declares Evaluated measures but does not implement Evaluator", run)
	}
	return nil
}

// BuildWith adapts build, which takes the problem's instance as the
// capability T the algorithm declares in Needs, to Algorithm.Build: the
// instance is asserted once here (As).
func BuildWith[T any](build func(p Params, env *Env, inst T) (Run, error)) func(Params, *Env) (Run, error) {
	return func(p Params, env *Env) (Run, error) {
		inst, err := As[T](env)
		if err != nil {
			return nil, err
		}
		return build(p, env, inst)
	}
}

// As returns the run's problem instance as the capability T (e.g.
// Locals) that the algorithm declares in Needs. Check has compared the
// problem's Offers with the needs, so an instance that is not a T offers
// what it does not implement: that is an error of the problem.
func As[T any](env *Env) (T, error) {
	inst, ok := env.Problem.(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("registry: the problem's instance %T does not implement %v, which its problem offers", env.Problem, reflect.TypeFor[T]())
	}
	return inst, nil
}
