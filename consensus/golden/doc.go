// Package golden pins the bits of short deterministic runs: the final
// iterates of ALM and D-ADMM agents driven in lockstep (package
// consensus/lockstep) on generated problems, random topologies and random
// edge draws, compared with math.Float64bits against constants recorded
// in its tests. A change to those constants is a change to every run's
// bits.
//
// The runs exercise every stream of common randomness the algorithms use
// (graph.StreamErdosRenyi, StreamRandomP, the edge draws, StreamSample,
// StreamProblem, StreamInit, StreamLoss), the arithmetic kernels of
// consensus/alm, consensus/dadmm and objective, and the step
// sizes taken from spectra (graph.SymEigenvalue: alm.ConstantsFor and
// D-ADMM's default tau_i = N/L_i), and the logistic gradient (problem's
// portable exp). They pass with the same bits on amd64 at every GOAMD64
// level and on arm64. They leave out what is not yet under the package
// graph rule "Floating point": exact prox solves (gonum's Cholesky) and
// the loss values (math.Log1p), which only reports and references read.
//
// The CHOCO-SGD runs pin the compression operators (rand_k, qsgd) and
// their stream graph.StreamCompress, and the resets of the neighbours'
// copies after lost messages.
//
// golden has no non-test code. Its tests import consensus/alm,
// consensus/dadmm, consensus/choco, consensus/compress,
// consensus/lockstep, objective and graph; no package may import golden.
package golden
