package live

import (
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/consim/consim/coordinator"
)

// series is one metric of the latest measured row: its name, help, type
// and value. Gauges of a measure the run has no value for (an unknown
// optimum, no constraints) are NaN, as the row's null.
type series struct {
	name, help string
	kind       prometheus.ValueType
	get        func(p *coordinator.Progress) float64
}

// rowSeries are the metrics of the latest measured row. The counters
// and gauges named after a metrics.jsonl column hold exactly that
// column's value of the last line written (round, elapsed_s,
// consensus_err, ..., msgs, bytes); the traffic counters below them are
// the agents' latest cumulative counters, which summary.json totals.
var rowSeries = []series{
	{"consim_round", "Last measured round (the round column of the last metrics line).", prometheus.GaugeValue,
		func(p *coordinator.Progress) float64 { return float64(p.Metrics.Round) }},
	{"consim_elapsed_seconds", "Seconds from Start to the last measured round (elapsed_s).", prometheus.GaugeValue,
		func(p *coordinator.Progress) float64 { return p.Elapsed.Seconds() }},
	{"consim_rounds_per_second", "Rounds per second of wall time from Start to the last measured round.", prometheus.GaugeValue,
		func(p *coordinator.Progress) float64 { return p.RoundsPerSec }},
	{"consim_consensus_error", "Consensus error (1/N) sum_i ||x_i - xbar||^2 of the last measured round (consensus_err).", prometheus.GaugeValue,
		func(p *coordinator.Progress) float64 { return p.Metrics.ConsensusErr }},
	{"consim_consensus_error_relative", "Consensus error relative to ||xbar||^2 (consensus_err_rel).", prometheus.GaugeValue,
		func(p *coordinator.Progress) float64 { return p.Metrics.ConsensusErrRel }},
	{"consim_objective", "Objective f(xbar) of the last measured round (obj_value).", prometheus.GaugeValue,
		func(p *coordinator.Progress) float64 { return p.Metrics.ObjValue }},
	{"consim_optimality_gap", "Optimality gap f(xbar) - f* (opt_gap); NaN when f* is unknown.", prometheus.GaugeValue,
		func(p *coordinator.Progress) float64 { return p.Metrics.OptGap }},
	{"consim_distance_to_optimum", "Distance ||xbar - x*|| (dist_to_opt); NaN when x* is unknown.", prometheus.GaugeValue,
		func(p *coordinator.Progress) float64 { return p.Metrics.DistToOpt }},
	{"consim_feasibility", "Constraint violation of the last measured round (feasibility).", prometheus.GaugeValue,
		func(p *coordinator.Progress) float64 { return p.Metrics.Feasibility }},
	{"consim_dual_drift", "Dual drift of the last measured round (dual_drift).", prometheus.GaugeValue,
		func(p *coordinator.Progress) float64 { return p.Metrics.DualDrift }},
	{"consim_gradient_evaluations_total", "Gradient evaluations of all agents through the last measured round (grad_evals).", prometheus.CounterValue,
		func(p *coordinator.Progress) float64 { return float64(p.Metrics.GradEvals) }},
	{"consim_messages_sent_total", "Messages all agents sent through the last measured round (msgs).", prometheus.CounterValue,
		func(p *coordinator.Progress) float64 { return float64(p.Msgs) }},
	{"consim_bytes_sent_total", "Bytes all agents sent through the last measured round (bytes).", prometheus.CounterValue,
		func(p *coordinator.Progress) float64 { return float64(p.Bytes) }},
	{"consim_messages_received_total", "Messages all agents received, by their latest statuses.", prometheus.CounterValue,
		func(p *coordinator.Progress) float64 { return float64(p.Traffic.MsgsRecv) }},
	{"consim_bytes_received_total", "Bytes all agents received, by their latest statuses.", prometheus.CounterValue,
		func(p *coordinator.Progress) float64 { return float64(p.Traffic.BytesRecv) }},
	{"consim_dropouts_total", "Expected messages missing at a deadline, by the agents' latest statuses (summary traffic.dropouts).", prometheus.CounterValue,
		func(p *coordinator.Progress) float64 { return float64(p.Traffic.Dropouts) }},
	{"consim_refused_frames_total", "Frames that failed the run's MAC, at the agents and the coordinator (summary traffic.refused).", prometheus.CounterValue,
		func(p *coordinator.Progress) float64 { return float64(p.Traffic.Refused) }},
	{"consim_injected_loss_total", "Data frames the loss model dropped (summary traffic.injected_loss).", prometheus.CounterValue,
		func(p *coordinator.Progress) float64 { return float64(p.Traffic.InjectedLoss) }},
	{"consim_delayed_frames_total", "Data frames the delay model postponed (summary traffic.delayed).", prometheus.CounterValue,
		func(p *coordinator.Progress) float64 { return float64(p.Traffic.Delayed) }},
}

