package graph

import "fmt"

// Time-varying directed graphs. A Sequence is a periodic sequence of
// digraphs G_0, ..., G_{P-1} on the same agents, round t using
// G_{t mod P}: the setting of subgradient-push (Nedic and Olshevsky,
// "Distributed optimization over time-varying directed graphs", whose
// B-strong connectivity holds with B = P: the union of the graphs of
// every P consecutive rounds is strongly connected) with no single round
// connected.

// Sequence is a periodic sequence of digraphs whose union is strongly
// connected.
type Sequence struct {
	phases []*Digraph
	union  *Digraph
}

// NewSequence returns the periodic sequence of the given digraphs, which
// must be on the same agents and whose union must be strongly connected.
// An arc may appear in several of them, with a probability of its own in
// each.
func NewSequence(phases []*Digraph) (*Sequence, error) {
	if len(phases) == 0 {
		return nil, fmt.Errorf("graph: sequence of digraphs: need at least one")
	}
	n := phases[0].N
	sum := map[[2]int]float64{}
	var keys [][2]int
	for k, d := range phases {
		if d == nil || d.N != n {
			return nil, fmt.Errorf("graph: sequence of digraphs: phase %d is not a digraph on %d agents", k, n)
		}
		for _, a := range d.Arcs {
			key := [2]int{a.From, a.To}
			if _, seen := sum[key]; !seen {
				keys = append(keys, key)
			}
			sum[key] += a.P
		}
	}
	arcs := make([]Arc, len(keys))
	for k, key := range keys {
		arcs[k] = Arc{From: key[0], To: key[1], P: sum[key] / float64(len(phases))}
	}
	union, err := NewDigraph(n, arcs)
	if err != nil {
		return nil, fmt.Errorf("graph: sequence of digraphs: union: %w", err)
	}
	if !union.StronglyConnected() {
		return nil, fmt.Errorf("graph: sequence of %d digraphs on %d agents: the union of a period (%d arcs) is not strongly connected", len(phases), n, len(union.Arcs))
	}
	return &Sequence{phases: append([]*Digraph(nil), phases...), union: union}, nil
}

// SplitSequence splits the arcs of d over period digraphs: the arc i -> j
// goes, with its p_ij, to G_k for k = floor(period U(seed, 0,
// StreamSequence, i, j)), so that every arc is in exactly one phase and
// the union of a period is d itself. d must be strongly connected and
// period >= 1.
func SplitSequence(d *Digraph, period int, seed uint64) (*Sequence, error) {
	if period < 1 {
		return nil, fmt.Errorf("graph: split a digraph into %d phases: need at least 1", period)
	}
	parts := make([][]Arc, period)
	for _, a := range d.Arcs {
		k := int(StreamSequence.Uniform(seed, 0, uint64(a.From), uint64(a.To)) * float64(period))
		parts[k] = append(parts[k], a)
	}
	phases := make([]*Digraph, period)
	for k, arcs := range parts {
		var err error
		if phases[k], err = NewDigraph(d.N, arcs); err != nil {
			return nil, fmt.Errorf("graph: split a digraph into %d phases: phase %d: %w", period, k, err)
		}
	}
	return NewSequence(phases)
}

// Period returns P, the number of digraphs in the sequence.
func (s *Sequence) Period() int { return len(s.phases) }

// At returns G_{t mod P}, the digraph of round t >= 0.
func (s *Sequence) At(t int) *Digraph { return s.phases[t%len(s.phases)] }

// Union returns the digraph of the arcs that appear in some phase, each
// with its mean presence probability over a period, (1/P) sum_k p_ij^(k)
// (p_ij^(k) = 0 where G_k lacks the arc): the probability that it is
// present in a round drawn uniformly from the period.
func (s *Sequence) Union() *Digraph { return s.union }

// SequenceArcs is the arc process of a Sequence: the arc i -> j is present
// in round t for draw d iff it is an arc of G_{t mod P} and its Bernoulli
// draw with G_{t mod P}'s p_ij succeeds (as ArcBernoulli draws it).
type SequenceArcs struct {
	S    *Sequence
	Seed uint64
}

// ArcUp implements ArcProcess.
func (s SequenceArcs) ArcUp(t, d, i, j int) bool {
	return arcDraw(s.Seed, t, d, i, j, s.S.At(t).P(i, j))
}
