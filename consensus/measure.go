package consensus

// Measure declares one named column of a run's metrics: a value that the
// agents report in Report.Measures, which the coordinator reduces to the
// run's as Reduce says, or, when Evaluated, a value that the run's
// evaluator computes from the round's reports. The coordinator knows no
// algorithm, only the declarations.
type Measure struct {
	// Name is the column name in metrics.csv and metrics.jsonl: lower
	// case letters, digits and '_', distinct from the fixed columns.
	Name string
	// Reduce is how the agents' values combine; for an Evaluated measure
	// it documents how the evaluator combines them.
	Reduce Reduction
	// Doc says what the value is, with its formula.
	Doc string
	// Evaluated is set for a value that the agents do not report: the
	// run's evaluator computes it from every agent's report.
	Evaluated bool
}

// Names of the primal-dual measures that several algorithms declare (each
// in its own Measures, with its own formula in the doc).
const (
	// MeasureKKT is the norm of the KKT residual: each agent reports the
	// squared norm of its block, reduced by ReduceNorm.
	MeasureKKT = "kkt"
	// MeasureDualNorm is ||y||: each agent reports its share of ||y||^2
	// (half of a dual it holds with a peer, all of one it holds alone),
	// reduced by ReduceNorm.
	MeasureDualNorm = "dual_norm"
	// MeasureResets counts dual safeguard resets: each agent reports its
	// share (1/N of a global reset, 1/2 of a per-edge one), reduced by
	// ReduceSum.
	MeasureResets = "resets"
)

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
