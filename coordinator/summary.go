package coordinator

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/node"
)

// Run outcomes (Summary.Status).
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
	// StatusStopped: agents stopped early on a stop control that this
	// coordinator did not send; Reason names the agent and the control's
	// reason (its origin), and Run returns ErrStoppedElsewhere.
	StatusStopped = "stopped"
	// StatusDiverged: a measured round's iterates became NaN or Inf, or a
	// measure passed Config.DivergeBound; Reason names the round and the
	// measure, and Run returns ErrDiverged.
	StatusDiverged = "diverged"
)

// Stop causes (Summary.StopCause).
const (
	StopRounds       = "rounds"            // every agent finished its rounds
	StopTolerance    = "tolerance"         // a tolerance was met; Stop published
	StopNotReady     = "not_ready"         // ErrNotReady
	StopAgentFailed  = "agent_failed"      // ErrAgentFailed
	StopDeparted     = "departed"          // ErrAgentDeparted
	StopUnresponsive = "unresponsive"      // ErrUnresponsive
	StopTimeout      = "timeout"           // ErrTimeout
	StopInterrupted  = "interrupted"       // the context was cancelled
	StopError        = "error"             // any other error (evaluation, files, transport)
	StopElsewhere    = "stopped_elsewhere" // ErrStoppedElsewhere
	StopDiverged     = "diverged"          // ErrDiverged
	StopLost         = "agent_lost"        // ErrAgentLost
	StopScenario     = "scenario_mismatch" // ErrScenarioMismatch
)

// Param is one resolved parameter or constant of the algorithm in
// summary.json.
type Param struct {
	Name string `json:"name"`
	// Value is written as a JSON number, or as the string "inf", "-inf"
	// or "nan" (which float() in most languages reads) when not finite.
	Value float64 `json:"value"`
	Note  string  `json:"note,omitempty"`
}