// dropReasons are the reason labels of consim_dropped_frames_total, each
// a counter of summary.json's traffic.
var dropReasons = []struct {
	reason string
	get    func(t *coordinator.TrafficTotals) int64
}{
	{"late", func(t *coordinator.TrafficTotals) int64 { return t.Late }},
	{"unexpected", func(t *coordinator.TrafficTotals) int64 { return t.Unexpected }},
	{"malformed", func(t *coordinator.TrafficTotals) int64 { return t.Malformed }},
	{"ahead", func(t *coordinator.TrafficTotals) int64 { return t.Ahead }},
	{"overflow", func(t *coordinator.TrafficTotals) int64 { return t.Overflow }},
	{"inbox_overflow", func(t *coordinator.TrafficTotals) int64 { return t.InboxOverflow }},
	{"bus_malformed", func(t *coordinator.TrafficTotals) int64 { return t.BusMalformed }},
	{"status_malformed", func(t *coordinator.TrafficTotals) int64 { return t.StatusMalformed }},
	{"dropped_while_down", func(t *coordinator.TrafficTotals) int64 { return t.DroppedWhileDown }},
}

// agentSeries are the per-agent metrics, labelled agent="ID", present for
// runs of at most coordinator.ProgressAgentsMax agents only (a bounded
// label set: 10^5 agents would make 10^5 series per metric).
var agentSeries = []struct {
	name, help string
	kind       prometheus.ValueType
	get        func(a *coordinator.AgentProgress) float64
}{
	{"consim_agent_round", "Last round the agent reported.", prometheus.GaugeValue,
		func(a *coordinator.AgentProgress) float64 { return float64(a.Round) }},
	{"consim_agent_messages_sent_total", "Messages the agent sent, by its latest status.", prometheus.CounterValue,
		func(a *coordinator.AgentProgress) float64 { return float64(a.Traffic.MsgsSent) }},
	{"consim_agent_bytes_sent_total", "Bytes the agent sent, by its latest status.", prometheus.CounterValue,
		func(a *coordinator.AgentProgress) float64 { return float64(a.Traffic.BytesSent) }},
	{"consim_agent_messages_received_total", "Messages the agent received, by its latest status.", prometheus.CounterValue,
		func(a *coordinator.AgentProgress) float64 { return float64(a.Traffic.MsgsRecv) }},
	{"consim_agent_dropouts_total", "Messages the agent expected and missed at a deadline, by its latest status.", prometheus.CounterValue,
		func(a *coordinator.AgentProgress) float64 { return float64(a.Traffic.Dropouts) }},
}

