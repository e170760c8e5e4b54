// Package registry is where algorithms and problems make themselves known
// to consim: each algorithm package describes itself once in an Algorithm
// (its name, its own typed parameters with defaults and validation, what
// it needs of a problem, and a constructor of its agents), each problem in
// a Problem (what its instances offer), and a Registry holds them by name.
// Scenario files, the command line and the library API find everything
// through a Registry; nothing outside an algorithm's own package switches
// on its name.
//
// Every block of parameters follows one idiom: a struct (called Params)
// whose exported fields are the block's keys, flat (no params: sub-block),
// with a Validate that returns FieldErrors keyed by those keys. Keys a
// block no longer has are listed in its entry's Renamed, so that an old
// scenario gets an error naming the new key. docs/parameters.md lists the
// key names every algorithm shares (step, dual_step, penalty, ...).
//
// Most algorithms are consensus methods: every agent holds a copy of one
// x, and the coordinator measures them against the instance's Central
// problem (Roles Peers). An algorithm whose agents hold different blocks
// or play roles (a server and its oracle workers, an upper-level agent and
// task agents) declares its Roles, and its Run implements Evaluator and
// measures itself; its instances may have no Central (ErrNoCentral). See
// capability.go and evaluator.go.
//
// The registry is pure like the rest of consensus: no I/O, no goroutines.
// Problems that read data files register from packages that may do I/O
// (the families under problems/). registry may import consensus,
// objective and graph; it must not import node, coordinator, scenarios or
// cmd.
package registry

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
)

// Params is an algorithm's or a problem's own parameter struct (a type
// named Params), held by pointer. Its exported fields are the keys of the
// block, flat, each with a yaml tag (its key) and a doc tag (its meaning
// and allowed range): a scenario's algorithm (or problem) block decodes
// strictly into it, key by key, over the defaults that the New function of
// its entry filled in. A field may be a struct of its own when the keys
// belong together (mixing: {rule, weight}).
type Params interface {
	// Validate checks the values that need no instance (signs, ranges,
	// allowed names) and returns nil or a FieldErrors naming each key, as
	// written inside the block, with the allowed range.
	Validate() error
}

// FieldError is a bad value of one key of an algorithm or problem block.
type FieldError struct {
	// Key is the dotted key inside the block, e.g. "dual_step" or
	// "mixing.weight". An
	// error about another section of the scenario (a Build that finds the
	// problem's box unsuitable) names it in full from the scenario's root,
	// starting with that section's name, e.g. "problem.box".
	Key string
	// Msg says what is wrong and what is allowed.
	Msg string
}

func (e FieldError) Error() string { return e.Key + ": " + e.Msg }

// FieldErrors collects the FieldErrors of one block.
type FieldErrors []FieldError

