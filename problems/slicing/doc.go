// Package slicing is the network-slicing problem (Huang, Zhang and
// Alacaoglu, section 6.2, after Zhang et al., JSAC 2017) that the
// smoothed linearized augmented Lagrangian method solves as a distributed
// application (package consensus/slicing).
//
// K flows are placed and routed on a directed physical network (V, L):
// flow k goes from S(k) to D(k) at rate lambda(k) through the ordered
// service function chain F(k) = (f_1, ..., f_l). Its segment s = 0..l is a
// virtual flow from the host of f_s to the host of f_{s+1} (f_0 = S(k),
// f_{l+1} = D(k)). In the fraction variables of this package,
//
//	u_ij(k,s) in [0,1]: the fraction of lambda(k) that segment s sends on (i,j),
//	x_i(k,m)  in [0,1]: node i runs the m-th function of flow k (i in V_{f_m}),
//
// so that r_ij(k,s) = lambda(k) u_ij(k,s) and the rate of flow k on a link
// is r_ij(k) = sum_s r_ij(k,s) (the sum: every segment's traffic uses the
// link). The problem (6.4) and its regularized relaxation (6.5) are
//
//	min  g(u) + sigma P_eps(x),  g(u) = sum_k lambda(k) sum_(i,j) sum_s u_ij(k,s),
//	s.t. sum_j u_ij(k,s) - sum_j u_ji(k,s) = x_i(k,s) - x_i(k,s+1)  (conservation, every i, k, s),
//	     sum_{i in V_{f_m}} x_i(k,m) = 1                            (assignment, implied by conservation),
//	     sum_k lambda(k) sum_s u_ij(k,s) <= C_ij                   (link capacity),
//	     sum_k sum_m lambda(k) x_i(k,m) <= mu_i                    (node capacity),
//
// with x_i(k,0) = 1[i = S(k)] and x_i(k,l+1) = 1[i = D(k)], and
// P_eps(x) = sum_{k,m} ( sum_{i in V_{f_m}} (x_i(k,m) + eps)^p - c_{eps,m} ),
// c_{eps,m} = (1+eps)^p + (|V_{f_m}| - 1) eps^p, p in (0,1), eps > 0. The
// paper's sigma (regularizer weight) and mu_i (node capacity) are called
// RegWeight and NodeCap in code. Capacity rows are divided by their
// capacity and get a slack in [0,1], so the feasible set X of the ALM is
// the box [0,1]^n and every constraint is an equality row of A w = b
// (type Model).
//
// The package owns the instance model (Instance, Validate,
// DecodeInstance, Generate), the equality form of the relaxation (Model,
// NewModel), the regularizer P_eps (Regularizer), the exact references
// (SolveLP, SolveFixed, BinaryOptimum on gonum's simplex; PathLP and
// PathFixed by column generation; BranchAndBound, the binary optimum by
// branch and price, exact on the medium instances), the measures of a point (Evaluate,
// Round), the slice picture (WriteDOT), the problem block and the
// registration of kind slicing (Problem) and its export (the MILP in free
// MPS, WriteMPS).
//
// slicing is pure: no goroutines, no clocks, no global random source; it
// reads a file only to load a scenario's instance (Problem's Build) and
// writes files only in its export (through problems/datafile). It may
// import objective, graph, consensus/registry, problems/datafile and gonum;
// it must not
// import an algorithm package (consensus/<algorithm>), node, coordinator,
// scenarios or cmd.
package slicing
