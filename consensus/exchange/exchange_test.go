package exchange

import (
	"math"
	"testing"

	"github.com/consim/consim/consensus"
)

// TestOpenDrawsNeighboursUniformly: the neighbour of each request is
// uniform over the agent's neighbours (P_ij = 1/d_i), and a tick while
// the exchange is open draws nothing and counts a busy tick.
func TestOpenDrawsNeighboursUniformly(t *testing.T) {
	nbrs := []int{2, 5, 7, 9}
	p := New(4, nbrs, 11)
	count := map[int]int{}
	const n = 40000
	for range n {
		j, ok := p.Open()
		if !ok {
			t.Fatal("no exchange opened")
		}
		count[j]++
		if _, ok := p.Open(); ok || p.Busy == 0 {
			t.Fatal("a second exchange opened while one is open")
		}
		if _, err := p.Arrive(consensus.AsyncMsg{From: j, To: 4, Kind: KindRefuse}, 3); err != nil {
			t.Fatal(err)
		}
	}
	for _, j := range nbrs {
		if f := float64(count[j]) / n; math.Abs(f-0.25) > 4*math.Sqrt(0.25*0.75/n) {
			t.Errorf("neighbour %d drawn with frequency %.4f, want 0.25", j, f)
		}
	}
	if p.Requests != n || p.Refused != n || p.Busy != n {
		t.Errorf("counts %+v", p.Counts)
	}
	lonely := New(0, nil, 1)
	if _, ok := lonely.Open(); ok {
		t.Error("an agent without neighbours opened an exchange")
	}
}

// TestArrive classifies messages and refuses the ones no exchange
// expects.
func TestArrive(t *testing.T) {
	p := New(1, []int{0, 2}, 3)
	req := consensus.AsyncMsg{From: 0, To: 1, Kind: KindRequest, Data: []float64{1, 2}}
	if a, err := p.Arrive(req, 2); err != nil || a != Request {
		t.Errorf("request to a free agent: %v, %v", a, err)
	}
	j, _ := p.Open()
	if a, err := p.Arrive(req, 2); err != nil || a != Busy {
		t.Errorf("request to a busy agent: %v, %v", a, err)
	}
	other := 2 - j // the other neighbour
	for name, m := range map[string]consensus.AsyncMsg{
		"reply from another agent": {From: other, To: 1, Kind: KindReply, Data: []float64{1, 2}},
		"wrong length":             {From: j, To: 1, Kind: KindReply, Data: []float64{1}},
		"unknown kind":             {From: j, To: 1, Kind: 9, Data: []float64{1, 2}},
	} {
		if _, err := p.Arrive(m, 2); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if a, err := p.Arrive(consensus.AsyncMsg{From: j, To: 1, Kind: KindReply, Data: []float64{3, 4}}, 2); err != nil || a != Replied || p.IsOpen() || p.Completed != 1 {
		t.Errorf("reply: %v, %v, open %v, %+v", a, err, p.IsOpen(), p.Counts)
	}
	if _, err := p.Arrive(consensus.AsyncMsg{From: j, To: 1, Kind: KindReply, Data: []float64{3, 4}}, 2); err == nil {
		t.Error("a second reply: no error")
	}
	j, _ = p.Open()
	if err := p.Return(consensus.AsyncMsg{From: 1, To: j, Kind: KindRequest}); err != nil || p.IsOpen() || p.Lost != 1 {
		t.Errorf("return: %v, %+v", err, p.Counts)
	}
	if err := p.Return(consensus.AsyncMsg{From: 1, To: j, Kind: KindRequest}); err == nil {
		t.Error("a return with no open exchange: no error")
	}
}
