package radmm

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
)

// Send implements consensus.Agent. Phase 0 draws the round's edges; if
// one of the agent's edges is present (or the agent has no neighbours), it
// takes the x-step of the method from the values of the previous round,
// then sends x_i to every present neighbour j and expects x_j back. An
// agent without a present edge keeps x_i and sends nothing. Phase 1 sends,
// over every present edge, the owner's (z_e, y_e, version) to the reader
// and the version of the reader's copy to the owner, and expects the
// other's. A repeated call for the due phase returns the same outbox
// without stepping again; a call for a round or phase other than the one
// due returns an empty outbox, and the following Receive fails. The
// returned slices are owned by the agent and stay valid until the next
// Send.
func (a *Agent) Send(t, ph int) consensus.Outbox {
	if t != a.round || ph != a.phase || ph >= a.Phases(t) {
		a.sent = false
		return consensus.Outbox{}
	}
	if a.sent {
		return a.out
	}
	a.sent = true
	if ph == 1 {
		a.out = a.sendEdges(t)
		return a.out
	}
	a.ms, a.ex = a.ms[:0], a.ex[:0]
	var present int
	for k := range a.nb {
		b := &a.nb[k]
		b.present = a.proc.Active(t, graph.DrawDual, min(a.id, b.j), max(a.id, b.j))
		b.live = false
		if b.present {
			present++
		}
	}
	if present > 0 || len(a.nb) == 0 {
		switch a.cfg.Method {
		case MethodExact:
			a.exactStep()
		case MethodLinearized:
			a.linearizedStep(t)
		}
	}
	copy(a.xs, a.x)
	for k := range a.nb {
		b := &a.nb[k]
		if !b.present {
			continue
		}
		a.ms = append(a.ms, consensus.Msg{From: a.id, To: b.j, Round: t, Phase: 0, Data: a.xs})
		a.ex = append(a.ex, b.j)
	}
	a.out = consensus.Outbox{Msgs: a.ms, Expect: a.ex}
	return a.out
}

// sendEdges returns the outbox of phase 1: one payload, the same for
// every present neighbour (one frame, fanned out by the runtime), holding
// for each incident edge the owner's (z_e, y_e, version) or the reader's
// version of its copies; each present neighbour's message is expected
// back. The reader's version keeps the exchange symmetric: both endpoints
// wait for each other in both phases.
func (a *Agent) sendEdges(t int) consensus.Outbox {
	n := a.n
	for k := range a.nb {
		o := a.sbOff[k]
		if a.nb[k].owner() {
			copy(a.sb[o:o+n], a.z[k*n:(k+1)*n])
			copy(a.sb[o+n:o+2*n], a.y[k*n:(k+1)*n])
			o += 2 * n
		}
		a.sb[o] = float64(a.ver[k])
	}
	a.ms, a.ex = a.ms[:0], a.ex[:0]
	for k := range a.nb {
		b := &a.nb[k]
		if !b.present {
			continue
		}
		a.ms = append(a.ms, consensus.Msg{From: a.id, To: b.j, Round: t, Phase: 1, Data: a.sb})
		a.ex = append(a.ex, b.j)
	}
	return consensus.Outbox{Msgs: a.ms, Expect: a.ex}
}

// exactStep computes, with d_i the graph degree,
//
//	x_i <- argmin_x (1/N) f_i(x) + <Lambda_i, x> + (rho/2) sum_{e at i} ||x - z_e||^2
//	     = prox_{f_i}(v, N rho d_i),  v = (sum_{e at i} z_e - Lambda_i / rho) / d_i,
//
// and keeps x_i when d_i = 0.
func (a *Agent) exactStep() {
	d := len(a.nb)
	if d == 0 {
		return
	}
	a.lambda(a.v)
	ExactX(a.l.Prox, a.v, a.z, d, a.cfg.Rho, a.l.InvN, a.w, a.x)
}

// linearizedStep computes, with the sample xi_i of round t,
//
//	x_i <- x_i - [ (1/N) G_i(x_i, xi_i) + Lambda_i + rho sum_{e at i} (x_i - z_e) ] / (rho d_i + 1/tau_i).
func (a *Agent) linearizedStep(t int) {
	n, rho := a.n, a.cfg.Rho
	g, lam := a.w, a.v
	a.l.Sample(t, a.x, g)
	a.lambda(lam)
	for l := range g {
		g[l] = float64(g[l]*a.l.InvN) + lam[l]
	}
	for k := range a.nb {
		zk := a.z[k*n : (k+1)*n]
		for l := range g {
			g[l] += float64(rho * (a.x[l] - zk[l]))
		}
	}
	step := 1 / (float64(rho*float64(len(a.nb))) + 1/a.l.Tau)
	for l := range a.x {
		a.x[l] -= float64(step * g[l])
	}
}

