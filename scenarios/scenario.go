package scenarios

import (
	"github.com/consim/consim/catalog"
	"github.com/consim/consim/consensus/registry"
)

// Scenario is one fully described consim run. Parse fills it over the
// defaults of Default, so after Load every optional field holds either the
// file's value or its documented default.
type Scenario struct {
	// Name labels the run; it appears in run ids and bus subjects.
	Name string `yaml:"name"`
	// Seed is the run seed of the common randomness (edge draws, samples,
	// data generation).
	Seed uint64 `yaml:"seed"`
	// Agents is N, the number of agents.
	Agents    int       `yaml:"agents"`
	Graph     Graph     `yaml:"graph"`
	Edges     Edges     `yaml:"edges"`
	Problem   Problem   `yaml:"problem"`
	Algorithm Algorithm `yaml:"algorithm"`
	// Rounds is T, the number of iterations.
	Rounds  int     `yaml:"rounds"`
	Metrics Metrics `yaml:"metrics"`
	Runtime Runtime `yaml:"runtime"`
	// Faults are the runtime fault models (see Faults); by default none.
	Faults Faults `yaml:"faults"`
	// Async runs the scenario without rounds (see Async); off by default.
	Async  Async  `yaml:"async"`
	Output Output `yaml:"output"`
	// Sweep, when set, makes the file a parameter sweep for consim sweep
	// (see Sweep); consim run ignores it and runs the scenario once.
	Sweep *Sweep `yaml:"sweep,omitempty"`

	// ProcessAgents, if positive, is the number of the run's agents that
	// the process loading the scenario runs (consim node: 1); it is not
	// part of the file. The memory estimate (EstimateMemory, and so
	// Validate) then counts the per-agent parts for these agents only,
	// and leaves out the coordinator's. 0: the whole run in one process.
	ProcessAgents int `yaml:"-"`

	src source
	reg *registry.Registry
}

// Graph is the static topology and the per-edge presence probabilities
// p_ij of the random time-varying graph.
type Graph struct {
	// Topology is one of Topologies.
	Topology string `yaml:"topology"`
	// Rows and Cols shape a grid or torus; Rows*Cols must equal Agents.
	Rows int `yaml:"rows,omitempty"`
	Cols int `yaml:"cols,omitempty"`
	// Q is the pair probability of an Erdos-Renyi topology, in (0, 1], or
	// the probability of each arc of a digraph or directed_sequence beyond
	// its Hamiltonian cycle.
	Q float64 `yaml:"q,omitempty"`
	// Radius is the connection radius of a random geometric topology in
	// the unit square.
	Radius float64 `yaml:"radius,omitempty"`
	// File is an edge list ("i j" or "i j p" per line); Parse resolves a
	// relative path against the scenario file's directory.
	File string `yaml:"file,omitempty"`
	// K is the out-degree of a k_out topology, in [1, Agents-1].
	K int `yaml:"k,omitempty"`
	// Period is the number of digraphs of a directed_sequence topology.
	Period int `yaml:"period,omitempty"`
	// P is the presence probability of every edge (of every arc, for a
	// directed topology), in (0, 1]. It is zero exactly when PRange is set.
	P float64 `yaml:"p,omitempty"`
	// PRange, when set, draws each p_ij uniformly from [lo, hi] instead.
	PRange *Interval `yaml:"p_range,flow,omitempty"`
}

// Edges selects the edge process that draws the graph of each round.
type Edges struct {
	// Model is one of EdgeModels.
	Model string `yaml:"model"`
	// SameDraw uses one draw for zeta1 and zeta2 (the rho-term then
	// penalises sum p_ij (x_i - x_j) instead of sum p_ij^2 (x_i - x_j)).
	SameDraw bool `yaml:"same_draw"`
	// GilbertElliott parameterises model gilbert_elliott; it must be left
	// out for the other models.
	GilbertElliott GilbertElliott `yaml:"gilbert_elliott,omitempty"`
	// Cuts remove listed edges over ranges of rounds, on top of the model.
	Cuts Cuts `yaml:"cuts,omitempty"`
	// Partitions split the agents into groups over ranges of rounds, on
	// top of the model.
	Partitions Partitions `yaml:"partitions,omitempty"`
	// Replay, when set, is a recording of the realized edge sets (see
	// Setup.RecordEdges) that replaces the draws of the model, cuts and
	// partitions, which then only set E[W]. Parse resolves a relative
	// path against the scenario file's directory.
	Replay string `yaml:"replay,omitempty"`
}

// GilbertElliott is the bursty-link model: each edge has a good/bad Markov
// chain with per-round transition probabilities PGB (good -> bad) and PBG
// (bad -> good), started from its stationary distribution; given the
// state, each draw has the edge present with probability PGood or PBad.
// A bad spell lasts 1/PBG rounds on average.
type GilbertElliott struct {
	PGB float64 `yaml:"p_gb"`
	PBG float64 `yaml:"p_bg"`
	// PGood is the presence probability in the good state; nil keeps the
	// graph's p_ij.
	PGood *float64 `yaml:"p_good,omitempty"`
	PBad  float64  `yaml:"p_bad"`
}

