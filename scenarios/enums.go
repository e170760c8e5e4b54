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

	// The directed topologies (see Directed).
	TopologyDirectedRing     = "directed_ring"
	TopologyDigraph          = "digraph"
	TopologyKOut             = "k_out"
	TopologyDirectedSequence = "directed_sequence"

	EdgeModelBernoulli      = "bernoulli"
	EdgeModelGilbertElliott = "gilbert_elliott"

	InitRandom = "random"
	InitZero   = "zero"

	TransportChan    = "chan"
	TransportNATS    = "nats"
	TransportNATSTCP = "nats-tcp"
	// TransportStepped steps the agents in lockstep on a pool of
	// GOMAXPROCS workers (package stepped): no goroutine per agent, no
	// faults or deadlines.
	TransportStepped = "stepped"
)

// Topologies lists the values of graph.topology.
func Topologies() []string {
	return []string{TopologyComplete, TopologyRing, TopologyPath, TopologyGrid, TopologyTorus,
		TopologyErdosRenyi, TopologyGeometric, TopologyStar, TopologyFile,
		TopologyDirectedRing, TopologyDigraph, TopologyKOut, TopologyDirectedSequence}
}

// EdgeModels lists the values of edges.model.
func EdgeModels() []string { return []string{EdgeModelBernoulli, EdgeModelGilbertElliott} }

// InitKinds lists the values of problem.init.kind.
func InitKinds() []string { return []string{InitRandom, InitZero} }

// Transports lists the values of runtime.transport.
func Transports() []string {
	return []string{TransportChan, TransportNATS, TransportNATSTCP, TransportStepped}
}
