// Package fair solves fairness-constrained linear classification (package
// problems/fairness, problem (6.6) of the stochastic smoothed linearized
// ALM paper) by the paper's Algorithm 1.
//
// Solve is Algorithm 1 in one process (the exact covariance row, or the
// stochastic-constraint form that estimates it on each mini-batch); Agent
// is its data-parallel form, agents holding shards of the rows and
// all-reducing their partial sums, bit-identical to Solve on the same
// shards. Algorithm registers it as fair_alm, the runtime's agents on a
// problem of kind fairness, with Solve as its matrix-form reference; Table
// is the paper's experiment.
//
// The package is pure: no I/O, no goroutines. fair imports consensus,
// consensus/registry, problems/fairness, graph and gonum only; it must not
// import node, coordinator, scenarios, dataset or cmd.
package fair
