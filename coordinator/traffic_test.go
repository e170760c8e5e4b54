package coordinator

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/node"
	"github.com/consim/consim/observe"
)

// TestRunTrafficPerRound queues a whole run's statuses at once, agent 0
// running ahead of the others, so that each round is measured after
// agent 0 has already reported round 4: the msgs and bytes of a row must
// come from the statuses of the row's round, not from the latest ones.
// With the sim's traffic, agent i sent 100 t + i messages and 800 t + i
// bytes through round t. In the departed case agent 2 reports round 0,
// then departs at round 1, and its round-1 counters (102 messages, 802
// bytes) count in every later row.
func TestRunTrafficPerRound(t *testing.T) {
	tests := []struct {
		name      string
		n         int
		departed  bool
		msgs      []int64 // rows of rounds 0, 2, 4
		bytesSent []int64
	}{
		{name: "lagging", n: 2, msgs: []int64{1, 401, 801}, bytesSent: []int64{1, 3201, 6401}},
		{name: "departed", n: 3, departed: true, msgs: []int64{3, 503, 903}, bytesSent: []int64{3, 4003, 7203}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := sim{n: tc.n, rounds: 4, every: 2}
			var script []node.Status
			for i := range tc.n {
				script = append(script, node.Status{Kind: node.StatusReady, ID: i})
			}
			agentRun := func(id int) {
				for r := 0; r <= s.rounds; r += s.every {
					script = append(script, s.status(node.StatusProgress, id, r))
				}
				script = append(script, s.status(node.StatusFinal, id, s.rounds))
			}
			agentRun(0)
			if tc.departed {
				dep := s.status(node.StatusDeparted, 2, 1)
				dep.Err = "crashed at round 1"
				script = append(script, s.status(node.StatusProgress, 2, 0), dep)
			}
			agentRun(1)

			obs := newFakeObserver()
			for _, st := range script {
				b, err := node.EncodeStatus(st)
				if err != nil {
					t.Fatal(err)
				}
				obs.statuses <- b
			}
			cfg := testConfig(t, tc.n)
			cfg.Rounds, cfg.ReportEvery = s.rounds, s.every
			cfg.ContinueOnDeparture = tc.departed
			var progress []Progress
			cfg.Progress = func(p Progress) { progress = append(progress, p) }
			ev := EvaluatorFunc(func([]consensus.Report) (observe.Metrics, error) { return observe.Metrics{}, nil })
			sum, err := Run(context.Background(), cfg, obs, ev)
			if err != nil {
				t.Fatal(err)
			}
			rows := readRows(t, filepath.Join(cfg.OutDir, cfg.RunID, MetricsJSONFile))
			var rounds []int
			var msgs, bytesSent []int64
			for _, r := range rows {
				rounds = append(rounds, r.Round)
				msgs = append(msgs, r.Msgs)
				bytesSent = append(bytesSent, r.Bytes)
			}
			if !reflect.DeepEqual(rounds, []int{0, 2, 4}) {
				t.Fatalf("rows of rounds %v, want [0 2 4]", rounds)
			}
			if !reflect.DeepEqual(msgs, tc.msgs) || !reflect.DeepEqual(bytesSent, tc.bytesSent) {
				t.Errorf("msgs %v bytes %v, want %v %v", msgs, bytesSent, tc.msgs, tc.bytesSent)
			}
			checkProgress(t, progress, rows, sum, tc.n)
			got := readSummary(t, cfg)
			if got.Final == nil || got.Final.Msgs != tc.msgs[2] || got.Final.Bytes != tc.bytesSent[2] || sum.Final.Msgs != tc.msgs[2] {
				t.Errorf("summary final row %+v, want msgs %d bytes %d", got.Final, tc.msgs[2], tc.bytesSent[2])
			}
		})
	}
}

// checkProgress checks that each Progress describes the row written with
// it, and that the last one's traffic and agents are the summary's.
func checkProgress(t *testing.T, progress []Progress, rows []Row, sum *Summary, n int) {
	t.Helper()
	if len(progress) != len(rows) {
		t.Fatalf("%d progress calls for %d rows", len(progress), len(rows))
	}
	for k, p := range progress {
		if got, want := p.Row(), rows[k]; got.Round != want.Round || got.Msgs != want.Msgs || got.Bytes != want.Bytes {
			t.Errorf("progress %d: row round %d msgs %d bytes %d, want %d %d %d", k, got.Round, got.Msgs, got.Bytes, want.Round, want.Msgs, want.Bytes)
		}
	}
	last := progress[len(progress)-1]
	want := sum.Traffic
	want.DropoutsByEdge, want.RefusedBySubject = nil, nil
	if !reflect.DeepEqual(last.Traffic, want) {
		t.Errorf("last progress traffic %+v, want the summary's %+v", last.Traffic, want)
	}
	if len(last.Agents) != n {
		t.Fatalf("last progress has %d agents, want %d", len(last.Agents), n)
	}
	var msgs int64
	for _, a := range last.Agents {
		msgs += a.Traffic.MsgsSent
	}
	if msgs != sum.Traffic.MsgsSent {
		t.Errorf("agents' messages sum to %d, summary has %d", msgs, sum.Traffic.MsgsSent)
	}
}
