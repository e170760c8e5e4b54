// Package golden pins the bits of short deterministic runs: the final
// iterates of ALM and D-ADMM agents driven in lockstep (package
// consensus/lockstep) on generated problems, random topologies and random
// edge draws, compared with math.Float64bits against constants recorded
// in its tests. A change to those constants is a change to every run's
// bits.
//
// The runs exercise every stream of common randomness the algorithms use
// (graph.StreamErdosRenyi, StreamRandomP, the edge draws, StreamSample,
// StreamProblem) and the arithmetic kernels of consensus/alm,
// consensus/dadmm and consensus/problem. They avoid the quantities a run
// takes from gonum's eigen- and Cholesky solvers (step sizes from
// spectra, exact prox solves), which are not under the kernels'
// rounding rule (see package graph, "Floating point"), so that the same
// test gives the same bits on amd64 at every GOAMD64 level and on arm64.
//
// golden has no non-test code. Its tests import consensus/alm,
// consensus/dadmm, consensus/lockstep, consensus/problem and graph; no
// package may import golden.
package golden
