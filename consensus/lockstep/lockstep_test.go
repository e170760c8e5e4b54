package lockstep

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/consim/consim/consensus"
)

// echo is a scripted agent: in every phase it sends its id (plus the round
// and phase) to the agents in to, expects the agents in expect, reduces
// reduce, and records each inbox it receives.
type echo struct {
	id     int
	phases int
	to     []int
	expect []int
	reduce []float64
	from   int // Msg.From to claim; -1 means id
	dup    bool

	data []float64
	ins  []consensus.Inbox
}

func (e *echo) ID() int                  { return e.id }
func (e *echo) Phases(int) int           { return e.phases }
func (e *echo) Report() consensus.Report { return consensus.Report{ID: e.id} }

func (e *echo) Send(t, ph int) consensus.Outbox {
	from := e.id
	if e.from >= 0 {
		from = e.from
	}
	e.data = []float64{float64(e.id), float64(t), float64(ph)}
	var msgs []consensus.Msg
	for _, j := range e.to {
		msgs = append(msgs, consensus.Msg{From: from, To: j, Round: t, Phase: ph, Data: e.data})
		if e.dup {
			msgs = append(msgs, consensus.Msg{From: from, To: j, Round: t, Phase: ph, Data: e.data})
		}
	}
	return consensus.Outbox{Msgs: msgs, Expect: e.expect, Reduce: e.reduce}
}

func (e *echo) Receive(t, ph int, in consensus.Inbox) error {
	// The driver must hand over copies: overwrite the sender's buffer.
	e.data[0] = -1
	e.ins = append(e.ins, cloneInbox(in))
	return nil
}

// cloneInbox copies in: the driver reuses its slices in the next phase.
func cloneInbox(in consensus.Inbox) consensus.Inbox {
	c := consensus.Inbox{Missing: slices.Clone(in.Missing), Reduce: slices.Clone(in.Reduce)}
	for _, m := range in.Msgs {
		m.Data = slices.Clone(m.Data)
		c.Msgs = append(c.Msgs, m)
	}
	return c
}

// ring returns N agents exchanging with both ring neighbours.
func ring(N, phases int) []*echo {
	es := make([]*echo, N)
	for i := range es {
		l, r := (i+N-1)%N, (i+1)%N
		nb := []int{min(l, r), max(l, r)}
		es[i] = &echo{id: i, phases: phases, to: nb, expect: nb, from: -1}
	}
	return es
}

func asAgents(es []*echo) []consensus.Agent {
	as := make([]consensus.Agent, len(es))
	for i, e := range es {
		as[i] = e
	}
	return as
}

func TestRoundRoutesMessages(t *testing.T) {
	es := ring(4, 2)
	es[0].reduce = []float64{1, 10}
	es[2].reduce = []float64{2, 20}
	drop := func(t, ph, from, to int) bool { return t == 3 && ph == 1 && from == 1 && to == 2 }
	d, err := New(asAgents(es), WithDrop(drop), Symmetric())
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Run(2, 2); err != nil {
		t.Fatal(err)
	}
	// Agent 2 in round 3 phase 1: neighbours 1 and 3, the message from 1 dropped.
	in := es[2].ins[3]
	if len(in.Msgs) != 1 || in.Msgs[0].From != 3 || !reflect.DeepEqual(in.Missing, []int{1}) {
		t.Errorf("agent 2, round 3 phase 1: Msgs %+v, Missing %v; want only 3's message and 1 missing", in.Msgs, in.Missing)
	}
	if want := []float64{3, 3, 1}; !reflect.DeepEqual(in.Msgs[0].Data, want) {
		t.Errorf("payload %v, want a copy of the sender's %v", in.Msgs[0].Data, want)
	}
	for i, e := range es {
		if len(e.ins) != 4 {
			t.Fatalf("agent %d received %d inboxes, want 2 rounds x 2 phases", i, len(e.ins))
		}
		// Agents 0 and 2 reduce over all agents: they get the sum; agents
		// 1 and 3 give no term and get nil (consensus.Inbox.Reduce).
		want := []float64{3, 30}
		if e.reduce == nil {
			want = nil
		}
		for k, in := range e.ins {
			if !reflect.DeepEqual(in.Reduce, want) {
				t.Errorf("agent %d inbox %d: Reduce %v, want %v", i, k, in.Reduce, want)
			}
			for m := 1; m < len(in.Msgs); m++ {
				if in.Msgs[m-1].From >= in.Msgs[m].From {
					t.Errorf("agent %d inbox %d: Msgs not ascending by From", i, k)
				}
			}
			if got := len(in.Msgs) + len(in.Missing); got != 2 {
				t.Errorf("agent %d inbox %d: %d messages + missing, want 2", i, k, got)
			}
		}
	}
	if tr := d.Traffic(); tr != (Traffic{Sent: 32, Bytes: 32 * 3 * 8, Dropped: 1}) {
		t.Errorf("Traffic = %+v, want 4 agents x 2 messages x 2 phases x 2 rounds = 32 sent of 3 values (768 bytes), 1 dropped", tr)
	}
	// The all-reduce misses the terms of agents 1 and 3 in each of the 4
	// phases; the dropped message is agent 2's one dropout.
	if c := d.Counts(); c.ReduceMissing != 8 || c.Missing != 1 || c.Delivered != 31 {
		t.Errorf("Counts = %+v, want 8 missing reduce terms, 1 missing message, 31 delivered", c)
	}
	// Each inbox has its own copy of the reduce.
	d2, err := New(asAgents(es))
	if err != nil {
		t.Fatal(err)
	}
	if err := d2.Round(4); err != nil {
		t.Fatal(err)
	}
	if d2.phase.Inbox(0).Reduce[0] = 99; d2.phase.Inbox(2).Reduce[0] != 3 {
		t.Error("inboxes share the reduce slice")
	}
}