// MarshalJSON writes p with a non-finite Value as a string.
func (p Param) MarshalJSON() ([]byte, error) {
	type plain Param
	if !math.IsInf(p.Value, 0) && !math.IsNaN(p.Value) {
		return json.Marshal(plain(p))
	}
	v := "nan"
	switch {
	case math.IsInf(p.Value, 1):
		v = "inf"
	case math.IsInf(p.Value, -1):
		v = "-inf"
	}
	return json.Marshal(struct {
		Name  string `json:"name"`
		Value string `json:"value"`
		Note  string `json:"note,omitempty"`
	}{p.Name, v, p.Note})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (p *Param) UnmarshalJSON(data []byte) error {
	var raw struct {
		Name  string          `json:"name"`
		Value json.RawMessage `json:"value"`
		Note  string          `json:"note"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	p.Name, p.Note = raw.Name, raw.Note
	var s string
	if json.Unmarshal(raw.Value, &s) == nil {
		switch s {
		case "inf":
			p.Value = math.Inf(1)
		case "-inf":
			p.Value = math.Inf(-1)
		case "nan":
			p.Value = math.NaN()
		default:
			return fmt.Errorf("param %s: value %q: want a number, inf, -inf or nan", p.Name, s)
		}
		return nil
	}
	return json.Unmarshal(raw.Value, &p.Value)
}

// ParamsOf converts resolved values to summary Params.
func ParamsOf(vs []registry.Value) []Param {
	ps := make([]Param, len(vs))
	for i, v := range vs {
		ps[i] = Param{Name: v.Name, Value: v.Value, Note: v.Note}
	}
	return ps
}

// Summary is summary.json: the outcome of a run.
type Summary struct {
	RunID  string `json:"run_id"`
	Status string `json:"status"` // StatusOK, StatusFailed or StatusStopped
	// Reason says why a failed run failed; empty when ok.
	Reason    string `json:"reason,omitempty"`
	StopCause string `json:"stop_cause"`
	Agents    int    `json:"agents"`
	// RoundsPlanned and ReportEvery are Config.Rounds and ReportEvery.
	RoundsPlanned int `json:"rounds_planned"`
	ReportEvery   int `json:"report_every"`
	// Rounds is the number of rounds every agent is known to have
	// completed: the least, over agents, of the last round reported.
	Rounds int `json:"rounds"`
	// MeasuredRounds is the number of lines of metrics.jsonl.
	MeasuredRounds int `json:"measured_rounds"`
	// Initial and Final are the first and last measured rounds.
	Initial   *Row          `json:"initial,omitempty"`
	Final     *Row          `json:"final,omitempty"`
	Reduction Reduction     `json:"reduction"`
	Traffic   TrafficTotals `json:"traffic"`
	// Faults lists the agents that failed, departed or stopped answering.
	Faults []Fault `json:"faults,omitempty"`
	// StartedAt is when Run began; ReadySeconds the wait for the ready
	// statuses; WallSeconds the time from Start to the end of the run.
	StartedAt    time.Time `json:"started_at"`
	ReadySeconds float64   `json:"ready_s"`
	WallSeconds  float64   `json:"wall_s"`
	// RoundsPerSec is Rounds / WallSeconds.
	RoundsPerSec float64 `json:"rounds_per_s"`
	// Resumed is set when this coordinator resumed the run of one that
	// died (Config.Resume): the times above, the rate and the rows'
	// elapsed times are its own, and count the replay of the statuses
	// published before it started.
	Resumed bool `json:"resumed,omitempty"`
	// Params are the algorithm's resolved parameters and constants, in
	// the algorithm's order.
	Params []Param        `json:"params,omitempty"`
	Meta   map[string]any `json:"meta,omitempty"`
	// Bundle is the results directory.
	Bundle string `json:"bundle"`
}

// Reduction holds how many times measures shrank over the run, counted
// from the first measured row (round 0: the run's documented starting
// point, scenarios' problem.init) to the last: initial/final. A ratio is
// present only when both values are finite and positive, so a run that
// starts at zero consensus error (the zero start, where every agent holds
// the same x_0) has no consensus ratio from round 0: its error first rises
// as the agents pull towards their local models, and ConsensusPeak counts
// the fall from the highest point instead.
type Reduction struct {
	// FromRound and ToRound are the rounds of the first and last measured
	// rows, the ends every ratio below but ConsensusPeak's is counted
	// between.
	FromRound    int      `json:"from_round"`
	ToRound      int      `json:"to_round"`
	ConsensusErr *float64 `json:"consensus_err,omitempty"`
	OptGap       *float64 `json:"opt_gap,omitempty"`
	Feasibility  *float64 `json:"feasibility,omitempty"`
	DistToOpt    *float64 `json:"dist_to_opt,omitempty"`
	// Measures holds the ratios of the algorithm's declared measures
	// (Row.Extra) by name, for those with a ratio.
	Measures map[string]float64 `json:"measures,omitempty"`
	// ConsensusPeak is the largest consensus error measured, when it lies
	// above the first row's (the error rose before it fell): its round,
	// its value and the fall from it to the last row. Absent when the
	// first row is the largest, where the fall from the peak is
	// ConsensusErr.
	ConsensusPeak *Peak `json:"consensus_peak,omitempty"`
}

// Peak is the largest value of a measure over a run's measured rows.
type Peak struct {
	// Round is the first measured round holding Value.
	Round int     `json:"round"`
	Value float64 `json:"value"`
	// Reduction is Value/final, the fall from the peak to the last
	// measured row; absent unless both are finite and positive.
	Reduction *float64 `json:"reduction,omitempty"`
}

// peakOf returns the running peak after a measured value v at round t:
// p, or {t, v} when v is finite and above p's value (or p is nil).
func peakOf(p *Peak, t int, v float64) *Peak {
	if math.IsNaN(v) || math.IsInf(v, 0) || p != nil && v <= p.Value {
		return p
	}
	return &Peak{Round: t, Value: v}
}

// TrafficTotals sums the agents' latest traffic counters (see
// node.Traffic) and counts the status frames the coordinator dropped.
type TrafficTotals struct {
	MsgsSent      int64 `json:"msgs_sent"`
	BytesSent     int64 `json:"bytes_sent"`
	MsgsRecv      int64 `json:"msgs_recv"`
	BytesRecv     int64 `json:"bytes_recv"`
	Dropouts      int64 `json:"dropouts"`
	ReduceMissing int64 `json:"reduce_missing"`
	Late          int64 `json:"late"`
	Unexpected    int64 `json:"unexpected"`
	Malformed     int64 `json:"malformed"`
	// Injected faults (see node.Faults): data frames dropped by the loss
	// model and postponed by the delay model, missing messages replaced
	// by stale ones, frames discarded by crashed agents.
	InjectedLoss     int64 `json:"injected_loss,omitempty"`
	Delayed          int64 `json:"delayed,omitempty"`
	StaleUsed        int64 `json:"stale_used,omitempty"`
	DroppedWhileDown int64 `json:"dropped_while_down,omitempty"`
	// DropoutsByEdge counts dropouts per edge "i-j" (i < j), both
	// directions together.
	DropoutsByEdge map[string]int64 `json:"dropouts_by_edge,omitempty"`
	// StatusMalformed counts status frames the coordinator dropped: not
	// decodable, an unknown kind, an agent id outside 0..N-1, or a report
	// that contradicts its status.
	StatusMalformed int64 `json:"status_malformed"`
	// Frames dropped before they reached a round loop or the coordinator
	// (NATS): Ahead and Overflow, frames beyond an agent's window of
	// future rounds or its buffer; Refused, messages that failed the
	// run's MAC, by the agents' processes and by the coordinator, and
	// RefusedBySubject the same by NATS subject; BusMalformed, messages
	// with a valid MAC that could not be routed; InboxOverflow, frames
	// dropped at a full agent queue; SlowConsumer, messages the NATS
	// clients dropped from a full subscription (a flood). Forged or
	// replayed frames show up here, and nowhere else.
	Ahead            int64            `json:"ahead,omitempty"`
	Overflow         int64            `json:"overflow,omitempty"`
	Refused          int64            `json:"refused"`
	RefusedBySubject map[string]int64 `json:"refused_by_subject,omitempty"`
	BusMalformed     int64            `json:"bus_malformed,omitempty"`
	InboxOverflow    int64            `json:"inbox_overflow,omitempty"`
	SlowConsumer     int64            `json:"slow_consumer,omitempty"`
}

// addDrops adds the drop counters of an agent or of the observer.
func (t *TrafficTotals) addDrops(refused map[string]int64, busMalformed, inboxOverflow, slow int64) {
	for subject, n := range refused {
		if t.RefusedBySubject == nil {
			t.RefusedBySubject = make(map[string]int64)
		}
		t.RefusedBySubject[subject] += n
		t.Refused += n
	}
	t.BusMalformed += busMalformed
	t.InboxOverflow += inboxOverflow
	t.SlowConsumer += slow
}

// Fault is an agent that ended a run.
type Fault struct {
	Agent int    `json:"agent"`
	Kind  string `json:"kind"` // "failed", "unresponsive", "departed" or "lost"
	// Round is the last round the agent reported, -1 if none.
	Round   int    `json:"round"`
	Message string `json:"message"`
}

// addTraffic adds the counters of one agent id to t, its dropouts per
// edge included.
func (t *TrafficTotals) addTraffic(id int, a node.Traffic) {
	t.addCounters(a)
	for peer, n := range a.DropoutsByPeer {
		i, j := min(id, peer), max(id, peer)
		if t.DropoutsByEdge == nil {
			t.DropoutsByEdge = make(map[string]int64)
		}
		t.DropoutsByEdge[fmt.Sprintf("%d-%d", i, j)] += n
	}
}

// addCounters adds the counters of one agent to t, all but the dropouts
// per edge.
func (t *TrafficTotals) addCounters(a node.Traffic) {
	t.MsgsSent += a.MsgsSent
	t.BytesSent += a.BytesSent
	t.MsgsRecv += a.MsgsRecv
	t.BytesRecv += a.BytesRecv
	t.Dropouts += a.Dropouts
	t.ReduceMissing += a.ReduceMissing
	t.Late += a.Late
	t.Unexpected += a.Unexpected
	t.Malformed += a.Malformed
	t.InjectedLoss += a.InjectedLoss
	t.Delayed += a.Delayed
	t.StaleUsed += a.StaleUsed
	t.DroppedWhileDown += a.DroppedWhileDown
	t.Ahead += a.Ahead
	t.Overflow += a.Overflow
	t.addDrops(a.RefusedBySubject, a.BusMalformed, a.InboxOverflow, a.SlowConsumer)
}

// reduction returns the Reduction from initial to final, with the fall
// from peak, the largest consensus error measured, when peak lies above
// the initial one.
func reduction(initial, final *Row, peak *Peak) Reduction {
	if initial == nil || final == nil {
		return Reduction{}
	}
	red := Reduction{
		FromRound:    initial.Round,
		ToRound:      final.Round,
		ConsensusErr: ratio(initial.ConsensusErr, final.ConsensusErr),
		OptGap:       ratio(initial.OptGap, final.OptGap),
		Feasibility:  ratio(initial.Feasibility, final.Feasibility),
		DistToOpt:    ratio(initial.DistToOpt, final.DistToOpt),
	}
	for k, e := range final.Extra {
		if k >= len(initial.Extra) || initial.Extra[k].Name != e.Name {
			break
		}
		if r := ratio(initial.Extra[k].Value, e.Value); r != nil {
			if red.Measures == nil {
				red.Measures = make(map[string]float64)
			}
			red.Measures[e.Name] = *r
		}
	}
	if peak != nil && peak.Round > initial.Round && !(peak.Value <= initial.ConsensusErr) {
		red.ConsensusPeak = &Peak{Round: peak.Round, Value: peak.Value, Reduction: ratio(peak.Value, final.ConsensusErr)}
	}
	return red
}

// ratio returns a/b when both are finite and positive, else nil.
func ratio(a, b float64) *float64 {
	if !(a > 0 && b > 0) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return nil
	}
	r := a / b
	return &r
}
