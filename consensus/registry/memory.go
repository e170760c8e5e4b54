package registry

// What the memory estimate of a scenario (scenarios.EstimateMemory) asks
// of the registered entries. Both interfaces are optional: an entry that
// does not implement them is estimated with the documented defaults.

// Defaults of the memory estimate for an algorithm whose Params does not
// implement VectorFootprint. They are those of the primal-dual methods
// that ship with consim: x_i, z_i, a gradient scratch, a report scratch,
// a step scratch and a spare per agent, and a received iterate and an
// edge dual per neighbour.
const (
	DefaultVectorsPerAgent    = 6
	DefaultVectorsPerNeighbor = 2
)

// VectorFootprint is implemented by an algorithm's Params that tells the
// memory estimate how many float64 vectors of the problem's dimension
// each agent keeps for the whole run.
type VectorFootprint interface {
	// VectorsPerAgent is the number of dim-long vectors an agent holds
	// whatever its degree (iterates, duals of its own, scratch), >= 0.
	VectorsPerAgent() int
	// VectorsPerNeighbor is the number of dim-long vectors it holds per
	// neighbour (received iterates, edge duals and their replicas), >= 0.
	VectorsPerNeighbor() int
}

// ProblemSize is what a problem's instance will hold per agent, known
// before the instance is generated or loaded.
type ProblemSize struct {
	// Dim is n, the length of each agent's block x_i (the longest block
	// when they differ).
	Dim int
	// Floats is the number of float64 values of data (rows x features,
	// labels, matrices) that one agent's local objective holds; a value
	// for the mean agent, so it may be fractional.
	Floats float64
}

// Sizer is implemented by a problem's Params that can say, from its keys
// and without generating the data or loading a data file (it may scan a
// file's shape), how large the instance for n agents will be. The memory
// estimate of a scenario uses it to refuse a run that cannot fit before
// anything is allocated.
type Sizer interface {
	// Size returns the per-agent sizes of the instance for n agents; a
	// zero field takes the estimate's default.
	Size(n int) ProblemSize
}
