package alm

import "fmt"

// Rejoin makes round t the next round the agent runs, keeping x_i, z_i,
// its dual replicas and its counters: the agent was down for the rounds
// in between (a crash with restart in the runtime) and takes no step for
// them. t must not precede the round due, nor lie beyond the horizon.
func (a *Agent) Rejoin(t int) error {
	switch {
	case t < a.round:
		return fmt.Errorf("alm: agent %d: rejoin at round %d: round %d is already done", a.id, t, a.round-1)
	case a.cfg.Rounds > 0 && t >= a.cfg.Rounds:
		return fmt.Errorf("alm: agent %d: rejoin at round %d: beyond the horizon T = %d", a.id, t, a.cfg.Rounds)
	}
	a.round, a.phase, a.sent = t, 0, false
	return nil
}
