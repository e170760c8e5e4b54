// Package adpsgd implements asynchronous decentralized parallel
// stochastic gradient descent (AD-PSGD; Lian, Zhang, Zhang and Liu,
// "Asynchronous decentralized parallel stochastic gradient descent",
// ICML 2018, Algorithm 1) as asynchronous agents
// (consensus.AsyncAgent), with a matrix-form reference.
//
// Agent i holds x_i in R^n and computes, one after the other, stochastic
// gradients of f_i: a computation starts at the agent's current iterate,
// which it reads as xhat_i, and takes one clock interval (the run's clock
// model: a compute time per gradient, longer for a straggler). When it
// is done (OnTick), with g_i = G_i(xhat_i, xi_i^u) the gradient on agent
// i's samples of its u-th step (graph.SeedSample(seed, u, i)), agent i
// averages with a neighbour j drawn with probability 1/d_i, through the
// pairwise exchange of package exchange, and steps:
//
//	x_i, x_j <- (x_i + x_j)/2               (Algorithm 1, line 5; j when i's request arrives)
//	x_i      <- x_i - alpha_u g_i            (line 6; i when j's reply arrives)
//
// then starts its next computation. If the neighbour is busy with an
// exchange of its own (a refusal) or the link is absent (the request
// comes back), agent i steps without averaging. Meanwhile i may be the
// neighbour of other agents' exchanges: x_i moves under the running
// computation, so the gradient is taken at the stale xhat_i, as in the
// paper. With X_k in R^{N x n} stacking the x_i, the global sequence of
// events is
//
//	X_{k+1} = W(k) X_k               (an exchange commits, pair {i_k, j_k})
//	X_{k+1} = X_k - alpha e_i g_i^T  (agent i steps)
//
// with W(k) = I - (1/2)(e_i - e_j)(e_i - e_j)^T; Xhat_i <- X_i whenever
// agent i starts a computation (Xhat_0 = X_0). This is the paper's
// X_{k+1} = X_k W_k - gamma dg(Xhat_k; xi_k, i_k) (Section 3) with the
// averaging and the gradient step of one update as two events. Reference
// computes it in matrix form on the sequence of events the runtime
// reports.
//
// Steps: alpha_u = alpha (schedule constant) or alpha / sqrt(u+1)
// (schedule sqrt), u the agent's own steps; the gradient is G_i (a
// minibatch, gradient stochastic) or grad f_i (gradient full): the step
// rules and keys of package dgd, whose synchronous D-PSGD is the
// counterpart this method is compared with.
//
// Reports: X = x_i, Round its updates (its steps and the averages it
// took part in), GradEvals the samples (or full gradients) drawn, and
// exchange.Measures.
//
// adpsgd imports consensus, consensus/exchange, consensus/registry,
// consensus/dgd (its step rules), consensus/pairwise (the averages of its
// reference), objective, graph and gonum; it must not import node,
// coordinator, scenarios or cmd.
package adpsgd
