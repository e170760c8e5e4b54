// Package compress owns compressed vectors: the compression operators Q of
// compressed gossip (top-k and random-k sparsification, the stochastic
// quantizer qsgd_s), error feedback, and the compact wire form of a
// compressed vector (Encoding, AppendPayload, DecodePayload, PayloadLen),
// which every runtime uses to carry and count a message.
//
// # Operators
//
// An Operator maps x in R^n to q = Q(x). Its quality is the contraction
// parameter delta in (0, 1] of Koloskova, Stich and Jaggi (ICML 2019,
// "Decentralized stochastic optimization and gossip algorithms with
// compressed communication"; their compression quality, written omega in
// the first arXiv version):
//
//	E_Q ||Q(x) - x||^2 <= (1 - delta) ||x||^2   for all x in R^n,
//
// the expectation over the operator's own randomness. delta = 1 is exact
// communication. Operator.Delta gives the delta of each operator for a
// dimension n, and the package's tests measure it.
//
//   - top_k: keep the k entries of largest |x_l| (ties: lower index),
//     zero the rest; delta = k/n, deterministic.
//   - rand_k: keep k entries chosen uniformly without replacement; delta =
//     k/n (CHOCO's biased rand_k: the kept entries are not rescaled).
//   - qsgd: the quantizer qsgd_s of Alistarh et al. (NeurIPS 2017) with s =
//     2^b - 1 levels and the vector's norm, rescaled by 1/tau as CHOCO uses
//     it (below); delta = 1/tau.
//   - none: q = x, delta = 1.
//
// The rescaled qsgd_s is
//
//	Q(x)_l = sign(x_l) ||x||_2 / (s tau) * floor(s |x_l| / ||x||_2 + xi_l),
//
// xi_l ~ U[0, 1) independent, tau = 1 + omega, omega = min(n/s^2,
// sqrt(n)/s). Without the 1/tau it is unbiased with variance E||Q_u(x) -
// x||^2 <= omega ||x||^2 (Alistarh et al., Lemma 3.1), and then
// E||Q_u/tau - x||^2 = E||Q_u - x||^2/tau^2 + (1 - 1/tau)^2 ||x||^2 <=
// (omega/tau) ||x||^2 = (1 - 1/tau) ||x||^2.
//
// The randomness of rand_k and qsgd comes from the *rand.Rand the caller
// passes, which agents seed from the common randomness (graph.StreamCompress
// of the run seed, the round and the agent), so that a run replays bit for
// bit and a matrix-form reference draws the same q.
//
// # Wire form
//
// Every operator returns, with q, the Encoding that carries q exactly:
// Sparse (the entries whose bits are not zero: delta-varint indices and
// IEEE 754 values) or Quantized (b-bit levels, sign bits and the scale
// ||x|| / (s tau)). AppendPayload writes the compact payload of a vector
// under an encoding and fails if the vector does not have that form;
// DecodePayload gives back the same float64 bits, so a receiver holds
// exactly the q its sender computed. PayloadLen is the one function that
// says how many bytes a message's values take on the wire, under every
// driver.
//
// compress is pure: no I/O, no goroutines, no clocks, no global random
// source. It imports only the standard library; every package may import
// it.
package compress
