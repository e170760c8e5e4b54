// Package almstorm holds the variants of the stochastic smoothed
// linearized ALM (package alm) that the paper and its comparisons need,
// built on alm's agents and reference:
//
//   - ALM-STORM (Algorithm 3 of Huang, Zhang and Alacaoglu): the ALM whose
//     stochastic gradient is the STORM estimator of Cutkosky and Orabona,
//
//     d_0     = (1/N_0) sum_{k<N_0} grad f(x_0; xi_{0,k}),
//     d_{t+1} = grad f(x_{t+1}; xi_{t+1}) + (1 - alpha)(d_t - grad f(x_t; xi_{t+1})),
//
//     with ONE fresh sample xi_{t+1} evaluated at both x_{t+1} and x_t
//     (Estimator), registered as alm_storm with a practical preset and the
//     step rule (5.5) of Theorem 5.6 (Theory);
//
//   - the ALM with its dual steps switched off (eta = 0), registered as
//     alm_nodual: the smoothed linearized penalty method that the dual
//     updates are meant to improve on;
//
//   - the measures of section 3 that need the whole network: the
//     Moreau-envelope stationarity ||grad Psi(z)|| of the consensus problem
//     (Stationarity) and the output certificate of eq. (3.2) (Certify).
//
// The estimator is an objective.Local decorator: alm's agent calls its
// StochGrad once per round at x_t with the agent's sample stream of round
// t, and the decorator returns d_t. alm's agents, reference, safeguard and
// measures are reused unchanged, so ALM-STORM differs from the ALM in the
// gradient estimate only, as in the paper.
//
// almstorm imports consensus, consensus/alm, objective,
// consensus/registry, graph and gonum only; it must not import node,
// coordinator, scenarios or cmd.
package almstorm
