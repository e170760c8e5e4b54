// Package slicing is network slicing (Huang, Zhang and Alacaoglu, section
// 6.2) as a distributed application of the smoothed linearized augmented
// Lagrangian method, Algorithm 1: one agent per network node, each holding
// the variables and rows of its node in the equality form A w = b, w in
// [0,1]^n, of the problem's regularized relaxation (6.5). The problem
// itself (instance, model, exact references, measures) is package
// problems/slicing's, imported here as problem.
//
// The package owns the matrix-form ALM (Reference), the per-node agents
// (Agent, a consensus.Agent), the step rules (Config, Practical), the
// final stage that turns the ALM's point into a binary slice (Stage: a
// flood-and-fix dive, repair cycles and a priced local search on the
// placement that the agents run over their links)
// and the runs (Run, the registration slicing_alm). The problem (instance model,
// generator, the exact LP and binary references, the measures) is
// problems/slicing; the table experiment is experiments/slicing.
//
// slicing is pure: no file I/O, no goroutines, no clocks, no global random
// source. It imports consensus, consensus/lockstep, consensus/registry,
// problems/slicing, graph and gonum only; it must not import node,
// coordinator, scenarios or cmd.
package slicing
