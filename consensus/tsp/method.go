package tsp

// Method is one bilevel solver run step by step: TSP or a baseline.
type Method interface {
	// Name is the method's name in tables and plots.
	Name() string
	// Step runs one (outer) iteration.
	Step()
	// Point returns the current x and y (the solver's own slices: copy
	// them to keep them).
	Point() (x, y []float64)
	// Evals is the number of oracle calls so far.
	Evals() int64
	// Multiplier is the current weight of the lower-level constraint:
	// TSP's lambda, the penalty gamma_k or c_k, BOME's lambda_k.
	Multiplier() float64
}

// Method names.
const (
	NameTSP  = "TSP"
	NameBOME = "BOME"
	NamePBGD = "PBGD"
	NameMEHA = "MEHA"
)

// Name returns "TSP".
func (s *TSP) Name() string { return NameTSP }

// Point returns (x^r, y^r).
func (s *TSP) Point() (x, y []float64) { return s.X, s.Y }

// Evals returns the oracle calls so far.
func (s *TSP) Evals() int64 { return s.GradEvals }

// Multiplier returns lambda^r.
func (s *TSP) Multiplier() float64 { return s.Lambda }