// Metrics is the Prometheus collector of one run: the latest measured
// row (rowSeries), the drops by reason, the algorithm's declared
// measures (consim_measure{name}), the run's identity and state, and, for
// small runs, each agent's (agentSeries). It reports the values the
// coordinator handed over last; before the first row only the run's
// identity and state.
type Metrics struct {
	info   Info
	info1  *prometheus.Desc
	agents *prometheus.Desc
	rounds *prometheus.Desc
	ended  *prometheus.Desc
	rows   *prometheus.Desc
	row    []*prometheus.Desc
	drops  *prometheus.Desc
	meas   *prometheus.Desc
	agent  []*prometheus.Desc

	mu       sync.Mutex
	last     *coordinator.Progress
	measured int64
	done     bool
}

func newMetrics(info Info) *Metrics {
	m := &Metrics{
		info:   info,
		info1:  prometheus.NewDesc("consim_run_info", "The run this process serves: always 1, its identity in the labels.", []string{"run_id", "scenario"}, nil),
		agents: prometheus.NewDesc("consim_agents", "Agents of the run.", nil, nil),
		rounds: prometheus.NewDesc("consim_rounds_planned", "Rounds each agent runs unless stopped.", nil, nil),
		ended:  prometheus.NewDesc("consim_run_ended", "1 once the run has ended (summary.json written), else 0.", nil, nil),
		rows:   prometheus.NewDesc("consim_measured_rows_total", "Rows written to metrics.jsonl.", nil, nil),
		drops:  prometheus.NewDesc("consim_dropped_frames_total", "Frames dropped before use, by reason (the counters of summary.json's traffic of the same name).", []string{"reason"}, nil),
		meas:   prometheus.NewDesc("consim_measure", "The algorithm's declared measures of the last measured round, by name (the columns after bytes in metrics.jsonl).", []string{"name"}, nil),
	}
	for _, s := range rowSeries {
		m.row = append(m.row, prometheus.NewDesc(s.name, s.help, nil, nil))
	}
	for _, s := range agentSeries {
		m.agent = append(m.agent, prometheus.NewDesc(s.name, s.help, []string{"agent"}, nil))
	}
	return m
}

// observe keeps p as the latest row.
func (m *Metrics) observe(p coordinator.Progress) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last = &p
	m.measured++
}

// end marks the run ended.
func (m *Metrics) end(*coordinator.Summary) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done = true
}

// Describe sends every metric's description.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.info1, m.agents, m.rounds, m.ended, m.rows, m.drops, m.meas} {
		ch <- d
	}
	for _, d := range m.row {
		ch <- d
	}
	for _, d := range m.agent {
		ch <- d
	}
}

// Collect sends the current values.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	last, measured, done := m.last, m.measured, m.done
	m.mu.Unlock()
	ended := 0.0
	if done {
		ended = 1
	}
	ch <- prometheus.MustNewConstMetric(m.info1, prometheus.GaugeValue, 1, m.info.RunID, m.info.Scenario)
	ch <- prometheus.MustNewConstMetric(m.agents, prometheus.GaugeValue, float64(m.info.Agents))
	ch <- prometheus.MustNewConstMetric(m.rounds, prometheus.GaugeValue, float64(m.info.Rounds))
	ch <- prometheus.MustNewConstMetric(m.ended, prometheus.GaugeValue, ended)
	ch <- prometheus.MustNewConstMetric(m.rows, prometheus.CounterValue, float64(measured))
	if last == nil {
		return
	}
	for k, s := range rowSeries {
		ch <- prometheus.MustNewConstMetric(m.row[k], s.kind, s.get(last))
	}
	for _, d := range dropReasons {
		ch <- prometheus.MustNewConstMetric(m.drops, prometheus.CounterValue, float64(d.get(&last.Traffic)), d.reason)
	}
	for _, e := range last.Metrics.Extra {
		ch <- prometheus.MustNewConstMetric(m.meas, prometheus.GaugeValue, e.Value, e.Name)
	}
	for id := range last.Agents {
		a := &last.Agents[id]
		for k, s := range agentSeries {
			ch <- prometheus.MustNewConstMetric(m.agent[k], s.kind, s.get(a), strconv.Itoa(id))
		}
	}
}
