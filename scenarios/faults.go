package scenarios

import (
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/node"
)

// Faults declares the runtime fault models (package node): message loss
// and delay at the transport, bounded staleness, node crashes and
// stragglers. Every fault event is drawn from the run seed's common
// randomness, so a scenario replays exactly.
type Faults struct {
	Loss  Loss  `yaml:"loss"`
	Delay Delay `yaml:"delay"`
	// Staleness is S: a message missing at the deadline is replaced by
	// the latest one of the same sender and phase from rounds t-S..t-1;
	// 0 turns it off.
	Staleness int `yaml:"staleness"`
	// Crashes stop agents at given rounds.
	Crashes Crashes `yaml:"crashes,omitempty"`
	// OnDeparture is one of Departures: whether the run goes on over the
	// remaining agents when an agent crashes for good, or fails.
	OnDeparture string     `yaml:"on_departure"`
	Stragglers  Stragglers `yaml:"stragglers"`
}

// Loss drops each data frame from i to j with probability Rate, per
// direction independently (both together when Symmetric).
type Loss struct {
	Rate float64 `yaml:"rate"`
	// Edges, if set, restricts the loss to these directed pairs [i, j].
	Edges     EdgePairs `yaml:"edges,flow,omitempty"`
	Symmetric bool      `yaml:"symmetric"`
}

// Delay postpones every data frame by a duration drawn from Dist.
type Delay struct {
	// Dist is one of Dists.
	Dist string   `yaml:"dist"`
	Mean Duration `yaml:"mean"`
	Min  Duration `yaml:"min"`
	Max  Duration `yaml:"max"`
}

// Crash stops Agent at the start of round At; RestartAfter > 0 brings it
// back that many rounds later with its State kept or lost.
type Crash struct {
	Agent        int `yaml:"agent"`
	At           int `yaml:"at"`
	RestartAfter int `yaml:"restart_after"`
	// State is one of CrashStates; empty means kept.
	State string `yaml:"state,omitempty"`
}

// Crashes is the list of faults.crashes.
type Crashes []Crash

// AgentList is a list of agent ids.
type AgentList []int

// Stragglers slows Agents (all when empty) by a compute time per round
// drawn from Dist.
type Stragglers struct {
	Dist   string    `yaml:"dist"`
	Mean   Duration  `yaml:"mean"`
	Min    Duration  `yaml:"min"`
	Max    Duration  `yaml:"max"`
	Agents AgentList `yaml:"agents,flow,omitempty"`
}

// Allowed values of the fault keys.
const (
	DistNone        = "none"
	DistFixed       = "fixed"
	DistUniform     = "uniform"
	DistExponential = "exponential"

	CrashStateKept = "kept"
	CrashStateLost = "lost"

	DepartureContinue = "continue"
	DepartureFail     = "fail"
)

// Dists lists the values of faults.delay.dist and faults.stragglers.dist.
func Dists() []string { return []string{DistNone, DistFixed, DistUniform, DistExponential} }

// CrashStates lists the values of faults.crashes[k].state.
func CrashStates() []string { return []string{CrashStateKept, CrashStateLost} }

// Departures lists the values of faults.on_departure.
func Departures() []string { return []string{DepartureContinue, DepartureFail} }

// Active reports whether f injects any fault.
func (f Faults) Active() bool {
	return f.Loss.Rate > 0 || f.Delay.Dist != DistNone || f.Staleness > 0 ||
		len(f.Crashes) > 0 || f.Stragglers.Dist != DistNone
}

// ContinueOnDeparture reports whether the run goes on when an agent
// crashes for good.
func (f Faults) ContinueOnDeparture() bool { return f.OnDeparture == DepartureContinue }

// Node returns the runtime fault models of f, drawn from seed. Rebuild
// (for crashes that lose state) is left to the caller, which owns the
// agents.
func (f Faults) Node(seed uint64) node.Faults {
	nf := node.Faults{
		Seed:      seed,
		Loss:      node.Loss{Rate: f.Loss.Rate, Symmetric: f.Loss.Symmetric},
		Delay:     node.Dist{Kind: node.DistKind(f.Delay.Dist), Mean: f.Delay.Mean.Std(), Min: f.Delay.Min.Std(), Max: f.Delay.Max.Std()},
		Staleness: f.Staleness,
		Stragglers: node.Stragglers{
			Dist:   node.Dist{Kind: node.DistKind(f.Stragglers.Dist), Mean: f.Stragglers.Mean.Std(), Min: f.Stragglers.Min.Std(), Max: f.Stragglers.Max.Std()},
			Agents: slices.Clone([]int(f.Stragglers.Agents)),
		},
	}
	for _, e := range f.Loss.Edges {
		nf.Loss.Edges = append(nf.Loss.Edges, e)
	}
	for _, c := range f.Crashes {
		nf.Crashes = append(nf.Crashes, node.Crash{Agent: c.Agent, At: c.At, RestartAfter: c.RestartAfter, LoseState: c.State == CrashStateLost})
	}
	return nf
}

// decodeYAML reads a sequence of crash mappings.
func (cs *Crashes) decodeYAML(d *decoder, n *yaml.Node, key string) {
	*cs = nil
	for k, en := range sequence(d, n, key, "a sequence of {agent, at, restart_after, state}") {
		var c Crash
		d.value(en, reflect.ValueOf(&c).Elem(), elemKey(key, k))
		*cs = append(*cs, c)
	}
}

// decodeYAML reads a sequence of agent ids; an empty one means none.
func (as *AgentList) decodeYAML(d *decoder, n *yaml.Node, key string) {
	*as = nil
	if n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
		return
	}
	*as = intSequence(d, n, key, "a sequence [i, j, ...] of agent ids")
}

