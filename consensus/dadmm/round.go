package dadmm

import (
	"fmt"

	"github.com/consim/consim/consensus"
)

// Send implements consensus.Agent: it draws the round's edges and sends
// x_i to every present neighbour, expecting x_j back. The returned slices
// are owned by the agent and stay valid until the next Send. A call for a
// round or phase other than the one due returns an empty outbox, and the
// following Receive fails.
func (a *Agent) Send(t, ph int) consensus.Outbox { return a.send(t, ph, a.x) }

// Receive implements consensus.Agent: it stores the neighbours' x_j, takes
// the dual step (from round 1 on) and the primal step of the method. An
// agent isolated in round t (it has graph neighbours but no live edge:
// none present in the draw, or every present neighbour's x_j lost) takes
// neither step:
//
//	x_i^{t+1} = x_i^t,  a_i^t = a_i^{t-1}   when d_i(t) = 0 < |N_i|.
func (a *Agent) Receive(t, ph int, in consensus.Inbox) error {
	if err := a.receive(t, ph, in); err != nil {
		return fmt.Errorf("dadmm: agent %d: %w", a.id, err)
	}
	if a.isolated() {
		a.round++
		return nil
	}
	if t > 0 {
		a.dualStep(a.cfg.C, a.x, a.a)
	}
	switch a.cfg.Method {
	case MethodExact:
		a.exactStep()
	case MethodLinearized:
		a.linearizedStep(t)
	}
	a.round++
	return nil
}

// exactStep computes
//
//	x_i <- argmin_x (1/N) f_i(x) + <a_i, x> + c sum_{j live} ||x - (x_i + x_j)/2||^2 + (gamma/2)||x - x_i||^2
//	     = prox_{f_i}(v, C),  C = N (2c d_i + gamma),
//	v    = [c (d_i x_i + sum_{j live} x_j) + gamma x_i - a_i] / (2c d_i + gamma),
//
// and keeps x_i when 2c d_i + gamma = 0 (no live edge and gamma = 0; with
// graph neighbours the agent is isolated and Receive does not call it).
func (a *Agent) exactStep() {
	d := a.liveSum(a.v)
	c, gamma := a.cfg.C, a.cfg.Gamma
	w := float64(2*c*float64(d)) + gamma
	if w == 0 {
		return
	}
	cd := float64(c * float64(d))
	for l := range a.v {
		a.v[l] = (float64(c*a.v[l]) + float64((cd+gamma)*a.x[l]) - a.a[l]) / w
	}
	a.l.Prox.Prox(a.v, w/a.l.InvN, a.x)
}

// linearizedStep computes, with the sample xi_i of round t,
//
//	x_i <- x_i - [ (1/N) G_i(x_i, xi_i) + a_i + c sum_{j live} (x_i - x_j) ] / (2c d_i + 1/tau_i).
func (a *Agent) linearizedStep(t int) {
	n, c := a.n, a.cfg.C
	g := a.v
	a.l.Sample(t, a.x, g)
	var d int
	for l := range g {
		g[l] = float64(g[l]*a.l.InvN) + a.a[l]
	}
	for k := range a.nb {
		if !a.nb[k].live {
			continue
		}
		d++
		xj := a.xj[k*n : (k+1)*n]
		for l := range g {
			g[l] += float64(c * (a.x[l] - xj[l]))
		}
	}
	step := 1 / (float64(2*c*float64(d)) + 1/a.l.Tau)
	for l := range a.x {
		a.x[l] -= float64(step * g[l])
	}
}
