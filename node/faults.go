package node

import (
	"fmt"
	"slices"
	"time"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
)

// Faults declares the runtime fault models of a run: message loss and
// delay injected at the transport, bounded staleness in the round loop,
// node crashes and stragglers. The zero value injects nothing.
//
// Every fault event is a pure function of the common randomness
// graph.Hash(Seed, round, stream, a, b), in the streams graph.StreamLoss,
// graph.StreamDelay (phase by phase) and graph.StreamStraggle, so a
// run with the same seed loses, delays and slows the same messages and
// agents under every transport, and replays exactly. The models act under
// the agent code: the agent sees them only as dropouts, late or stale
// messages.
type Faults struct {
	// Seed is the seed of the fault draws (usually the run seed; the fault
	// streams keep them independent of the edge and sample draws).
	Seed uint64
	// Loss drops data frames at the sender.
	Loss Loss
	// Delay postpones every data frame by a drawn amount.
	Delay Dist
	// Staleness is S: when the message of (t, ph) from j is missing at the
	// deadline, the latest message received from j in phase ph of rounds
	// t-S..t-1 is delivered in its place (Traffic.StaleUsed). 0 turns it
	// off: a missing message is a dropout.
	Staleness int
	// Crashes stop agents at given rounds, for good or for a while.
	Crashes []Crash
	// Stragglers slow agents down by a drawn compute time per round.
	Stragglers Stragglers
	// Rebuild returns agent id in its initial state. It is required by a
	// crash that loses its state (Crash.LoseState).
	Rebuild func(id int) (consensus.Agent, error)
}

// Loss drops a data frame from agent i to agent j with probability Rate,
// per direction independently: the frame of (t, ph) is lost iff
// U(Seed, t, graph.StreamLoss.Phase(ph), i, j) < Rate. Dropped frames are
// counted in the sender's Traffic.InjectedLoss and reach the receiver as
// dropouts at its deadline; a lost message costs the receiver a full phase
// deadline, as a real loss would, so runs with loss want a short phase
// deadline.
type Loss struct {
	// Rate is the loss probability, in [0, 1].
	Rate float64
	// Edges, if not empty, restricts the loss to these directed edges
	// (from, to); other frames are never lost.
	Edges [][2]int
	// Symmetric draws one uniform per edge {i, j} and (t, ph), so both
	// directions are lost together (the draw uses the ordered pair
	// (min, max)). With Edges, a listed direction makes both lossy.
	Symmetric bool
}

// DistKind names a distribution of durations.
type DistKind string

// Distributions of Dist.
const (
	// DistNone is no duration (also the empty kind).
	DistNone DistKind = "none"
	// DistFixed is the constant Mean.
	DistFixed DistKind = "fixed"
	// DistUniform is uniform on [Min, Max].
	DistUniform DistKind = "uniform"
	// DistExponential is exponential with mean Mean.
	DistExponential DistKind = "exponential"
)

// DistKinds lists the distributions Dist accepts.
var DistKinds = []DistKind{DistNone, DistFixed, DistUniform, DistExponential}

// Dist is a distribution of durations, sampled by inverse transform from
// a uniform u in [0, 1).
type Dist struct {
	Kind     DistKind
	Mean     time.Duration
	Min, Max time.Duration
}

// active reports whether d draws positive durations.
func (d Dist) active() bool { return d.Kind != "" && d.Kind != DistNone }

// validate checks the parameters of d.
func (d Dist) validate(what string) error {
	switch d.Kind {
	case "", DistNone:
		return nil
	case DistFixed, DistExponential:
		if d.Mean <= 0 {
			return fmt.Errorf("node: options: %s %s: mean %v must be positive", what, d.Kind, d.Mean)
		}
	case DistUniform:
		if d.Min < 0 || d.Max < d.Min || d.Max == 0 {
			return fmt.Errorf("node: options: %s uniform [%v, %v]: need 0 <= min <= max, max > 0", what, d.Min, d.Max)
		}
	default:
		return fmt.Errorf("node: options: %s: unknown distribution %q: want one of %v", what, d.Kind, DistKinds)
	}
	return nil
}

// sample returns the duration of quantile u in [0, 1): Mean for fixed,
// Min + u (Max - Min) for uniform, graph.Exponential(u, Mean) for
// exponential.
func (d Dist) sample(u float64) time.Duration {
	switch d.Kind {
	case DistFixed:
		return d.Mean
	case DistUniform:
		return d.Min + time.Duration(u*float64(d.Max-d.Min))
	case DistExponential:
		return time.Duration(graph.Exponential(u, float64(d.Mean)))
	}
	return 0
}