// Cut removes Edges from every draw of the rounds From <= t < To.
type Cut struct {
	// Edges are pairs [i, j] of the graph.
	Edges EdgePairs `yaml:"edges,flow"`
	From  int       `yaml:"from"`
	// To is the first round after the cut; 0 (left out) never heals.
	To int `yaml:"to,omitempty"`
}

// Partition makes the edges between different Groups absent from every
// draw of the rounds From <= t < To. Agents listed in no group form one
// more group together; a partition with a To heals at round To.
type Partition struct {
	Groups AgentGroups `yaml:"groups,flow"`
	From   int         `yaml:"from"`
	// To is the first round after the partition; 0 (left out) never heals.
	To int `yaml:"to,omitempty"`
}

// Cuts is the list edges.cuts.
type Cuts []Cut

// Partitions is the list edges.partitions.
type Partitions []Partition

// EdgePairs is a list of agent pairs [i, j].
type EdgePairs [][2]int

// AgentGroups is a list of groups of agent ids.
type AgentGroups [][]int

// Problem is the problem block: its kind, the initial point, and the
// kind's own keys (the registered problem's parameter struct: dim,
// samples_per_agent, box, ... for the regression kinds; assets, periods,
// cov, mu for portfolio).
type Problem struct {
	// Kind is a registered problem kind.
	Kind string `yaml:"kind"`
	Init Init   `yaml:"init"`
	// Params holds the kind's own keys: the struct that the registered
	// Problem.New returns, decoded from every key of the block but kind
	// and init.
	Params registry.Params `yaml:"-"`
	of     string
}

// Init sets the starting point x_0 = z_0 of every agent: zero by default
// (InitZero), or a random spread (InitRandom) whose entries are i.i.d.
// N(0, Scale^2) from the run seed; either is projected onto X.
type Init struct {
	// Kind is one of InitKinds; InitZero by default.
	Kind string `yaml:"kind"`
	// Scale is the standard deviation of a random start (1 by default);
	// a zero start ignores it.
	Scale float64 `yaml:"scale"`
}

// Algorithm is the algorithm block: its name and the algorithm's own
// keys.
type Algorithm struct {
	// Name is a registered algorithm name.
	Name string `yaml:"name"`
	// Params holds the algorithm's own keys: the struct that the
	// registered Algorithm.New returns, decoded from every key of the
	// block but name.
	Params registry.Params `yaml:"-"`
	of     string
}

// Metrics sets what the coordinator observes.
type Metrics struct {
	// Every is k: agents report every k rounds.
	Every int `yaml:"every"`
	// Tolerance stops the run once the consensus error
	// (1/N) sum_i ||x_i - xbar||^2 falls below it; 0 turns it off.
	Tolerance float64 `yaml:"tolerance"`
}

// Runtime sets how the agents run and talk.
type Runtime struct {
	// Transport is one of Transports.
	Transport string `yaml:"transport"`
	// NATSURL is an external NATS server to use instead of the embedded one.
	NATSURL string `yaml:"nats_url,omitempty"`
	// PhaseDeadline bounds the wait for one phase's messages; a message
	// missing at the deadline is a dropout.
	PhaseDeadline Duration `yaml:"phase_deadline"`
	// AgentTimeout bounds the silence of an agent before it is declared lost.
	AgentTimeout Duration `yaml:"agent_timeout"`
	// Timeout bounds the whole run.
	Timeout Duration `yaml:"timeout"`
	// Workers is W, the oracle workers that evaluate the agents'
	// evaluation requests (algorithms that fan out, such as a
	// zeroth-order method); 0 lets each agent evaluate its own.
	Workers int `yaml:"workers"`
	// MemoryLimit is the memory a run may need by its estimate (see
	// EstimateMemory); Validate refuses a scenario whose estimate is
	// larger. Zero (left out) takes the machine's physical memory.
	MemoryLimit ByteSize `yaml:"memory_limit,omitempty"`
}

// Output sets where results go.
type Output struct {
	// Dir is the parent of the results/<run-id>/ bundles.
	Dir string `yaml:"dir"`
}

// Interval is a closed interval [lo, hi] written as a two-element YAML
// sequence; either bound may be infinite (.inf, -.inf).
type Interval = registry.Interval

// source remembers where a scenario came from so that validation can
// point at the line of each key.
type source struct {
	file string         // as given to Parse
	dir  string         // directory that relative paths are resolved in
	pos  map[string]Pos // dotted key -> where its value was written
}

// registry returns the registry the scenario's algorithm and problem
// come from: the one it was parsed with, or the shipped one.
func (s *Scenario) registry() *registry.Registry {
	if s.reg == nil {
		s.reg = catalog.Default()
	}
	return s.reg
}

// Registry is the registry the scenario's algorithm and problem come
// from.
func (s *Scenario) Registry() *registry.Registry { return s.registry() }

// Source is the file name the scenario was parsed from.
func (s *Scenario) Source() string { return s.src.file }
