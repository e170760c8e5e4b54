package consensus

// Measure declares one named value that an algorithm's agents report in
// Report.Measures, and how the coordinator reduces the agents' values to
// the run's: the coordinator knows no algorithm, only the declarations.
type Measure struct {
	// Name is the column name in metrics.csv and metrics.jsonl: lower
	// case letters, digits and '_', distinct from the fixed columns.
	Name string
	// Reduce is how the agents' values combine.
	Reduce Reduction
	// Doc says what the value is, with its formula.
	Doc string
}

// Reduction is how the agents' values v_i of a Measure combine over the
// agents present in a round.
type Reduction string

// Reductions of Measure.Reduce.
const (
	// ReduceSum is sum_i v_i.
	ReduceSum Reduction = "sum"
	// ReduceMean is (1/N) sum_i v_i over the N agents present.
	ReduceMean Reduction = "mean"
	// ReduceMax is max_i v_i.
	ReduceMax Reduction = "max"
	// ReduceMin is min_i v_i.
	ReduceMin Reduction = "min"
	// ReduceNorm is sqrt(sum_i v_i): each agent reports its share of a
	// squared norm (for a quantity on edges, half of each incident edge's
	// square), and the run's value is the norm.
	ReduceNorm Reduction = "norm"
)
