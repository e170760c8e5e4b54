package alm

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
)

// Send implements consensus.Agent. Phase 0 draws the round's edge sets and
// sends x_i to the neighbours it exchanges with; phase 1 sends the owned
// duals to their readers (sendDuals) and, on the rounds that check the
// global safeguard, contributes the agent's DualSq share to the
// all-reduce. The returned slices are owned by
// the agent and stay valid until the next Send. A call for a round or
// phase other than the one due returns an empty outbox, and the following
// Receive fails.
func (a *Agent) Send(t, ph int) consensus.Outbox {
	a.sent = false
	if t != a.round || ph != a.phase || ph >= a.Phases(t) {
		return consensus.Outbox{}
	}
	a.sent = true
	if ph == 1 {
		out := a.sendDuals(t)
		if a.cfg.checksGlobal(t) {
			a.reduce[0] = a.dualSq()
			out.Reduce = a.reduce
		}
		return out
	}
	a.draw(t)
	copy(a.xs, a.x)
	a.msgs = a.msgs[:0]
	a.expect = a.expect[:0]
	for k := range a.nb {
		b := &a.nb[k]
		if !b.expected() {
			continue
		}
		a.msgs = append(a.msgs, consensus.Msg{From: a.id, To: b.j, Round: t, Phase: 0, Data: a.xs})
		a.expect = append(a.expect, b.j)
	}
	return consensus.Outbox{Msgs: a.msgs, Expect: a.expect}
}

// draw sets the membership of every incident edge in E0, E1 and E2 of round
// t from the edge process (E2 = E1 under SameDraw).
func (a *Agent) draw(t int) {
	for k := range a.nb {
		b := &a.nb[k]
		lo, hi := a.id, b.j
		if lo > hi {
			lo, hi = hi, lo
		}
		b.e0 = a.proc.Active(t, graph.DrawDual, lo, hi)
		b.e1 = a.proc.Active(t, graph.DrawAdjoint, lo, hi)
		if a.cfg.SameDraw {
			b.e2 = b.e1
		} else {
			b.e2 = a.proc.Active(t, graph.DrawPenalty, lo, hi)
		}
		b.drop = false
	}
}

// Receive implements consensus.Agent. Phase 0 stores the neighbours'
// iterates and takes the owners' dual step; phase 1 copies the owners'
// duals and applies the global safeguard on the rounds that check it; the
// last phase of the round takes the primal step.
func (a *Agent) Receive(t, ph int, in consensus.Inbox) error {
	if !a.sent || t != a.round || ph != a.phase {
		return fmt.Errorf("alm: agent %d: receive of round %d phase %d: expected round %d phase %d after its send", a.id, t, ph, a.round, a.phase)
	}
	if a.cfg.Rounds > 0 && t >= a.cfg.Rounds {
		return fmt.Errorf("alm: agent %d: round %d is beyond the horizon T = %d", a.id, t, a.cfg.Rounds)
	}
	a.sent = false
	switch ph {
	case 0:
		if err := a.collect(t, in); err != nil {
			return fmt.Errorf("alm: agent %d: round %d: %w", a.id, t, err)
		}
		a.dualStep(t)
	case 1:
		if err := a.collectDuals(t, in); err != nil {
			return fmt.Errorf("alm: agent %d: round %d: %w", a.id, t, err)
		}
		if a.cfg.checksGlobal(t) {
			if len(in.Reduce) != 1 {
				return fmt.Errorf("alm: agent %d: round %d: reduce of length %d, want 1", a.id, t, len(in.Reduce))
			}
			a.globalSafeguard(t, in.Reduce[0])
		}
	}
	if ph+1 < a.Phases(t) {
		a.phase++
		return nil
	}
	a.primalStep(t)
	a.round++
	a.phase = 0
	return nil
}

// collect copies x_j of every arrived message into the neighbour's buffer
// and marks the expected neighbours whose message is missing as dropped.
func (a *Agent) collect(t int, in consensus.Inbox) error {
	k := 0
	for _, m := range in.Msgs {
		for k < len(a.nb) && (a.nb[k].j < m.From || !a.nb[k].expected()) {
			if a.nb[k].expected() {
				a.nb[k].drop = true
			}
			k++
		}
		if k == len(a.nb) || a.nb[k].j != m.From {
			return fmt.Errorf("message from agent %d, which was not expected (or out of order)", m.From)
		}
		if m.Round != t || m.Phase != 0 {
			return fmt.Errorf("message from agent %d is for round %d phase %d", m.From, m.Round, m.Phase)
		}
		if len(m.Data) != a.n {
			return fmt.Errorf("message from agent %d has %d values, want %d", m.From, len(m.Data), a.n)
		}
		copy(a.xj[k*a.n:(k+1)*a.n], m.Data)
		k++
	}
	for ; k < len(a.nb); k++ {
		if a.nb[k].expected() {
			a.nb[k].drop = true
		}
	}
	return nil
}

// primalStep computes, with the sample xi_i of round t,
//
//	g_i = (sigma/N) G_i(x_i, xi_i) + sum_{j: {i,j} in E1} s_ij y_ij
//	      + rho sum_{j: {i,j} in E1 and E2} (x_i - x_j) + mu (x_i - z_i),
//	z_i <- z_i + beta (x_i - z_i),   x_i <- proj_X(x_i - tau_t g_i),
//
// with y_ij the owner's value or the reader's latest copy of it (always at
// hand: the y term of an edge in E1 is kept when a message is lost) and
// the penalty term only when x_j arrived; z uses the old x_i.
func (a *Agent) primalStep(t int) {
	n := a.n
	graph.SeedSample(a.pcg, a.cfg.Seed, t, a.id)
	a.gradEvals += int64(a.f.StochGrad(a.x, a.g, a.rng))
	g := a.g
	for l := range g {
		g[l] *= a.wf
	}
	for k := range a.nb {
		b := &a.nb[k]
		if !b.e1 {
			continue
		}
		y, xj := a.y[k*n:(k+1)*n], a.xj[k*n:(k+1)*n]
		for l := range g {
			g[l] += float64(b.s * y[l])
		}
		if b.e2 && !b.drop {
			for l := range g {
				g[l] += float64(a.cfg.Rho * (a.x[l] - xj[l]))
			}
		}
	}
	tau, mu, beta := a.cfg.tauAt(t), a.cfg.Mu, a.cfg.Beta
	for l := range g {
		d := a.x[l] - a.z[l]
		g[l] += float64(mu * d)
		a.z[l] += float64(beta * d)
		a.x[l] -= float64(tau * g[l])
	}
	a.box.Project(a.x)
}
