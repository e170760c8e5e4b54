package radmm

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
)

// Send implements consensus.Agent. It draws the round's edges; if one of
// the agent's edges is present (or the agent has no neighbours), it takes
// the x-step of the method from the values of the previous round, then
// sends (x_i, y_e^(i)) to every present neighbour j and expects (x_j,
// y_e^(j)) back. An agent without a present edge keeps x_i and sends
// nothing. A repeated call for the due round returns the same outbox
// without stepping again; a call for a round or phase other than the one
// due returns an empty outbox, and the following Receive fails. The
// returned slices are owned by the agent and stay valid until the next
// Send.
func (a *Agent) Send(t, ph int) consensus.Outbox {
	if t != a.round || ph != 0 {
		a.sent = false
		return consensus.Outbox{}
	}
	if a.sent {
		return a.out
	}
	a.sent = true
	n := a.n
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
	for k := range a.nb {
		b := &a.nb[k]
		if !b.present {
			continue
		}
		buf := a.sb[k*2*n : (k+1)*2*n]
		copy(buf[:n], a.x)
		copy(buf[n:], a.y[k*n:(k+1)*n])
		a.ms = append(a.ms, consensus.Msg{From: a.id, To: b.j, Round: t, Phase: 0, Data: buf})
		a.ex = append(a.ex, b.j)
	}
	a.out = consensus.Outbox{Msgs: a.ms, Expect: a.ex}
	return a.out
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
	n, rho := a.n, a.cfg.Rho
	lam, v := a.v, a.w
	a.lambda(lam)
	clear(v)
	for k := range a.nb {
		zk := a.z[k*n : (k+1)*n]
		for l := range v {
			v[l] += zk[l]
		}
	}
	fd := float64(d)
	for l := range v {
		v[l] = (v[l] - lam[l]/rho) / fd
	}
	a.prox.Prox(v, float64(rho*fd)/a.invN, a.x)
}

// linearizedStep computes, with the sample xi_i of round t,
//
//	x_i <- x_i - [ (1/N) G_i(x_i, xi_i) + Lambda_i + rho sum_{e at i} (x_i - z_e) ] / (rho d_i + 1/tau_i).
func (a *Agent) linearizedStep(t int) {
	n, rho := a.n, a.cfg.Rho
	graph.SeedSample(a.pcg, a.cfg.Seed, t, a.id)
	g, lam := a.w, a.v
	a.gradEvals += int64(a.f.StochGrad(a.x, g, a.rng))
	a.lambda(lam)
	for l := range g {
		g[l] = float64(g[l]*a.invN) + lam[l]
	}
	for k := range a.nb {
		zk := a.z[k*n : (k+1)*n]
		for l := range g {
			g[l] += float64(rho * (a.x[l] - zk[l]))
		}
	}
	step := 1 / (float64(rho*float64(len(a.nb))) + 1/a.tau)
	for l := range a.x {
		a.x[l] -= float64(step * g[l])
	}
}

// Receive implements consensus.Agent: for every present edge e = {i, j}
// whose message arrived it sets, with lo < hi the endpoints,
//
//	z_e <- (x_lo + x_hi)/2,  y_e <- (y_e^(lo) + y_e^(hi))/2 + (rho/2)(x_lo - x_hi),
//
// from its own and the received values; the other edges keep z_e and y_e.
func (a *Agent) Receive(t, ph int, in consensus.Inbox) error {
	if !a.sent || t != a.round || ph != 0 {
		return fmt.Errorf("radmm: agent %d: receive of round %d phase %d: expected round %d phase 0 after its send", a.id, t, ph, a.round)
	}
	a.sent = false
	if err := a.collect(t, in); err != nil {
		return fmt.Errorf("radmm: agent %d: round %d: %w", a.id, t, err)
	}
	n, hr := a.n, 0.5*a.cfg.Rho
	for k := range a.nb {
		b := &a.nb[k]
		if !b.live {
			continue
		}
		xlo, xhi := a.x, a.xj[k*n:(k+1)*n]
		ylo, yhi := a.y[k*n:(k+1)*n], a.yj[k*n:(k+1)*n]
		if b.sign < 0 {
			xlo, xhi = xhi, xlo
			ylo, yhi = yhi, ylo
		}
		zk, yk := a.z[k*n:(k+1)*n], a.y[k*n:(k+1)*n]
		for l := range zk {
			zk[l] = float64(0.5 * (xlo[l] + xhi[l]))
			yk[l] = float64(0.5*(ylo[l]+yhi[l])) + float64(hr*(xlo[l]-xhi[l]))
		}
	}
	a.round++
	return nil
}

// collect copies (x_j, y_e^(j)) of every arrived message into the edge's
// buffers and marks the edge live. Present edges whose message is missing
// stay not live.
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
		if len(m.Data) != 2*n {
			return fmt.Errorf("message from agent %d has %d values, want 2n = %d", m.From, len(m.Data), 2*n)
		}
		copy(a.xj[k*n:(k+1)*n], m.Data[:n])
		copy(a.yj[k*n:(k+1)*n], m.Data[n:])
		a.nb[k].live = true
		k++
	}
	return nil
}
