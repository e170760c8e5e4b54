package engine

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/consim/consim/consensus"
)

func msg(from, to int, data ...float64) consensus.Msg {
	return consensus.Msg{From: from, To: to, Data: data}
}

func TestCheckOutbox(t *testing.T) {
	tests := []struct {
		name string
		o    consensus.Outbox
		want string // "" for valid
	}{
		{"empty", consensus.Outbox{}, ""},
		{"valid", consensus.Outbox{Expect: []int{0, 2}, Msgs: []consensus.Msg{msg(1, 2), msg(1, 0)},
			Reduce: []float64{1}, Group: []int{0, 1}}, ""},
		{"expect range", consensus.Outbox{Expect: []int{0, 3}}, "agent 1 expects agent 3, outside [0, 3)"},
		{"expect order", consensus.Outbox{Expect: []int{2, 0}}, "Expect is not strictly ascending at 0"},
		{"expect repeat", consensus.Outbox{Expect: []int{0, 0}}, "Expect is not strictly ascending at 0"},
		{"expect self", consensus.Outbox{Expect: []int{1}}, "agent 1 expects a message from itself"},
		{"from", consensus.Outbox{Msgs: []consensus.Msg{msg(0, 2)}}, "agent 1 sends a message marked From 0"},
		{"to range", consensus.Outbox{Msgs: []consensus.Msg{msg(1, -1)}}, "agent 1 sends to agent -1, outside [0, 3)"},
		{"to self", consensus.Outbox{Msgs: []consensus.Msg{msg(1, 1)}}, "agent 1 sends a message to itself"},
		{"twice adjacent", consensus.Outbox{Msgs: []consensus.Msg{msg(1, 2), msg(1, 2)}}, "agent 1 sends twice to agent 2"},
		{"twice apart", consensus.Outbox{Msgs: []consensus.Msg{msg(1, 2), msg(1, 0), msg(1, 2)}}, "agent 1 sends twice to agent 2"},
		{"group without reduce", consensus.Outbox{Group: []int{0, 1}}, "without a reduce term"},
		{"group order", consensus.Outbox{Reduce: []float64{1}, Group: []int{1, 0}}, "not strictly ascending"},
		{"group range", consensus.Outbox{Reduce: []float64{1}, Group: []int{1, 3}}, "agent 3 outside 0..2"},
		{"group without self", consensus.Outbox{Reduce: []float64{1}, Group: []int{0, 2}}, "does not contain agent 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckOutbox(1, 3, tc.o)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("CheckOutbox = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckOutbox = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestCheckSymmetric(t *testing.T) {
	ok := consensus.Outbox{Expect: []int{0, 2}, Msgs: []consensus.Msg{msg(1, 0), msg(1, 2)}}
	if err := CheckSymmetric(1, ok); err != nil {
		t.Errorf("symmetric outbox: %v", err)
	}
	for _, tc := range []struct {
		o    consensus.Outbox
		want string
	}{
		{consensus.Outbox{Expect: []int{0}, Msgs: []consensus.Msg{msg(1, 2)}}, "exchange 1->2 is not symmetric"},
		{consensus.Outbox{Expect: []int{0, 2}, Msgs: []consensus.Msg{msg(1, 0)}}, "sends 1 messages but expects 2"},
	} {
		if err := CheckSymmetric(1, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckSymmetric(%+v) = %v, want %q", tc.o, err, tc.want)
		}
	}
}

// TestSum: the first term is copied (a -0 stays -0, which a sum started
// from zero would turn into +0), later ones added in order, missing terms
// counted, a term of another length refused.
func TestSum(t *testing.T) {
	var s Sum
	if s.Value() != nil {
		t.Fatal("empty sum has a value")
	}
	negZero := math.Copysign(0, -1)
	if err := s.Add([]float64{negZero, 1}); err != nil {
		t.Fatal(err)
	}
	s.Miss()
	if err := s.Add([]float64{negZero, 2}); err != nil {
		t.Fatal(err)
	}
	v := s.Value()
	if math.Float64bits(v[0]) != math.Float64bits(negZero) || v[1] != 3 || s.Terms() != 2 || s.Missing() != 1 {
		t.Errorf("sum %v (sign of zero %v), %d terms, %d missing; want [-0 3], 2, 1", v, math.Signbit(v[0]), s.Terms(), s.Missing())
	}
	if err := s.Add([]float64{1}); err == nil || !strings.Contains(err.Error(), "reduces 1 values, an earlier agent of its group reduced 2") {
		t.Errorf("length mismatch: %v", err)
	}
	s.Reset()
	if s.Value() != nil || s.Terms() != 0 || s.Missing() != 0 {
		t.Error("Reset leaves a value or counts")
	}
}

func TestInbound(t *testing.T) {
	var b Inbound
	b.Begin([]int{0, 2, 5})
	if _, ok := b.Slot(1); ok {
		t.Error("slot for a sender not expected")
	}
	k, ok := b.Slot(2)
	if !ok || k != 1 {
		t.Fatalf("Slot(2) = %d, %v; want 1, true", k, ok)
	}
	b.Arrive(k, []float64{7})
	if _, ok := b.Slot(2); ok || !b.Arrived(1) {
		t.Error("a second message from 2 has a slot")
	}
	stale := func(j int) ([]float64, bool) { return []float64{-1}, j == 5 }
	msgs, missing := b.Deliver(3, 1, 4, stale)
	want := []consensus.Msg{{From: 2, To: 4, Round: 3, Phase: 1, Data: []float64{7}}, {From: 5, To: 4, Round: 3, Phase: 1, Data: []float64{-1}}}
	if !reflect.DeepEqual(msgs, want) || !reflect.DeepEqual(missing, []int{0}) {
		t.Errorf("Deliver = %+v, %v; want %+v, [0]", msgs, missing, want)
	}
	// A new phase forgets what arrived but keeps each slot's buffer.
	b.Begin([]int{1, 2})
	if k, ok := b.Slot(2); !ok || k != 1 || b.Buffer(k)[0] != 7 {
		t.Errorf("after Begin: slot %d, %v, buffer %v; want slot 1 with [7]", k, ok, b.Buffer(1))
	}
	if msgs, missing := b.Deliver(4, 0, 4, nil); msgs != nil || !reflect.DeepEqual(missing, []int{1, 2}) {
		t.Errorf("Deliver = %v, %v; want nil, [1 2]", msgs, missing)
	}
}

// runPhase runs one phase of outs through p with the oracle o.
func runPhase(t *testing.T, p *Phase, outs []consensus.Outbox, o consensus.Oracle) (Counts, error) {
	t.Helper()
	p.Begin(0, 0)
	for i, out := range outs {
		if err := p.Set(i, out); err != nil {
			return Counts{}, err
		}
	}
	if err := p.Reduce(); err != nil {
		return Counts{}, err
	}
	for i := range outs {
		if err := p.Deliver(i, o); err != nil {
			return Counts{}, err
		}
	}
	return p.End()
}

// TestReduceWithoutTerm is the rule the drivers used to disagree on: an
// agent that gives no reduce term gets a nil Inbox.Reduce, while the
// agents of the all-reduce get the sum of the terms given, the others
// counted missing.
func TestReduceWithoutTerm(t *testing.T) {
	p := NewPhase(3, Options{})
	c, err := runPhase(t, p, []consensus.Outbox{{Reduce: []float64{1}}, {Reduce: []float64{2}}, {}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]float64{{3}, {3}, nil} {
		if got := p.Inbox(i).Reduce; !reflect.DeepEqual(got, want) {
			t.Errorf("agent %d: Reduce %v, want %v", i, got, want)
		}
	}
	if c.ReduceMissing != 1 {
		t.Errorf("%d missing reduce terms, want 1 (agent 2's)", c.ReduceMissing)
	}
}

func TestPhaseGroups(t *testing.T) {
	g01, g23 := []int{0, 1}, []int{2, 3}
	outs := []consensus.Outbox{
		{Reduce: []float64{1, 1}, Group: g01}, {Reduce: []float64{2, 2}, Group: g01},
		{Reduce: []float64{3}, Group: g23}, {Reduce: []float64{4}, Group: g23},
		{Reduce: []float64{5}}, {},
	}
	p := NewPhase(6, Options{})
	c, err := runPhase(t, p, outs, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]float64{{3, 3}, {3, 3}, {7}, {7}, {5}, nil} {
		if got := p.Inbox(i).Reduce; !reflect.DeepEqual(got, want) {
			t.Errorf("agent %d: Reduce %v, want %v", i, got, want)
		}
	}
	if c.ReduceMissing != 5 {
		t.Errorf("%d missing all-reduce terms, want 5 (every agent but 4)", c.ReduceMissing)
	}
	// Each agent has its own copy.
	p.Inbox(0).Reduce[0] = 99
	if p.Inbox(1).Reduce[0] != 3 {
		t.Error("agents share a reduce slice")
	}

	for _, tc := range []struct {
		name string
		mod  func([]consensus.Outbox)
		want string
	}{
		{"overlapping", func(o []consensus.Outbox) { o[1].Group = []int{1, 2} }, "agent 1 is in group [0 1] but reduces over [1 2]"},
		{"same leader", func(o []consensus.Outbox) { o[2].Group, o[3].Group = []int{0, 2}, []int{3} }, "agent 0 is in group [0 2] but reduces over [0 1]"},
		{"lengths", func(o []consensus.Outbox) { o[3].Reduce = []float64{4, 4} }, "agent 3 reduces 2 values, an earlier agent of its group reduced 1"},
		{"member without term", func(o []consensus.Outbox) { o[3].Reduce, o[3].Group = nil, nil }, "agent 3 is in group [2 3] but reduces over []"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := append([]consensus.Outbox(nil), outs...)
			tc.mod(bad)
			if _, err := runPhase(t, NewPhase(6, Options{}), bad, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// opOracle returns op * arg[0], and fails on op 0.
type opOracle struct{}

func (opOracle) Evaluate(req consensus.EvalRequest, out []float64) ([]float64, error) {
	if req.Op == 0 {
		return out, errors.New("op 0")
	}
	return append(out, float64(req.Op)*req.Arg[0]), nil
}

func TestPhaseDelivery(t *testing.T) {
	// A ring of 4: each agent sends its id to both neighbours, the
	// message 1 -> 2 is lost, and agent 3 asks for evaluations.
	outs := make([]consensus.Outbox, 4)
	for i := range outs {
		l, r := (i+3)%4, (i+1)%4
		nb := []int{min(l, r), max(l, r)}
		outs[i] = consensus.Outbox{Expect: nb, Msgs: []consensus.Msg{msg(i, nb[1], float64(i)), msg(i, nb[0], float64(i))}}
	}
	outs[3].Evals = []consensus.EvalRequest{{Op: 2, Arg: []float64{5}}, {Op: 3, Arg: []float64{5}}}
	drop := func(t, ph, from, to int) bool { return from == 1 && to == 2 }
	p := NewPhase(4, Options{Drop: drop})
	c, err := runPhase(t, p, outs, opOracle{})
	if err != nil {
		t.Fatal(err)
	}
	in := p.Inbox(2)
	if len(in.Msgs) != 1 || in.Msgs[0].From != 3 || in.Msgs[0].Data[0] != 3 || !reflect.DeepEqual(in.Missing, []int{1}) {
		t.Errorf("agent 2: Msgs %+v, Missing %v; want 3's message and 1 missing", in.Msgs, in.Missing)
	}
	in = p.Inbox(0)
	if len(in.Msgs) != 2 || in.Msgs[0].From != 1 || in.Msgs[1].From != 3 || in.Missing != nil || in.Reduce != nil || in.Evals != nil {
		t.Errorf("agent 0: %+v; want the messages of 1 and 3, nothing else", in)
	}
	if ev := p.Inbox(3).Evals; !reflect.DeepEqual(ev, [][]float64{{10}, {15}}) {
		t.Errorf("agent 3: Evals %v, want [[10] [15]]", ev)
	}
	if want := (Counts{Sent: 8, Bytes: 64, Delivered: 7, Values: 7, Dropped: 1, Missing: 1}); c != want {
		t.Errorf("Counts = %+v, want %+v", c, want)
	}
	// The values are copies: the sender may reuse its buffer.
	outs[3].Msgs[1].Data[0] = -1
	if p.Inbox(2).Msgs[0].Data[0] != 3 {
		t.Error("delivered values alias the sender's")
	}

	for _, tc := range []struct {
		name string
		mod  func([]consensus.Outbox)
		o    consensus.Oracle
		want string
	}{
		{"misrouted", func(o []consensus.Outbox) { o[0].Expect = []int{3} }, opOracle{}, "agent 1 sends to agent 0, which does not expect it"},
		{"no oracle", func([]consensus.Outbox) {}, nil, "agent 3 asks for 2 evaluations: the driver has no oracle"},
		{"eval error", func(o []consensus.Outbox) { o[3].Evals[1].Op = 0 }, opOracle{}, "agent 3: eval request 1 of 2 (op 0): op 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := append([]consensus.Outbox(nil), outs...)
			bad[3].Evals = clone(outs[3].Evals)
			tc.mod(bad)
			if _, err := runPhase(t, NewPhase(4, Options{}), bad, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func clone[E any](s []E) []E { return append([]E(nil), s...) }

func TestSymmetricOption(t *testing.T) {
	outs := []consensus.Outbox{{Expect: []int{1}, Msgs: []consensus.Msg{msg(0, 1)}}, {Expect: []int{0}}}
	if _, err := runPhase(t, NewPhase(2, Options{}), outs, nil); err != nil {
		t.Fatalf("without Symmetric: %v", err)
	}
	if _, err := runPhase(t, NewPhase(2, Options{Symmetric: true}), outs, nil); err == nil || !strings.Contains(err.Error(), "not symmetric") {
		t.Errorf("with Symmetric: %v, want an asymmetric exchange", err)
	}
}
