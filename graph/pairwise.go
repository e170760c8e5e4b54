package graph

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Rate predictions for asynchronous randomized pairwise gossip.
//
// The model is the asynchronous time model of Boyd, Ghosh, Prabhakar and
// Shah, "Randomized gossip algorithms" (IEEE Trans. Inf. Theory 52(6),
// 2006, Sec. II): agent i has a clock that ticks at the times of a
// Poisson process of rate r_i, independently of the others, so the k-th
// tick of the whole network belongs to agent i with probability r_i / R,
// R = sum_i r_i. On its tick, i picks a neighbour j with probability
// P_ij = 1/d_i (d_i the degree of i in G), the link {i, j} is present
// with its probability p_ij (the edge process of the graph), and if it
// is, both set x_i, x_j <- (x_i + x_j)/2. Tick k therefore applies
//
//	W(k) = I - (1/2) (e_i - e_j)(e_i - e_j)^T = I - (1/2) L_e
//
// with probability q_e = p_ij (r_i P_ij + r_j P_ji) / R for each edge
// e = {i, j}, and W(k) = I otherwise, independently over ticks. Every
// W(k) is symmetric with W 1 = 1, so the disagreement e_k = P x_k,
// P = I - 11^T/N, obeys e_{k+1} = W(k) e_k, and S_k = E[e_k e_k^T] evolves
// as S_{k+1} = T(S_k) with the map of GossipRates (see gossip.go) for the
// edge weights v_e = 1/2 on the edge the tick activates and 0 elsewhere:
// at most one edge is active per tick, so
//
//	a_e = E[v_e] = q_e/2,  c_ee = E[v_e^2] = q_e/4,  c_ef = 0 (e != f),
//	T(S) = S - (Abar S + S Abar) + sum_e (q_e/4) L_e S L_e,  Abar = sum_e (q_e/2) L_e.
//
// rho2 = rho(T) on the symmetric matrices S = P S P is the exact
// asymptotic mean-square contraction per tick: E||e_k||^2 decays like
// rho2^k, exactly so from a Gaussian start x_0 ~ N(0, S*) with S* the
// mode. E[W] = I - Abar is the matrix Wbar of Boyd et al.; its second
// largest eigenvalue lambda_2(E[W]) gives their bound E||e_{k+1}||^2 <=
// lambda_2(E[W]) E||e_k||^2 over one tick (E[W^T W] = E[W] since every
// W(k) is a symmetric projection), which is what their averaging-time
// theorem uses. It is an upper bound of rho2, not the rate: on a ring of
// 16 agents with r_i = 1 and p = 1, lambda_2(E[W]) = 0.99524 while
// rho2 = 0.99058.
//
// In continuous time, with K(t) ~ Poisson(R t) ticks by time t and the
// ticks independent of the W(k), E||e(t)||^2 ~ E[rho2^K(t)] =
// exp(-R (1 - rho2) t): the factor per unit time is exp(-R (1 - rho2)).

// PairwiseRates are the rate predictions of asynchronous randomized
// pairwise gossip on a graph (see PairwiseGossipRates).
type PairwiseRates struct {
	// MeanSquare is rho2, the spectral radius of S -> E[W S W^T] on the
	// symmetric matrices S = P S P: the exact long-run factor of
	// E||x_k - xbar||^2 per tick of the network.
	MeanSquare float64
	// Lambda2 is lambda_2(E[W]), the second largest eigenvalue of the
	// expected tick matrix (Boyd et al.'s Wbar): a one-tick bound of
	// E||e_{k+1}||^2 / E||e_k||^2, and so an upper bound of MeanSquare.
	Lambda2 float64
	// TotalRate is R = sum_i r_i, the ticks of the network per unit time.
	TotalRate float64
	// PerTime is exp(-R (1 - MeanSquare)), the long-run factor of
	// E||x(t) - xbar||^2 per unit of time under Poisson clocks.
	PerTime float64
	// Iterations is the number of Lanczos steps taken.
	Iterations int
	// Mode is S*, the eigenvector of MeanSquare (PSD, trace 1).
	Mode *mat.SymDense
}

// PairwiseGossipRates returns the rate predictions of asynchronous
// randomized pairwise gossip on g: agent i ticks at rate rates[i] (all 1
// when rates is nil), picks a neighbour uniformly and averages with it
// when the link is present, with probability p_ij of the edge. It fails
// if rates has the wrong length or a rate that is not positive and
// finite.
func (g *Graph) PairwiseGossipRates(rates []float64) (PairwiseRates, error) {
	q, total, err := g.pairwiseActivation(rates)
	if err != nil {
		return PairwiseRates{}, fmt.Errorf("graph: pairwise gossip rates: %w", err)
	}
	N, M := g.N, len(g.Edges)
	r := PairwiseRates{TotalRate: total, Mode: mat.NewSymDense(N, nil)}
	if N == 1 {
		r.PerTime = 1
		return r, nil
	}
	a, c := make([]float64, M), make([]float64, M*M)
	for e, qe := range q {
		a[e] = qe / 2
		c[e*M+e] = qe / 4
	}
	mo := newMoments(g, a, c)
	p := identity(N)
	projectDisagreement(p)
	theta, mode, iters, err := lanczosTop(mo.apply, projectDisagreement, p, N*(N-1)/2)
	if err != nil {
		return PairwiseRates{}, fmt.Errorf("graph: pairwise gossip rates: %w", err)
	}
	r.MeanSquare, r.Iterations = theta, iters
	r.PerTime = math.Exp(-total * (1 - theta))
	var tr float64
	for i := range N {
		tr += mode.At(i, i)
	}
	for i := range N {
		for j := i; j < N; j++ {
			r.Mode.SetSym(i, j, (mode.At(i, j)+mode.At(j, i))/(2*tr))
		}
	}
	// E[W] - 11^T/N = I - Abar - 11^T/N has the eigenvalues of E[W] on
	// 1^perp and 0 on 1; those of E[W] lie in [0, 1] (||Abar|| <= sum_e
	// q_e <= 1), so its largest is lambda_2(E[W]).
	ew := identity(N)
	ew.Sub(ew, mo.abar)
	for i := range N {
		for j := range N {
			ew.Set(i, j, ew.At(i, j)-1/float64(N))
		}
	}
	if r.Lambda2, err = symExtreme(ew, false); err != nil {
		return PairwiseRates{}, fmt.Errorf("graph: pairwise gossip rates: E[W]: %w", err)
	}
	return r, nil
}

// pairwiseActivation returns q_e = p_ij (r_i/d_i + r_j/d_j) / R for every
// edge e = {i, j} of g, the probability that a tick of the network
// averages over e, and R = sum_i r_i.
func (g *Graph) pairwiseActivation(rates []float64) ([]float64, float64, error) {
	if rates != nil && len(rates) != g.N {
		return nil, 0, fmt.Errorf("%d clock rates for %d agents", len(rates), g.N)
	}
	rate := func(i int) float64 {
		if rates == nil {
			return 1
		}
		return rates[i]
	}
	var total float64
	for i := range g.N {
		r := rate(i)
		if !(r > 0) || math.IsInf(r, 0) {
			return nil, 0, fmt.Errorf("agent %d: clock rate %v must be positive and finite", i, r)
		}
		total += r
	}
	q := make([]float64, len(g.Edges))
	for k, e := range g.Edges {
		q[k] = e.P * (rate(e.I)/float64(g.Degree(e.I)) + rate(e.J)/float64(g.Degree(e.J))) / total
	}
	return q, total, nil
}