// faults checks the faults section: rates in [0, 1], known distributions
// with their parameters, agent ids in [0, agents), crash rounds in
// [0, rounds) with the restart inside the run, and restarts only for
// algorithms whose agents can rejoin (alm).
func (v *validator) faults() {
	f := v.s.Faults
	n := v.s.Agents
	if !(f.Loss.Rate >= 0 && f.Loss.Rate <= 1) {
		v.fail("faults.loss.rate", "%s is outside [0, 1]", registry.Num(f.Loss.Rate))
	}
	if len(f.Loss.Edges) > 0 && f.Loss.Rate == 0 {
		v.fail("faults.loss.edges", "has no effect with faults.loss.rate 0")
	}
	for k, e := range f.Loss.Edges {
		if e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n || e[0] == e[1] {
			v.fail(elemKey("faults.loss.edges", k), "[%d, %d]: need two distinct agents in [0, %d)", e[0], e[1], n)
		}
	}
	v.dist("faults.delay", f.Delay.Dist, f.Delay.Mean, f.Delay.Min, f.Delay.Max)
	v.dist("faults.stragglers", f.Stragglers.Dist, f.Stragglers.Mean, f.Stragglers.Min, f.Stragglers.Max)
	for _, i := range f.Stragglers.Agents {
		if i < 0 || i >= n {
			v.fail("faults.stragglers.agents", "agent %d is outside [0, %d)", i, n)
		}
	}
	if f.Staleness < 0 {
		v.fail("faults.staleness", "must be an integer >= 0, got %d", f.Staleness)
	}
	if a, ok := v.s.registry().Algorithm(v.s.Algorithm.Name); ok && a.SendsDeltas && f.Staleness > 0 {
		v.fail("faults.staleness", "algorithm %s sends changes to state its neighbours keep: an earlier round's message cannot stand in for a missing one; leave staleness out", a.Name)
	}
	v.oneOf("faults.on_departure", f.OnDeparture, Departures())
	for k, c := range f.Crashes {
		key := elemKey("faults.crashes", k)
		if c.Agent < 0 || c.Agent >= n {
			v.fail(key+".agent", "agent %d is outside [0, %d)", c.Agent, n)
		}
		if c.At < 0 || c.At >= v.s.Rounds {
			v.fail(key+".at", "round %d is outside [0, rounds = %d)", c.At, v.s.Rounds)
		}
		if c.State != "" {
			v.oneOf(key+".state", c.State, CrashStates())
		}
		switch {
		case c.RestartAfter < 0:
			v.fail(key+".restart_after", "must be an integer >= 0 (0 = never), got %d", c.RestartAfter)
		case c.RestartAfter == 0 && c.State != "":
			v.fail(key+".state", "only applies with restart_after > 0")
		case c.RestartAfter > 0 && c.At+c.RestartAfter >= v.s.Rounds:
			v.fail(key+".restart_after", "restart at round %d is not before rounds = %d (use 0 for no restart)", c.At+c.RestartAfter, v.s.Rounds)
		case c.RestartAfter > 0 && !v.canRejoin():
			v.fail(key+".restart_after", "a restart needs agents that can rejoin a later round; algorithm %s cannot (those that can: %s)",
				v.s.Algorithm.Name, strings.Join(v.rejoining(), ", "))
		}
		for _, o := range f.Crashes[:k] {
			if o.Agent == c.Agent && (o.RestartAfter == 0 || o.At+o.RestartAfter > c.At) && o.At <= c.At {
				v.fail(key+".at", "agent %d is still down from its crash at round %d", c.Agent, o.At)
				break
			}
		}
	}
}

// canRejoin reports whether the scenario's algorithm can rejoin after a
// crash.
func (v *validator) canRejoin() bool {
	a, ok := v.s.registry().Algorithm(v.s.Algorithm.Name)
	return ok && a.CanRejoin
}

// rejoining lists the registered algorithms that can rejoin.
func (v *validator) rejoining() []string {
	reg := v.s.registry()
	var names []string
	for _, n := range reg.Algorithms() {
		if a, _ := reg.Algorithm(n); a.CanRejoin {
			names = append(names, n)
		}
	}
	return names
}

// dist checks a duration distribution at key: none with no parameters,
// fixed and exponential with mean > 0, uniform with 0 <= min <= max, max > 0.
func (v *validator) dist(key, dist string, mean, lo, hi Duration) {
	if !v.oneOf(key+".dist", dist, Dists()) {
		return
	}
	switch dist {
	case DistNone:
		for _, p := range []struct {
			name string
			d    Duration
		}{{"mean", mean}, {"min", lo}, {"max", hi}} {
			if p.d != 0 {
				v.fail(key+"."+p.name, "only used with dist %s", strings.Join([]string{DistFixed, DistUniform, DistExponential}, ", "))
			}
		}
	case DistFixed, DistExponential:
		if mean <= 0 {
			v.fail(key+".mean", "must be a duration > 0 for dist %s, got %s", dist, mean)
		}
		if lo != 0 || hi != 0 {
			v.fail(key+".min", "only used with dist %s", DistUniform)
		}
	case DistUniform:
		if lo < 0 || hi < lo || hi == 0 {
			v.fail(key+".max", "[%s, %s]: need 0 <= min <= max, max > 0", lo, hi)
		}
		if mean != 0 {
			v.fail(key+".mean", "not used with dist %s (set min and max)", DistUniform)
		}
	}
}

// faultsDefault is the default faults section: nothing injected, and a
// departure fails the run.
func faultsDefault() Faults {
	return Faults{
		Delay:       Delay{Dist: DistNone},
		OnDeparture: DepartureFail,
		Stragglers:  Stragglers{Dist: DistNone},
	}
}
