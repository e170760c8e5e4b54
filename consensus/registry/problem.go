package registry

import "github.com/consim/consim/objective"

// Problem describes one problem family to the registry: a generator from
// the seed, a loader of users' data, or both.
type Problem struct {
	// Kind is the value of the scenario key problem.kind.
	Kind string
	// Summary is one line for listings and documentation.
	Summary string
	// New returns a new parameter struct holding the documented defaults.
	New func() Params
	// Build generates or loads the instance of a run. Paths in p are
	// resolved already (relative to the scenario file).
	Build func(p Params, env ProblemEnv) (Instance, error)
	// Offers names the capabilities of its instances, e.g. CapLocals:
	// Registry.Check compares them with an algorithm's Needs.
	Offers []string
	// Renamed maps keys that the block had in earlier versions (dotted,
	// inside the block) to the keys that replaced them, so that a
	// scenario using an old key gets an error naming the new one.
	Renamed map[string]string
}

// ProblemEnv is what a problem's Build gets from the run.
type ProblemEnv struct {
	// N is the number of agents the data is spread over.
	N int
	// Seed is the run seed; generated data derive from it.
	Seed uint64
}

// Instance is a problem made concrete for one run.
type Instance interface {
	// Dim is n, the length of every agent's block x_i; 0 when the agents
	// hold blocks of different lengths (the algorithm then builds its own
	// initial points and does not use Env.Init).
	Dim() int
	// Central returns the full problem f = (1/N) sum_i f_i with its
	// optimum (solved here, possibly at some cost), for the coordinator's
	// measures. An instance without that consensus form returns an error
	// wrapping ErrNoCentral; the algorithms that run on it implement
	// Evaluator, and the coordinator does not call Central for them.
	Central() (*objective.Problem, error)
}

// Locals is the capability of the consensus problems
// min_{x in X} (1/N) sum_i f_i(x): agent i's smooth local objective f_i
// with its (stochastic) gradient oracles, and the common box X.
type Locals interface {
	Instance
	// Local returns f_i, 0 <= i < N.
	Local(i int) objective.Local
	// Box is X.
	Box() objective.Box
}