// Receive implements consensus.Agent. In phase 0 the owner of every
// present edge e = {i, j} (i < j) whose x_j arrived writes, from x_i and
// x_j,
//
//	z_e <- (x_i + x_j)/2,  y_e <- (y_e + y_e)/2 + (rho/2)(x_i - x_j),  version t+1
//
// ((y + y)/2 = y exactly; the expression is kept so that lossless runs
// keep the bits consensus/golden pins); the other edges keep z_e and y_e. In phase 1 the reader of every present
// edge whose owner's message arrived replaces its copies of z_e and y_e
// and their version by the owner's; a copy whose message is missing keeps
// its older values.
func (a *Agent) Receive(t, ph int, in consensus.Inbox) error {
	if !a.sent || t != a.round || ph != a.phase {
		return fmt.Errorf("radmm: agent %d: receive of round %d phase %d: expected round %d phase %d after its send", a.id, t, ph, a.round, a.phase)
	}
	a.sent = false
	if ph == 1 {
		if err := a.collectEdges(t, in); err != nil {
			return fmt.Errorf("radmm: agent %d: round %d: %w", a.id, t, err)
		}
		a.round++
		a.phase = 0
		return nil
	}
	if err := a.collect(t, in); err != nil {
		return fmt.Errorf("radmm: agent %d: round %d: %w", a.id, t, err)
	}
	n := a.n
	for k := range a.nb {
		b := &a.nb[k]
		if !b.live || !b.owner() {
			continue
		}
		EdgeStep(a.z[k*n:(k+1)*n], a.y[k*n:(k+1)*n], a.x, a.xj[k*n:(k+1)*n], a.cfg.Rho)
		a.ver[k] = int64(t) + 1
	}
	if a.Phases(t) > 1 {
		a.phase = 1
		return nil
	}
	a.round++
	return nil
}

// collect copies x_j of every arrived message into the edge's buffer and
// marks the edge live. Present edges whose message is missing stay not
// live.
func (a *Agent) collect(t int, in consensus.Inbox) error {
	n, k := a.n, 0
	for _, m := range in.Msgs {
		for k < len(a.nb) && (a.nb[k].j < m.From || !a.nb[k].present) {
			k++
		}
		if k == len(a.nb) || a.nb[k].j != m.From {
			return fmt.Errorf("message from agent %d, which was not expected (or out of order)", m.From)
		}
		if m.Round != t || m.Phase != 0 {
			return fmt.Errorf("message from agent %d is for round %d phase %d", m.From, m.Round, m.Phase)
		}
		if len(m.Data) != n {
			return fmt.Errorf("message from agent %d has %d values, want n = %d", m.From, len(m.Data), n)
		}
		copy(a.xj[k*n:(k+1)*n], m.Data)
		a.nb[k].live = true
		k++
	}
	return nil
}

// collectEdges reads the edge's part of every arrived phase-1 payload:
// from an owner, (z_e, y_e, version) into the copies; from a reader, the
// version of its copy into acked.
func (a *Agent) collectEdges(t int, in consensus.Inbox) error {
	n, k := a.n, 0
	for _, m := range in.Msgs {
		for k < len(a.nb) && (a.nb[k].j < m.From || !a.nb[k].present) {
			k++
		}
		if k == len(a.nb) || a.nb[k].j != m.From {
			return fmt.Errorf("edge message from agent %d, which was not expected (or out of order)", m.From)
		}
		if m.Round != t || m.Phase != 1 {
			return fmt.Errorf("edge message from agent %d is for round %d phase %d", m.From, m.Round, m.Phase)
		}
		b := &a.nb[k]
		if len(m.Data) != b.plen {
			return fmt.Errorf("edge message from agent %d has %d values, want %d", m.From, len(m.Data), b.plen)
		}
		part := m.Data[b.off : b.off+1] // the reader's version
		if !b.owner() {
			part = m.Data[b.off : b.off+2*n+1] // the owner's (z_e, y_e, version)
		}
		v := part[len(part)-1]
		if !(v >= 0 && v <= float64(t)+1 && v == math.Trunc(v)) {
			return fmt.Errorf("edge message from agent %d has version %v, want an integer in [0, %d]", m.From, v, t+1)
		}
		if b.owner() {
			a.acked[k] = int64(v)
		} else {
			copy(a.z[k*n:(k+1)*n], part[:n])
			copy(a.y[k*n:(k+1)*n], part[n:2*n])
			a.ver[k] = int64(v)
		}
		k++
	}
	return nil
}
