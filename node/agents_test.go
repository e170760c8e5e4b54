package node

import (
	"errors"
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
)

// averaging is a two-phase test agent that exercises messages and the
// all-reduce: phase 0 exchanges x with the neighbours and forms the local
// mean m_i = (x_i + sum_j x_j)/(1 + |R|); phase 1 reduces (m_i, 1) to
// (sum_i m_i, n_arrived), and
//
//	x_i <- (m_i + sum_i m_i / n_arrived)/2 + (i+1) 2^-10 sin(t).
//
// The drift term keeps the iterates moving, so rounds are not idempotent.
type averaging struct {
	id    int
	nbrs  []int
	x, m  []float64
	msgs  []consensus.Msg
	term  []float64
	round int
}

func newAveraging(id int, g *graph.Graph, d int) *averaging {
	a := &averaging{id: id, nbrs: g.Neighbors(id), x: startValues(id, d), m: make([]float64, d), term: make([]float64, d+1)}
	for _, j := range a.nbrs {
		a.msgs = append(a.msgs, consensus.Msg{From: id, To: j, Data: a.x})
	}
	return a
}

func averagingAgents(g *graph.Graph, d int) []consensus.Agent {
	agents := make([]consensus.Agent, g.N)
	for i := range agents {
		agents[i] = newAveraging(i, g, d)
	}
	return agents
}

func (a *averaging) ID() int        { return a.id }
func (a *averaging) Phases(int) int { return 2 }

func (a *averaging) Send(t, ph int) consensus.Outbox {
	if ph == 0 {
		return consensus.Outbox{Msgs: a.msgs, Expect: a.nbrs}
	}
	copy(a.term, a.m)
	a.term[len(a.m)] = 1
	return consensus.Outbox{Reduce: a.term}
}

func (a *averaging) Receive(t, ph int, in consensus.Inbox) error {
	if ph == 0 {
		copy(a.m, a.x)
		for _, msg := range in.Msgs {
			for k, v := range msg.Data {
				a.m[k] += v
			}
		}
		for k := range a.m {
			a.m[k] /= float64(1 + len(in.Msgs))
		}
		return nil
	}
	if len(in.Reduce) != len(a.x)+1 {
		return fmt.Errorf("reduce of length %d", len(in.Reduce))
	}
	count := in.Reduce[len(a.x)]
	for k := range a.x {
		a.x[k] = (a.m[k]+in.Reduce[k]/count)/2 + float64(a.id+1)*0x1p-10*math.Sin(float64(t))
	}
	a.round = t + 1
	return nil
}

func (a *averaging) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: a.round, X: append([]float64(nil), a.x...)}
}

// silent wraps an agent that sends nothing and expects nothing.
type silent struct{ consensus.Agent }

func (s silent) Send(t, ph int) consensus.Outbox {
	s.Agent.Send(t, ph)
	return consensus.Outbox{}
}

// errBoom is the error of a failing agent.
var errBoom = errors.New("boom")

// failing wraps an agent whose Receive fails in round at.
type failing struct {
	consensus.Agent
	at int
}

func (f failing) Receive(t, ph int, in consensus.Inbox) error {
	if t == f.at {
		return errBoom
	}
	return f.Agent.Receive(t, ph, in)
}