func TestRoundNoReduce(t *testing.T) {
	es := ring(3, 1)
	if err := Round(asAgents(es), 0); err != nil {
		t.Fatal(err)
	}
	for i, e := range es {
		if e.ins[0].Reduce != nil || e.ins[0].Missing != nil {
			t.Errorf("agent %d: Reduce %v, Missing %v; want nil", i, e.ins[0].Reduce, e.ins[0].Missing)
		}
	}
}

// TestMissingWithoutSend: an expected sender that sends nothing is Missing.
func TestMissingWithoutSend(t *testing.T) {
	es := ring(3, 1)
	es[1].to = nil
	if err := Round(asAgents(es), 0); err != nil {
		t.Fatal(err)
	}
	if got := es[0].ins[0].Missing; !reflect.DeepEqual(got, []int{1}) {
		t.Errorf("agent 0: Missing %v, want [1]", got)
	}
	// The same run is an error under Symmetric.
	es = ring(3, 1)
	es[1].to = nil
	if err := Round(asAgents(es), 0, Symmetric()); err == nil || !strings.Contains(err.Error(), "sends 0 messages but expects 2") {
		t.Errorf("Symmetric: error %v, want a count mismatch", err)
	}
}

type failing struct{ echo }

func (f *failing) Receive(int, int, consensus.Inbox) error { return fmt.Errorf("boom") }

func TestRoundErrors(t *testing.T) {
	tests := []struct {
		name string
		mod  func(es []*echo) []consensus.Agent
		opts []Option
		want string
	}{
		{"phase disagreement", func(es []*echo) []consensus.Agent { es[2].phases = 2; return asAgents(es) }, nil, "agent 2 has 2 phases"},
		{"wrong From", func(es []*echo) []consensus.Agent { es[1].from = 0; return asAgents(es) }, nil, "marked From 0"},
		{"recipient out of range", func(es []*echo) []consensus.Agent { es[1].to = []int{7}; return asAgents(es) }, nil, "outside [0, 3)"},
		{"unexpected recipient", func(es []*echo) []consensus.Agent { es[0].expect = []int{2}; return asAgents(es) }, nil, "does not expect it"},
		{"duplicate", func(es []*echo) []consensus.Agent { es[1].dup = true; return asAgents(es) }, nil, "sends twice"},
		{"unsorted Expect", func(es []*echo) []consensus.Agent { es[0].expect = []int{2, 1}; return asAgents(es) }, nil, "not strictly ascending"},
		{"reduce lengths", func(es []*echo) []consensus.Agent {
			es[0].reduce, es[1].reduce = []float64{1}, []float64{1, 2}
			return asAgents(es)
		}, nil, "reduces 2 values"},
		{"asymmetric", func(es []*echo) []consensus.Agent {
			es[0].expect = []int{1, 2}
			es[0].to = []int{1}
			es[2].expect = []int{1}
			return asAgents(es)
		}, []Option{Symmetric()}, "not symmetric"},
		{"receive error", func(es []*echo) []consensus.Agent {
			as := asAgents(es)
			as[1] = &failing{*es[1]}
			return as
		}, nil, "agent 1: boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Round(tc.mod(ring(3, 1)), 0, tc.opts...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Round: error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	es := ring(3, 1)
	tests := []struct {
		name   string
		agents []consensus.Agent
		want   string
	}{
		{"empty", nil, "no agents"},
		{"nil agent", []consensus.Agent{es[0], nil}, "agent 1 is nil"},
		{"misordered", []consensus.Agent{es[1], es[0]}, "index 0 has ID 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.agents)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New: error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
