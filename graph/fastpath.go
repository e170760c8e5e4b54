package graph

// Fast paths for the Bernoulli edge process. Each agent evaluates the
// process once per incident edge, per draw, per round, so these avoid the
// pair -> edge map lookup of Bernoulli.Active. All of them return exactly
// what Bernoulli.Active returns on the same (seed, t, d, i, j), so code
// paths can be mixed without breaking determinism.

// ActiveK reports whether edge k of b.G, e_k = {i, j}, is present in round
// t for draw d: true iff p_ij = 1 or U(seed, t, d, i, j) < p_ij. Callers
// resolve k once with Graph.EdgeIndex. It does not allocate.
func (b Bernoulli) ActiveK(t, d, k int) bool {
	e := &b.G.Edges[k]
	if e.P >= 1 {
		return true
	}
	return Uniform(b.Seed, uint64(t), uint64(d), uint64(e.I), uint64(e.J)) < e.P
}

// Present fills dst[k] = ActiveK(t, d, k) for every edge k, i.e. the
// diagonal of the edge-selection matrix of draw zeta_d in round t, and
// returns it; dst is reused when it has length |E|.
func (b Bernoulli) Present(t, d int, dst []bool) []bool {
	if len(dst) != len(b.G.Edges) {
		dst = make([]bool, len(b.G.Edges))
	}
	for k := range b.G.Edges {
		dst[k] = b.ActiveK(t, d, k)
	}
	return dst
}

// Specialize returns an EdgeProcess equivalent to b that is cheaper to
// evaluate: UniformBernoulli when every edge of b.G has the same p, and b
// itself otherwise.
func (b Bernoulli) Specialize() EdgeProcess {
	if len(b.G.Edges) == 0 {
		return b
	}
	p := b.G.Edges[0].P
	for _, e := range b.G.Edges[1:] {
		if e.P != p {
			return b
		}
	}
	return UniformBernoulli{P: p, Seed: b.Seed}
}

// UniformBernoulli is the Bernoulli edge process with the same presence
// probability P on every edge: {i, j} is present in round t, draw d iff
// P >= 1 or U(seed, t, d, i, j) < P. It needs no graph and no lookup; it
// must only be asked about edges of the graph it stands for.
type UniformBernoulli struct {
	P    float64
	Seed uint64
}

// Active implements EdgeProcess.
func (u UniformBernoulli) Active(t, d, i, j int) bool {
	if u.P >= 1 {
		return true
	}
	if i > j {
		i, j = j, i
	}
	return Uniform(u.Seed, uint64(t), uint64(d), uint64(i), uint64(j)) < u.P
}
