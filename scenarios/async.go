package scenarios

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/consim/consim/async"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
)

// Async runs the scenario without rounds (docs/async.md): every agent on
// its own clock, over links with latency, in simulated time on the event
// engine (package async) or in real time on the transport (package
// async/realtime). Asynchronous algorithms need it; a synchronous
// algorithm runs under it through async.Synchronous (each round one clock
// interval, then its exchanges), which times it on the same clocks and
// links. All times are in simulated units.
type Async struct {
	// Mode is one of AsyncModes; AsyncOff (the default) runs rounds.
	Mode string `yaml:"mode"`
	// Horizon is the simulated time the run lasts; required when Mode is
	// not AsyncOff.
	Horizon float64 `yaml:"horizon"`
	// Every is the period of the measures, in simulated time.
	Every float64 `yaml:"every"`
	// Clock is the distribution of an agent's clock intervals: Poisson
	// ticks (exponential), or a compute time per tick.
	Clock AsyncDist `yaml:"clock"`
	// Stragglers are slowed agents.
	Stragglers AsyncStragglers `yaml:"stragglers"`
	// Latency is the distribution of a message's latency.
	Latency AsyncDist `yaml:"latency"`
	// Slot is the simulated time per round of the edge process.
	Slot float64 `yaml:"slot"`
	// TimeScale is the wall time of one simulated unit in real time.
	TimeScale Duration `yaml:"time_scale"`
}

// AsyncDist is a distribution of durations in simulated units: Dist is
// one of Dists, with Mean for fixed and exponential, Min and Max for
// uniform.
type AsyncDist struct {
	Dist string  `yaml:"dist"`
	Mean float64 `yaml:"mean"`
	Min  float64 `yaml:"min"`
	Max  float64 `yaml:"max"`
}

// AsyncStragglers slows Agents' clocks by the factor Slowdown.
type AsyncStragglers struct {
	Agents   AgentList `yaml:"agents,flow,omitempty"`
	Slowdown float64   `yaml:"slowdown"`
}

// Values of async.mode.
const (
	AsyncOff       = "off"
	AsyncSimulated = "simulated"
	AsyncRealtime  = "realtime"
)

// AsyncModes lists the values of async.mode.
func AsyncModes() []string { return []string{AsyncOff, AsyncSimulated, AsyncRealtime} }

// asyncDefault is the default async section: off; when on, unit-rate
// Poisson clocks, no latency, a sample per time unit, one edge-process
// round per time unit, 20 ms of wall time per unit in real time.
func asyncDefault() Async {
	return Async{
		Mode:       AsyncOff,
		Every:      1,
		Clock:      AsyncDist{Dist: DistExponential, Mean: 1},
		Stragglers: AsyncStragglers{Slowdown: 10},
		Latency:    AsyncDist{Dist: DistNone},
		Slot:       1,
		TimeScale:  Duration(20 * time.Millisecond),
	}
}

// On reports whether the scenario runs asynchronously.
func (a Async) On() bool { return a.Mode != "" && a.Mode != AsyncOff }

// dist returns d as the engine's distribution.
func (d AsyncDist) dist() async.Dist {
	return async.Dist{Kind: d.Dist, Mean: d.Mean, Min: d.Min, Max: d.Max}
}

// AsyncClock returns the clock model of an asynchronous scenario.
func (s *Scenario) AsyncClock() async.Clock {
	return async.Clock{Dist: s.Async.Clock.dist(), Stragglers: []int(s.Async.Stragglers.Agents), Slowdown: s.Async.Stragglers.Slowdown, Seed: s.Seed}
}

// AsyncLink returns the link model of an asynchronous scenario on the
// built setup's graph and edge process.
func (st *Setup) AsyncLink() async.Link {
	s := st.Scenario
	return async.Link{Graph: st.Graph, Process: st.Process, Slot: s.Async.Slot, Latency: s.Async.Latency.dist(), Seed: s.Seed}
}

