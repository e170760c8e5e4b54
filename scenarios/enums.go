package scenarios

// Allowed values of the enumerated fields. Each list is the registry that
// Validate checks against and that error messages print.
const (
	TopologyComplete   = "complete"
	TopologyRing       = "ring"
	TopologyPath       = "path"
	TopologyGrid       = "grid"
	TopologyTorus      = "torus"
	TopologyErdosRenyi = "erdos_renyi"
	TopologyGeometric  = "geometric"
	TopologyStar       = "star"
	TopologyFile       = "file"

	EdgeModelBernoulli      = "bernoulli"
	EdgeModelGilbertElliott = "gilbert_elliott"

	ProblemLeastSquares = "least_squares"
	ProblemLogistic     = "logistic"
	ProblemNonconvex    = "nonconvex_regression"
	ProblemPortfolio    = "portfolio"

	InitRandom = "random"
	InitZero   = "zero"

	AlgorithmALM              = "alm"
	AlgorithmDADMM            = "dadmm"
	AlgorithmDADMMLinearized  = "dadmm_linearized"
	AlgorithmDADMMComposition = "dadmm_composition"

	PresetPractical = "practical"
	PresetTheory    = "theory"

	SafeguardGlobal = "global"
	SafeguardEdge   = "edge"
	SafeguardNone   = "none"

	TauConstant = "constant"
	TauSqrt     = "sqrt"

	TransportChan    = "chan"
	TransportNATS    = "nats"
	TransportNATSTCP = "nats-tcp"
)

// Topologies lists the values of graph.topology.
func Topologies() []string {
	return []string{TopologyComplete, TopologyRing, TopologyPath, TopologyGrid, TopologyTorus,
		TopologyErdosRenyi, TopologyGeometric, TopologyStar, TopologyFile}
}

// EdgeModels lists the values of edges.model.
func EdgeModels() []string { return []string{EdgeModelBernoulli, EdgeModelGilbertElliott} }

// ProblemKinds lists the values of problem.kind.
func ProblemKinds() []string {
	return []string{ProblemLeastSquares, ProblemLogistic, ProblemNonconvex, ProblemPortfolio}
}

// InitKinds lists the values of problem.init.kind.
func InitKinds() []string { return []string{InitRandom, InitZero} }

// Algorithms lists the values of algorithm.name.
func Algorithms() []string {
	return []string{AlgorithmALM, AlgorithmDADMM, AlgorithmDADMMLinearized, AlgorithmDADMMComposition}
}

// isADMM reports whether algorithm name is one of the decentralized ADMM
// family (package consensus/dadmm).
func isADMM(name string) bool {
	return name == AlgorithmDADMM || name == AlgorithmDADMMLinearized || name == AlgorithmDADMMComposition
}

// Presets lists the values of algorithm.preset.
func Presets() []string { return []string{PresetPractical, PresetTheory} }

// Safeguards lists the values of algorithm.safeguard.
func Safeguards() []string { return []string{SafeguardGlobal, SafeguardEdge, SafeguardNone} }

// TauSchedules lists the values of algorithm.tau_schedule.
func TauSchedules() []string { return []string{TauConstant, TauSqrt} }

// Transports lists the values of runtime.transport.
func Transports() []string { return []string{TransportChan, TransportNATS, TransportNATSTCP} }
