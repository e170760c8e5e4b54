// Package observe computes every measure of a decentralized run from the
// agents' reports: the consensus error, the objective and optimality gap
// at the average iterate, the feasibility of the consensus constraint,
// the drift of the edge duals' replicas, the algorithms' declared measures
// reduced over the agents, the divergence test, and the statistics over
// runs (rates, fits, summaries) that reproductions report. Every engine
// measures through it: the coordinator, the stepped engine (whose workers
// compute a Measurement's chunks in parallel, with the same bits), the
// registry's evaluators and the experiments. Package observe/bundle writes
// the results bundle.
//
// Summation order is part of the numerics: every sum over agents or edges
// runs in ascending order, in chunks of Chunk terms (see Chunk), so the
// same reports give the same bits whatever computes them.
//
// observe is pure math: no I/O, no goroutines, no clocks. It may import
// consensus, consensus/registry, objective and graph; it must not import
// node, coordinator, stepped, scenarios or cmd.
package observe
