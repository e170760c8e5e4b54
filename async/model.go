package async

import (
	"fmt"
	"math"

	"github.com/consim/consim/graph"
)

// Distributions of Dist.Kind: the names of the runtime's fault delays
// (scenario keys faults.delay.dist), in simulated time units.
const (
	// DistNone is 0 always.
	DistNone = "none"
	// DistFixed is Mean always.
	DistFixed = "fixed"
	// DistUniform is uniform on [Min, Max].
	DistUniform = "uniform"
	// DistExponential has mean Mean: Poisson events of rate 1/Mean.
	DistExponential = "exponential"
)

// Dists lists the allowed values of Dist.Kind.
var Dists = []string{DistNone, DistFixed, DistUniform, DistExponential}

// Dist is a distribution of non-negative durations: clock intervals or
// link latencies.
type Dist struct {
	// Kind is one of Dists.
	Kind string
	// Mean is the value of DistFixed and the mean of DistExponential.
	Mean float64
	// Min and Max bound DistUniform.
	Min, Max float64
}

// Validate checks the kind and that exactly its parameters are set:
// none, a finite Mean >= 0 for fixed and exponential, 0 <= Min <= Max <
// +Inf for uniform.
func (d Dist) Validate() error {
	finite := func(x float64) bool { return x >= 0 && !math.IsInf(x, 0) }
	switch d.Kind {
	case DistNone:
		if d.Mean != 0 || d.Min != 0 || d.Max != 0 {
			return fmt.Errorf("distribution %q takes no mean, min or max", d.Kind)
		}
	case DistFixed, DistExponential:
		if !finite(d.Mean) {
			return fmt.Errorf("mean %v: must be finite and >= 0", d.Mean)
		}
		if d.Min != 0 || d.Max != 0 {
			return fmt.Errorf("distribution %q takes a mean, not min and max", d.Kind)
		}
	case DistUniform:
		if !finite(d.Min) || !finite(d.Max) || d.Min > d.Max {
			return fmt.Errorf("[min, max] = [%v, %v]: need 0 <= min <= max, finite", d.Min, d.Max)
		}
		if d.Mean != 0 {
			return fmt.Errorf("distribution %q takes min and max, not a mean", d.Kind)
		}
	default:
		return fmt.Errorf("distribution %q: must be one of %v", d.Kind, Dists)
	}
	return nil
}

// Expected returns the distribution's mean.
func (d Dist) Expected() float64 {
	switch d.Kind {
	case DistFixed, DistExponential:
		return d.Mean
	case DistUniform:
		return (d.Min + d.Max) / 2
	}
	return 0
}

// Quantile returns the duration at probability u in [0, 1).
func (d Dist) Quantile(u float64) float64 {
	switch d.Kind {
	case DistFixed:
		return d.Mean
	case DistExponential:
		return graph.Exponential(u, d.Mean)
	case DistUniform:
		return d.Min + float64((d.Max-d.Min)*u)
	}
	return 0
}

// Clock is the agents' clock model: agent i's k-th interval is
// Slowdown(i) Dist.Quantile(U(seed, k, graph.StreamTick, i, 0)).
type Clock struct {
	// Dist is the distribution of an interval; its mean must be > 0.
	Dist Dist
	// Stragglers are agents whose intervals are Slowdown times longer.
	Stragglers []int
	// Slowdown is the factor of the stragglers' intervals, >= 1.
	Slowdown float64
	// Seed is the run seed.
	Seed uint64

	slow map[int]bool
}

// Validate checks the clock for n agents and indexes its stragglers; the
// other methods need it called first.
func (c *Clock) Validate(n int) error {
	if err := c.Dist.Validate(); err != nil {
		return fmt.Errorf("async: clock: %w", err)
	}
	if !(c.Dist.Expected() > 0) {
		return fmt.Errorf("async: clock: mean interval %v: must be > 0", c.Dist.Expected())
	}
	if len(c.Stragglers) > 0 && (!(c.Slowdown >= 1) || math.IsInf(c.Slowdown, 0)) {
		return fmt.Errorf("async: clock: slowdown %v: must be finite and >= 1", c.Slowdown)
	}
	c.slow = make(map[int]bool, len(c.Stragglers))
	for _, i := range c.Stragglers {
		if i < 0 || i >= n {
			return fmt.Errorf("async: clock: straggler %d: must be an agent in [0, %d)", i, n)
		}
		if c.slow[i] {
			return fmt.Errorf("async: clock: straggler %d listed twice", i)
		}
		c.slow[i] = true
	}
	return nil
}

// Factor returns agent i's slowdown: Slowdown for a straggler, else 1.
func (c *Clock) Factor(i int) float64 {
	if c.slow[i] {
		return c.Slowdown
	}
	return 1
}

// Interval returns agent i's k-th clock interval.
func (c *Clock) Interval(i int, k int64) float64 {
	u := graph.StreamTick.Uniform(c.Seed, uint64(k), uint64(i), 0)
	return c.Factor(i) * c.Dist.Quantile(u)
}

// Rates returns the agents' mean tick rates 1/(Slowdown(i) Mean), as
// graph.PairwiseGossipRates takes them.
func (c *Clock) Rates(n int) []float64 {
	r := make([]float64, n)
	for i := range r {
		r[i] = 1 / (c.Factor(i) * c.Dist.Expected())
	}
	return r
}

// Link is the links' model: latencies and presence (see the package
// documentation).
type Link struct {
	// Graph is the run's graph: messages that need a draw go to
	// neighbours.
	Graph *graph.Graph
	// Process is the edge process that decides presence.
	Process graph.EdgeProcess
	// Slot is the simulated time per round of Process, > 0.
	Slot float64
	// Latency is the distribution of a message's latency.
	Latency Dist
	// Seed is the run seed.
	Seed uint64
}

// linkPhases is the number of message draws per direction of a link in
// one slot before they repeat: StreamLink.Phase takes 2*linkPhases
// phases.
const linkPhases = graph.MaxPhase / 2

// Validate checks the link model.
func (l *Link) Validate() error {
	if l.Graph == nil || l.Process == nil {
		return fmt.Errorf("async: link: a graph and an edge process are required")
	}
	if !(l.Slot > 0) || math.IsInf(l.Slot, 0) {
		return fmt.Errorf("async: link: slot %v: must be finite and > 0", l.Slot)
	}
	if err := l.Latency.Validate(); err != nil {
		return fmt.Errorf("async: link: latency: %w", err)
	}
	return nil
}

// Delay returns the latency of message seq of agent from to agent to.
func (l *Link) Delay(from, to int, seq int64) float64 {
	switch l.Latency.Kind {
	case DistNone:
		return 0
	case DistFixed:
		return l.Latency.Mean
	}
	return l.Latency.Quantile(graph.StreamLatency.Uniform(l.Seed, uint64(seq), uint64(from), uint64(to)))
}

// Present reports whether message seq of agent from, sent to its
// neighbour to at time s, finds its link present.
func (l *Link) Present(s float64, from, to int, seq int64) bool {
	ph := 2 * int(seq%linkPhases)
	if from > to {
		ph++
	}
	round := int(math.Floor(s / l.Slot))
	return l.Process.Active(round, int(graph.StreamLink.Phase(ph)), min(from, to), max(from, to))
}