func (es FieldErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// Check adds "key: must be <Range.Want>, got <x>" when x is set (an
// optional override) and outside r.
func (es *FieldErrors) Check(key string, x *float64, r Range) {
	if x != nil && !r.In(*x) {
		es.Add(key, "must be %s, got %s", r.Want, Num(*x))
	}
}

// Range is a set of allowed values for FieldErrors.Check: In tests a
// value, Want names the set in messages.
type Range struct {
	In   func(float64) bool
	Want string
}

// The ranges of most step sizes and weights.
var (
	// Positive is 0 < x < +Inf.
	Positive = Range{func(x float64) bool { return x > 0 && !math.IsInf(x, 0) }, "a finite number > 0"}
	// NonNegative is 0 <= x < +Inf.
	NonNegative = Range{func(x float64) bool { return x >= 0 && !math.IsInf(x, 0) }, "a finite number >= 0"}
	// UnitInterval is 0 < x <= 1.
	UnitInterval = Range{func(x float64) bool { return x > 0 && x <= 1 }, "in (0, 1]"}
)

// Add appends a FieldError at key with a formatted message.
func (es *FieldErrors) Add(key, format string, args ...any) {
	*es = append(*es, FieldError{Key: key, Msg: fmt.Sprintf(format, args...)})
}

// OneOf adds an error at key unless v is one of allowed, and reports
// whether it is.
func (es *FieldErrors) OneOf(key, v string, allowed ...string) bool {
	if slices.Contains(allowed, v) {
		return true
	}
	es.Add(key, "%q is not one of %s", v, strings.Join(allowed, ", "))
	return false
}

// Num formats v as a scenario file writes it: .inf and -.inf for the
// infinities, the shortest exact decimal otherwise.
func Num(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return ".inf"
	case math.IsInf(v, -1):
		return "-.inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Err returns es as an error, nil when empty.
func (es FieldErrors) Err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}

// Interval is a closed interval [lo, hi], written in a scenario as a
// two-element sequence; either bound may be infinite (.inf, -.inf).
type Interval [2]float64

// Lo is the lower bound.
func (iv Interval) Lo() float64 { return iv[0] }

// Hi is the upper bound.
func (iv Interval) Hi() float64 { return iv[1] }

// Path is a file path in a parameter struct. A scenario resolves a
// relative Path against the scenario file's directory when it decodes
// it, so registered entries always see a path they can open.
type Path string

// Env is what every process of a run rebuilds identically from the
// scenario and its seed before any agent exists: the graph, its edge
// process and the problem instance.
type Env struct {
	// N is the number of agents.
	N int
	// Seed is the run seed of the common randomness.
	Seed uint64
	// Rounds is the horizon T of the run.
	Rounds int
	// Graph is the expected graph: its edges with their presence
	// probabilities p_ij.
	Graph *graph.Graph
	// Process draws the edges present in each round and draw.
	Process graph.EdgeProcess
	// Digraph and Arcs, set for a directed topology and nil otherwise, are
	// the run's digraph (its arcs with their presence probabilities) and
	// the arc process that draws the arcs present in each round; Graph is
	// then the digraph's underlying graph and Process its EitherArc view,
	// for the measures. Algorithms on arcs read them through Env.Directed.
	Digraph *graph.Digraph
	Arcs    graph.ArcProcess
	// SameDraw asks algorithms that draw the graph more than once per
	// round to use one draw (scenario key edges.same_draw).
	SameDraw bool
	// Faulty is set when runtime faults (loss, delay, crashes) are active,
	// so that algorithms report what the fault measures need (the replicas
	// of edge duals, for the drift).
	Faulty bool
	// Problem is the run's problem instance. An algorithm asserts the
	// capabilities it needs (e.g. Regression) and says which are missing.
	Problem Instance
	// Init returns agent i's initial point x_0 (a new slice).
	Init func(i int) []float64
}

// Algorithm describes one algorithm to the registry.
type Algorithm struct {
	// Name is the value of the scenario key algorithm.name.
	Name string
	// Summary is one line for listings and documentation.
	Summary string
	// New returns a new parameter struct holding the documented defaults.
	New func() Params
	// Build resolves p against env (presets, constants computed from the
	// instance) and returns the run's agents factory. An error that is the
	// scenario's fault is a FieldErrors (keys inside the algorithm block)
	// or a *ProblemMismatch.
	Build func(p Params, env *Env) (Run, error)
	// SameDraw is set when the algorithm draws the graph more than once
	// per round and honours Env.SameDraw (scenario key edges.same_draw).
	SameDraw bool
	// CanRejoin is set when the agents can rejoin a later round after a
	// crash that keeps their state (node's restart faults).
	CanRejoin bool
	// Directed is set when the algorithm exchanges along arcs (reading
	// Env.Directed) and so runs on directed topologies as well as on
	// undirected ones; an algorithm without it runs on undirected
	// topologies only.
	Directed bool
	// Async is set when the agents are asynchronous: the Run implements
	// AsyncRunner, and the algorithm runs only with a scenario's async
	// section (see async.go).
	Async bool

	// Needs are the capabilities (see Problem.Offers) that Build asks of
	// the problem's instance, e.g. CapLocals; Check tests them against the
	// problem's Offers before Build.
	Needs []string
	// NeedsDoc says in words what Needs asks of a problem, for the error
	// of a problem that lacks it, e.g. "local objectives f_i with
	// gradients and a box X".
	NeedsDoc string
	// Roles is how the agents divide the problem; Peers when empty.
	Roles Roles
	// FansOut is set when the agents ask for evaluations
	// (consensus.Outbox.Evals): the Run implements Oracles and the
	// scenario's oracle workers (runtime.workers) apply.
	FansOut bool
	// Renamed maps keys that the block had in earlier versions (dotted,
	// inside the block, e.g. "params.eta") to the keys that replaced them
	// (e.g. "dual_step"), so that a scenario using an old key gets an
	// error naming the new one.
	Renamed map[string]string

	// SendsDeltas is set when the agents' messages carry changes to state
	// the receiver keeps (CHOCO's q = xhat^{t+1} - xhat^t): an earlier
	// round's message cannot stand in for a missing one, so the scenario
	// key faults.staleness is refused.
	SendsDeltas bool
}

// Run is an algorithm resolved against one instance: it builds the
// agents and says which parameter values they run with.
type Run interface {
	// Agent builds agent i's state machine, 0 <= i < Env.N.
	Agent(i int) (consensus.Agent, error)
	// Resolved lists every step size and constant the agents use after
	// presets and computed constants, in a fixed order.
	Resolved() []Value
}

// Referencer is implemented by a Run that has a centralized matrix-form
// reference: Reference(T) returns x_i after T rounds for every agent i, on
// the same draws as the agents, so that tests compare the two.
type Referencer interface {
	Reference(rounds int) ([][]float64, error)
}

// Oracles is implemented by a Run whose agents ask for evaluations
// (consensus.Outbox.Evals): Oracle(w) makes the oracle of one evaluating
// goroutine, worker w of the run's oracle workers (scenario key
// runtime.workers) or an agent that evaluates its own requests. Every
// oracle must give the same values for the same request.
type Oracles interface {
	Oracle(worker int) consensus.Oracle
}

// Measurer is implemented by a Run that adds columns of its own to the
// run's metrics, the one way to add them: Measures declares them in
// column order. The agents report the values of the measures that are not
// Evaluated in consensus.Report.Measures (in declaration order), and the
// coordinator reduces each as declared; the run's Evaluator computes the
// Evaluated ones (Evaluation.Values, in declaration order).
type Measurer interface {
	Measures() []consensus.Measure
}

// Reported returns the measures of ms that the agents report (those not
// Evaluated), in order.
func Reported(ms []consensus.Measure) []consensus.Measure {
	var out []consensus.Measure
	for _, m := range ms {
		if !m.Evaluated {
			out = append(out, m)
		}
	}
	return out
}

// Evaluated returns the measures of ms that an Evaluator computes, in
// order.
func Evaluated(ms []consensus.Measure) []consensus.Measure {
	var out []consensus.Measure
	for _, m := range ms {
		if m.Evaluated {
			out = append(out, m)
		}
	}
	return out
}

// MeasuresOf returns the measures run declares (Measurer), nil when it
// declares none.
func MeasuresOf(run Run) []consensus.Measure {
	if m, ok := run.(Measurer); ok {
		return m.Measures()
	}
	return nil
}

// Value is one resolved parameter or constant.
type Value struct {
	// Name is the symbol, e.g. "eta" or "L_f".
	Name string
	// Value is its value.
	Value float64
	// Note says where it came from, e.g. "preset practical" or
	// "lambda_max of the p-weighted Laplacian"; empty when given.
	Note string
}

// Registry holds algorithms and problems by name. The zero value is
// empty and ready to use; a Registry is not safe for concurrent
// registration.
type Registry struct {
	algorithms map[string]Algorithm
	problems   map[string]Problem
}

// RegisterAlgorithm adds a. Its name must be new and a.New and a.Build
// set.
func (r *Registry) RegisterAlgorithm(a Algorithm) error {
	switch {
	case a.Name == "":
		return fmt.Errorf("registry: algorithm without a name")
	case a.New == nil || a.Build == nil:
		return fmt.Errorf("registry: algorithm %q: New and Build must be set", a.Name)
	case !a.Roles.valid():
		return fmt.Errorf("registry: algorithm %q: roles %q are not one of peers, server, star, nodes, shards", a.Name, a.Roles)
	}
	return add(&r.algorithms, "algorithm", a.Name, a)
}

// add enters e under name in *m, unless the name is taken.
func add[E any](m *map[string]E, what, name string, e E) error {
	if _, dup := (*m)[name]; dup {
		return fmt.Errorf("registry: %s %q is registered already", what, name)
	}
	if *m == nil {
		*m = make(map[string]E)
	}
	(*m)[name] = e
	return nil
}

// RegisterProblem adds p. Its kind must be new and p.New and p.Build set.
func (r *Registry) RegisterProblem(p Problem) error {
	switch {
	case p.Kind == "":
		return fmt.Errorf("registry: problem without a kind")
	case p.New == nil || p.Build == nil:
		return fmt.Errorf("registry: problem %q: New and Build must be set", p.Kind)
	}
	return add(&r.problems, "problem", p.Kind, p)
}

// Algorithm returns the algorithm registered as name.
func (r *Registry) Algorithm(name string) (Algorithm, bool) {
	a, ok := r.algorithms[name]
	return a, ok
}

// Problem returns the problem registered as kind.
func (r *Registry) Problem(kind string) (Problem, bool) {
	p, ok := r.problems[kind]
	return p, ok
}

// Algorithms lists the registered algorithm names, sorted.
func (r *Registry) Algorithms() []string { return sortedKeys(r.algorithms) }

// Problems lists the registered problem kinds, sorted.
func (r *Registry) Problems() []string { return sortedKeys(r.problems) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
