// Package dadmm implements decentralized consensus ADMM over a random
// time-varying graph as per-agent state machines (consensus.Agent), with
// centralized matrix-form references that consume the same draws:
//
//	min_x f(x) = (1/N) sum_i f_i(x),
//
// reformulated with a copy x_i per agent and the constraints x_i = x_j on
// the edges. Agent runs one of two methods (Config.Method);
// CompositionAgent is a third, for composition objectives.
//
// MethodExact is the decentralized ADMM of Shi, Ling, Yuan, Wu and Yin
// (2014), "On the linear convergence of the ADMM in decentralized
// consensus optimization", in its per-agent form:
//
//	x_i^{k+1} = argmin_x (1/N) f_i(x) + <a_i^k, x> + c sum_{j in N_i(k)} ||x - (x_i^k + x_j^k)/2||^2
//	a_i^{k+1} = a_i^k + c sum_{j in N_i(k)} (x_i^{k+1} - x_j^{k+1})
//
// computed with the exact proximal oracle of f_i (problem.ProxOf), plus an
// optional proximal term (gamma/2)||x - x_i^k||^2 (Config.Gamma, 0 by
// default). In stacked form, with D_k and A_k the degree and adjacency
// matrices of the edges present in round k (both kron I_n),
//
//	(1/N) grad f(x^{k+1}) + a^k + 2c D_k x^{k+1} + gamma (x^{k+1} - x^k) - c (D_k + A_k) x^k = 0
//	a^{k+1} = a^k + c (D_k - A_k) x^{k+1}.
//
// MethodLinearized replaces the argmin by one step on the linearized
// subproblem with the stochastic gradient G_i(x_i^k, xi_i^k) and the
// proximal term (1/(2 tau))||x - x_i^k||^2, whose minimizer is closed form:
//
//	x_i^{k+1} = x_i^k - [ (1/N) G_i(x_i^k) + a_i^k + c sum_{j in N_i(k)} (x_i^k - x_j^k) ] / (2c d_i(k) + 1/tau),
//
// a gradient step of length 1/(2c d_i(k) + 1/tau) <= tau, with d_i(k) = |N_i(k)|.
//
// CompositionAgent (decentralized com-SVR-ADMM) is the linearized method
// for agents whose objective is a stochastic composition, for instance a
// mean-variance portfolio whose periods are split across agents
// (portfolio.Split): it carries com-SVR-ADMM's splitting x_i = w_i with the
// regularizer on w_i and uses its variance-reduced composition estimator
// as the local gradient; with N = 1 it is com-SVR-ADMM (Yu and Huang,
// Algorithm 1 with A = I, B = -I) on the same samples. Its samples are
// drawn per outer iteration rather than per round, see CompositionConfig;
// the estimator is admm.Estimator, the one com-SVR-ADMM itself uses.
// The problem's side (package problems/portfolio) presents a shard's
// P_i = F_i + R as an objective.Local (portfolio.Local) and assembles
// f = (1/N) sum_i P_i with its exact optimum (portfolio.Central), so that
// a run's optimality gap is measured like any other problem's.
//
// # One exchange per round
//
// Round t of an agent is: draw the round's edges E(t) (graph.DrawDual),
// send x_i to the present neighbours and receive their x_j, then the dual
// step with the freshly received x_j, then the primal step with the same
// x_j. The paper's iteration k exchanges twice (x^k for the primal step,
// x^{k+1} for the dual step); here the dual step of the paper's iteration k
// is deferred to the start of round k+1, where the exchange that brings
// x_j^{k+1} for the next primal step serves it too. Hence the index shift:
//
//   - round 0 takes no dual step (a^0 = 0);
//   - after round t an agent holds x_i^{t+1} and a_i^t of the paper, i.e.
//     its dual lags its primal by one half-iteration;
//   - the dual step a^{t} = a^{t-1} + c (D_t - A_t) x^t uses the edges of
//     round t, the same edges as the primal step that follows it. On a
//     static graph the iterates are exactly the paper's; on a time-varying
//     graph the paper's ordering would form a^t over E(t-1), which would
//     need a second exchange.
//
// # Absent edges and dropouts
//
// An edge absent from the round's draw, or whose x_j did not arrive
// (Inbox.Missing), contributes nothing to the round: neither to a_i's
// increment nor to the primal step (d_i counts only the live edges). The
// duals only accumulate over live edges. sum_i a_i changes by
// c sum_{i} sum_{j live at i} (x_i - x_j), which is zero when both
// endpoints see the same live edge set (every edge's two terms cancel), so
// sum_i a_i stays 0, the condition under which a consensual fixed point
// is optimal. Under asymmetric loss (i hears j but j not i) one term is
// left over, sum_i a_i drifts away from 0, and the consensual fixed point
// solves (1/N) sum_i grad f_i(x) = -sum_i a_i instead: the method then
// converges (if at all) to a biased point.
//
// An agent isolated in round t, one with graph neighbours but no live edge
// (d_i(t) = 0: none present in the draw, or every present neighbour's
// message lost), takes no step in either method:
//
//	x_i^{t+1} = x_i^t,  a_i^t = a_i^{t-1}   when d_i(t) = 0 < |N_i|,
//
// as in ADMM under random activation (Iutzeler et al. 2013, Wei and
// Ozdaglar 2013), where only the endpoints of active edges update. The
// dual increment is zero anyway (no live edge); the point is the primal
// step. MethodExact with gamma = 0 would keep x_i regardless (its
// subproblem argmin (1/N) f_i + <a_i, x> is not a prox and may be
// unbounded). MethodLinearized would take x_i <- x_i - tau ((1/N) G_i +
// a_i): a step along the dual a_i that no edge term opposes. On a sparse
// draw an agent is isolated in most rounds (on a ring at p = 0.2, with
// probability 0.8^2 = 0.64), and those unopposed steps drove the
// linearized method to divergence; skipping them removes the cause. An
// agent without graph neighbours (N = 1) is never isolated, so with one
// agent the methods are still the proximal point method and SGD.
//
// # Optimality and reports
//
// x* solves the consensus problem iff x_i = x* for all i and there are a_i
// with (1/N) grad f_i(x*) + a_i = 0 and sum_i a_i = 0 (the a_i are the
// multipliers of the consensus constraints, aggregated per agent). An
// agent's Report gives X = x_i, its kkt share ||(1/N) grad f_i(x_i) + a_i||^2
// (its block of the stationarity residual; the consensus part is measured
// from the X of all agents), its dual share ||a_i||^2 (a_i is held by agent i
// alone), and GradEvals, the stochastic gradient samples drawn (0 for
// MethodExact, which uses the prox oracle only).
//
// Reference and CompositionReference are the centralized stacked
// iterations on the same edge draws and samples, used to verify the
// agents.
//
// dadmm imports consensus, objective, consensus/admm, problems/portfolio,
// graph and gonum only.
package dadmm
