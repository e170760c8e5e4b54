// Package asyncadmm implements the asynchronous randomized ADMM with one
// dual per edge (Wei and Ozdaglar, "On the O(1/k) convergence of
// asynchronous distributed alternating direction method of multipliers",
// GlobalSIP 2013; Iutzeler, Bianchi, Ciblat and Hachem, "Asynchronous
// distributed optimization using a randomized alternating direction
// method of multipliers", CDC 2013) as asynchronous agents
// (consensus.AsyncAgent): the per-edge form of package radmm, with one
// edge activated at a time by an agent's clock instead of a round's set
// of present edges.
//
// The problem min_x (1/N) sum_i f_i(x) is split as in package radmm:
// x_i = z_e and x_j = z_e on every edge e = {i, j} (i < j), with one
// dual y_e per edge oriented from i. Agent i holds x_i and, for every
// incident edge, z_e and y_e. On a tick of its (Poisson) clock it picks
// a neighbour j with probability 1/d_i and activates e = {i, j} through
// the pairwise exchange of package exchange: both endpoints take the
// exact x-step from their current edge variables, then the edge's z and
// dual step from the two new iterates (Wei and Ozdaglar's Algorithm 1
// restricted to the active edge; radmm's round with E(t) = {e}):
//
//	x_k <- prox_{f_k}(v_k, N rho d_k),  v_k = (sum_{e' at k} z_e' - Lambda_k/rho) / d_k,   k = i, j
//	z_e <- (x_i + x_j)/2,  y_e <- y_e + (rho/2)(x_i - x_j),
//
// Lambda_k = sum_{e' at k} s_k y_e' (radmm.ExactX, radmm.EdgeStep). The
// initiator computes its x-step when it sends the request (its x_i+)
// and adopts it when the reply brings x_j+; the neighbour computes its
// own when the request arrives and answers with it, so both write the
// same z_e and y_e from the same operands. A refused or lost request
// discards x_i+: nothing changes. With the exchange's lock, the state an
// endpoint steps from is its state at the commit (the neighbour handles
// the request), so the run is radmm's matrix-form Reference stepped once
// per commit with only the committed edge active: the reference of this
// package's tests.
//
// Only the exact method: the x-step needs the prox of f_i
// (objective.ProxOf), which least_squares has.
//
// Reports: X = x_i, Round its updates (the exchanges it took part in),
// exchange.Measures.
//
// asyncadmm imports consensus, consensus/exchange, consensus/radmm,
// consensus/registry, objective and graph; it must not import node,
// coordinator, scenarios or cmd.
package asyncadmm
