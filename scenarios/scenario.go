package scenarios

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
	Output Output `yaml:"output"`
	// Sweep, when set, makes the file a parameter sweep for consim sweep
	// (see Sweep); consim run ignores it and runs the scenario once.
	Sweep *Sweep `yaml:"sweep,omitempty"`

	src source
}

// Graph is the static topology and the per-edge presence probabilities
// p_ij of the random time-varying graph.
type Graph struct {
	// Topology is one of Topologies.
	Topology string `yaml:"topology"`
	// Rows and Cols shape a grid or torus; Rows*Cols must equal Agents.
	Rows int `yaml:"rows,omitempty"`
	Cols int `yaml:"cols,omitempty"`
	// Q is the pair probability of an Erdos-Renyi topology, in (0, 1].
	Q float64 `yaml:"q,omitempty"`
	// Radius is the connection radius of a random geometric topology in
	// the unit square.
	Radius float64 `yaml:"radius,omitempty"`
	// File is an edge list ("i j" or "i j p" per line); Parse resolves a
	// relative path against the scenario file's directory.
	File string `yaml:"file,omitempty"`
	// P is the presence probability of every edge, in (0, 1]. It is zero
	// exactly when PRange is set.
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

// Problem is the local problem family and its generated data.
type Problem struct {
	// Kind is one of ProblemKinds.
	Kind string `yaml:"kind"`
	// Dim is n, the length of each agent's x_i.
	Dim int `yaml:"dim"`
	// SamplesPerAgent is m, the number of data points held by each agent.
	SamplesPerAgent int `yaml:"samples_per_agent"`
	// Batch is b, the minibatch size of a stochastic gradient, 1 <= b <= m.
	Batch int `yaml:"batch"`
	// Noise is the standard deviation of the label noise.
	Noise float64 `yaml:"noise"`
	// Reg is lambda, the weight of the (lambda/2)||x||^2 regulariser.
	Reg float64 `yaml:"reg"`
	// Heterogeneity scales how far the agents' local models differ
	// (0 = identically distributed data).
	Heterogeneity float64 `yaml:"heterogeneity"`
	// Scale is c, the scale of the Cauchy loss of nonconvex_regression
	// (0 = 1); unused by the other kinds.
	Scale float64 `yaml:"scale,omitempty"`
	// Outliers is the fraction of nonconvex_regression rows whose targets
	// are pure noise, in [0, 1); unused by the other kinds.
	Outliers float64 `yaml:"outliers,omitempty"`
	// Assets is the number of assets of a portfolio problem, the length
	// of x (problem.dim may be left out); unused by the other kinds.
	Assets int `yaml:"assets,omitempty"`
	// Periods is n, the number of periods (rows of the reward matrix) of
	// a portfolio problem, split contiguously across the agents.
	Periods int `yaml:"periods,omitempty"`
	// Cov is the condition number of the covariance of the portfolio
	// rewards (admm.ReturnsConfig.Cov).
	Cov float64 `yaml:"cov,omitempty"`
	// Mu is mu, the weight of the portfolio regularizer (mu/2)||x||^2.
	Mu float64 `yaml:"mu,omitempty"`
	// Box is X = [lo, hi]^n; infinite bounds are allowed.
	Box  Interval `yaml:"box,flow"`
	Init Init     `yaml:"init"`
}

// Init sets the starting point x_0 = z_0.
type Init struct {
	// Kind is one of InitKinds.
	Kind string `yaml:"kind"`
	// Scale is the standard deviation of a random start.
	Scale float64 `yaml:"scale"`
}

// Algorithm selects the method and its parameters.
type Algorithm struct {
	// Name is one of Algorithms.
	Name string `yaml:"name"`
	// Preset is one of Presets: the rule that derives the parameters from
	// the problem and graph constants (alm only; the dadmm family ignores
	// it, as it ignores Safeguard and SafeguardEvery).
	Preset string `yaml:"preset"`
	// Params override single values of the preset.
	Params Params `yaml:"params"`
	// TauSchedule is one of TauSchedules: constant tau, or tau/sqrt(t+1).
	TauSchedule string `yaml:"tau_schedule"`
	// Safeguard is one of Safeguards: where the dual reset ||y|| >= M_y
	// is tested.
	Safeguard string `yaml:"safeguard"`
	// SafeguardEvery is the period, in rounds, of the global safeguard test.
	SafeguardEvery int `yaml:"safeguard_every"`
}

// Params are optional overrides of the algorithm's parameters; a nil field
// keeps the preset's (alm) or the documented default (dadmm family). Each
// algorithm accepts only its own keys, see paramKeys.
type Params struct {
	Eta   *float64 `yaml:"eta,omitempty"`    // alm: dual step eta; dadmm_composition: step eta
	Tau   *float64 `yaml:"tau,omitempty"`    // alm, dadmm_linearized: primal step tau
	Rho   *float64 `yaml:"rho,omitempty"`    // alm: penalty rho; dadmm_composition: x = w penalty rho
	Mu    *float64 `yaml:"mu,omitempty"`     // proximal weight mu
	Beta  *float64 `yaml:"beta,omitempty"`   // smoothing step beta, z <- z + beta (x - z)
	MY    *float64 `yaml:"m_y,omitempty"`    // dual safeguard radius M_y
	CTau  *float64 `yaml:"c_tau,omitempty"`  // c_tau in tau = min{1/(2 L_K), c_tau/(L_K sqrt T)}
	CBeta *float64 `yaml:"c_beta,omitempty"` // c_beta in beta = c_beta tau mu
	Scale *float64 `yaml:"scale,omitempty"`  // alm: sigma, the agents minimise sigma f
	C     *float64 `yaml:"c,omitempty"`      // dadmm family: edge penalty c
	Gamma *float64 `yaml:"gamma,omitempty"`  // dadmm: proximal weight gamma
	K     *int     `yaml:"k,omitempty"`      // dadmm_composition: rounds K per outer iteration
	Batch *int     `yaml:"batch,omitempty"`  // dadmm_composition: mini-batch of g_hat
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
}

// Output sets where results go.
type Output struct {
	// Dir is the parent of the results/<run-id>/ bundles.
	Dir string `yaml:"dir"`
}

// Interval is a closed interval [lo, hi] written as a two-element YAML
// sequence; either bound may be infinite (.inf, -.inf).
type Interval [2]float64

// Lo is the lower bound.
func (iv Interval) Lo() float64 { return iv[0] }

// Hi is the upper bound.
func (iv Interval) Hi() float64 { return iv[1] }

// source remembers where a scenario came from so that validation can
// point at the line of each key.
type source struct {
	file string         // as given to Parse
	dir  string         // directory that relative paths are resolved in
	pos  map[string]Pos // dotted key -> where its value was written
}

// Source is the file name the scenario was parsed from.
func (s *Scenario) Source() string { return s.src.file }