// Crash stops agent Agent at the start of round At: it stops sending and
// receiving without a leave frame, so its peers see dropouts. With
// RestartAfter = 0 it is departed for good: it publishes a departed
// status (StatusDeparted) for the coordinator and Run returns. Otherwise
// it comes back once its peers have reached round At+RestartAfter (it
// learns their round from the frames arriving while it is down) and
// rejoins at the round they are in, with its state kept, or with the
// initial state of Faults.Rebuild when LoseState is set. If no frame of
// that round or later arrives within (RestartAfter+1) PhaseDeadline of
// the crash (no peers, or none still running), it rejoins at round
// At+RestartAfter. Rejoining needs an agent that implements Rejoiner.
type Crash struct {
	Agent        int
	At           int
	RestartAfter int
	LoseState    bool
}

// Rejoiner is an agent that can resume at a later round: Rejoin(t) makes
// round t the next one it runs, keeping its state. Agents that restart
// after a crash must implement it.
type Rejoiner interface {
	Rejoin(t int) error
}

// Stragglers delays agents by a compute time drawn per round from Dist,
// U(Seed, t, graph.StreamStraggle, i, 0): before the sends of each round the
// agent sleeps that long. Agents lists the slowed agents; empty means all.
type Stragglers struct {
	Dist
	Agents []int
}

// validate checks f for a run of n agents and the given rounds.
func (f *Faults) validate(n, rounds int) error {
	if !(f.Loss.Rate >= 0 && f.Loss.Rate <= 1) {
		return fmt.Errorf("node: options: loss rate %v outside [0, 1]", f.Loss.Rate)
	}
	for _, e := range f.Loss.Edges {
		if e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n || e[0] == e[1] {
			return fmt.Errorf("node: options: lossy edge (%d, %d): need two distinct agents in 0..%d", e[0], e[1], n-1)
		}
	}
	if err := f.Delay.validate("delay"); err != nil {
		return err
	}
	if err := f.Stragglers.Dist.validate("stragglers"); err != nil {
		return err
	}
	for _, i := range f.Stragglers.Agents {
		if i < 0 || i >= n {
			return fmt.Errorf("node: options: straggler %d outside 0..%d", i, n-1)
		}
	}
	if f.Staleness < 0 {
		return fmt.Errorf("node: options: staleness %d must not be negative", f.Staleness)
	}
	for _, c := range f.Crashes {
		switch {
		case c.Agent < 0 || c.Agent >= n:
			return fmt.Errorf("node: options: crash of agent %d outside 0..%d", c.Agent, n-1)
		case c.At < 0 || c.At >= rounds:
			return fmt.Errorf("node: options: crash of agent %d at round %d outside 0..%d", c.Agent, c.At, rounds-1)
		case c.RestartAfter < 0:
			return fmt.Errorf("node: options: crash of agent %d: restart after %d rounds must not be negative", c.Agent, c.RestartAfter)
		case c.LoseState && c.RestartAfter > 0 && f.Rebuild == nil:
			return fmt.Errorf("node: options: crash of agent %d loses its state: Faults.Rebuild is required", c.Agent)
		}
	}
	return nil
}

// injects reports whether the transport decorator is needed.
func (f *Faults) injects() bool { return f.Loss.Rate > 0 || f.Delay.active() }

// Lost reports whether the data frame of (t, ph) from i to j is dropped
// (see Loss): a pure function, which consensus/lockstep and stepped take
// as their drop function to replay a run's injected loss.
func (f *Faults) Lost(t, ph, i, j int) bool {
	l := &f.Loss
	if l.Rate <= 0 {
		return false
	}
	if len(l.Edges) > 0 && !slices.ContainsFunc(l.Edges, func(e [2]int) bool {
		return e == [2]int{i, j} || l.Symmetric && e == [2]int{j, i}
	}) {
		return false
	}
	a, b := i, j
	if l.Symmetric && a > b {
		a, b = b, a
	}
	return graph.StreamLoss.Phase(ph).Uniform(f.Seed, uint64(t), uint64(a), uint64(b)) < l.Rate
}

// delay returns the delay of the data frame of (t, ph) from i to j.
func (f *Faults) delay(t, ph, i, j int) time.Duration {
	if !f.Delay.active() {
		return 0
	}
	return f.Delay.sample(graph.StreamDelay.Phase(ph).Uniform(f.Seed, uint64(t), uint64(i), uint64(j)))
}

// straggle returns agent i's compute time in round t.
func (f *Faults) straggle(t, i int) time.Duration {
	s := &f.Stragglers
	if !s.active() || len(s.Agents) > 0 && !slices.Contains(s.Agents, i) {
		return 0
	}
	return s.sample(graph.StreamStraggle.Uniform(f.Seed, uint64(t), uint64(i), 0))
}

// crashesOf returns agent i's crashes, ascending by round.
func (f *Faults) crashesOf(i int) []Crash {
	var cs []Crash
	for _, c := range f.Crashes {
		if c.Agent == i {
			cs = append(cs, c)
		}
	}
	slices.SortFunc(cs, func(a, b Crash) int { return a.At - b.At })
	return cs
}