// async checks the async section: a known mode; when on, a horizon and
// the models, the round-only keys at their defaults (rounds, metrics.every,
// runtime.phase_deadline, edges.same_draw, edges.replay), no runtime
// faults, and a transport of goroutines in real time; when off, every
// other async key at its default.
func (v *validator) async() {
	s := v.s
	a := s.Async
	if !v.oneOf("async.mode", a.Mode, AsyncModes()) {
		return
	}
	if e, ok := s.registry().Algorithm(s.Algorithm.Name); ok && e.Async && !a.On() {
		v.fail("algorithm.name", "algorithm %s is asynchronous: set async.mode to %s or %s (see docs/async.md)", s.Algorithm.Name, AsyncSimulated, AsyncRealtime)
	}
	if a.On() && Directed(s.Graph.Topology) {
		v.fail("graph.topology", "async.mode %s runs over undirected links; topology %s is directed", a.Mode, s.Graph.Topology)
	}
	if !a.On() {
		def := reflect.ValueOf(asyncDefault())
		got := reflect.ValueOf(a)
		for _, k := range leafKeys(def.Type(), "") {
			if k != "mode" && !reflect.DeepEqual(valueAt(got, k).Interface(), valueAt(def, k).Interface()) {
				v.fail("async."+k, "only used with async.mode %s or %s", AsyncSimulated, AsyncRealtime)
			}
		}
		return
	}
	if v.required("async.horizon", a.Horizon == 0, "a simulated time > 0") {
		v.positive("async.horizon", a.Horizon)
	}
	v.positive("async.every", a.Every)
	v.positive("async.slot", a.Slot)
	before := len(v.errs.list)
	v.agentIDs("async.stragglers.agents", a.Stragglers.Agents, s.Agents)
	if sd := a.Stragglers.Slowdown; !(sd >= 1) || math.IsInf(sd, 0) {
		v.fail("async.stragglers.slowdown", "must be a finite number >= 1, got %s", registry.Num(sd))
	}
	stragglersOK := len(v.errs.list) == before
	clock := s.AsyncClock()
	switch err := clock.Dist.Validate(); {
	case err != nil:
		v.fail("async.clock", "%v", err)
	case !(clock.Dist.Expected() > 0):
		v.fail("async.clock", "the mean interval must be > 0, got %s", registry.Num(clock.Dist.Expected()))
	case stragglersOK:
		// What is left to fail is a straggler listed twice.
		if err := clock.Validate(s.Agents); err != nil {
			v.fail("async.stragglers.agents", "%s", strings.TrimPrefix(err.Error(), "async: clock: "))
		}
	}
	if err := a.Latency.dist().Validate(); err != nil {
		v.fail("async.latency", "%v", err)
	}
	def := Default()
	for _, r := range []struct {
		key string
		set bool
	}{
		{"rounds", s.Rounds != 0},
		{"metrics.every", s.Metrics.Every != def.Metrics.Every},
		{"runtime.phase_deadline", s.Runtime.PhaseDeadline != def.Runtime.PhaseDeadline},
		{"edges.same_draw", s.Edges.SameDraw},
		{"edges.replay", s.Edges.Replay != ""},
	} {
		if r.set {
			v.fail(r.key, "not used with async.mode %s: the run lasts async.horizon, measured every async.every, and draws every message's link", a.Mode)
		}
	}
	if s.Faults.Active() {
		v.fail("faults", "runtime faults are not injected in async mode: links drop with the edge process (edges), are slowed by async.latency, and agents by async.stragglers")
	}
	if a.Mode == AsyncRealtime {
		if s.Runtime.Transport == TransportStepped {
			v.fail("runtime.transport", "async.mode %s runs a goroutine per agent on chan, nats or nats-tcp, not %s", AsyncRealtime, TransportStepped)
		}
		if a.TimeScale <= 0 {
			v.fail("async.time_scale", "must be a duration > 0, got %s", a.TimeScale)
		}
	}
}

// AsyncAgents builds the agents of an asynchronous scenario: the
// algorithm's own asynchronous agents, or its round-based agents wrapped
// by async.Synchronous.
func (st *Setup) AsyncAgents() ([]consensus.AsyncAgent, error) {
	as := make([]consensus.AsyncAgent, st.Scenario.Agents)
	ar, isAsync := st.Run.(registry.AsyncRunner)
	for i := range as {
		if isAsync {
			a, err := ar.AsyncAgent(i)
			if err != nil {
				return nil, fmt.Errorf("scenarios: agent %d: %w", i, err)
			}
			as[i] = a
			continue
		}
		a, err := st.Agent(i)
		if err != nil {
			return nil, err
		}
		as[i] = async.NewSynchronous(a)
	}
	return as, nil
}
