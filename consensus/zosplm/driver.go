package zosplm

import (
	"fmt"

	"github.com/consim/consim/consensus"
)

// Driver runs one agent that talks only to oracle workers (a Method, or
// any consensus.Agent whose phases carry Evals and no messages) by
// evaluating its requests in-line, in request order, with one Oracle: the
// fan-out of the runtime with a single worker and no transport. Its result
// buffers are reused from round to round. A Driver is not safe for
// concurrent use.
type Driver struct {
	agent  consensus.Agent
	oracle consensus.Oracle
	bufs   [][]float64
	res    [][]float64
	t      int
}

// NewDriver returns a driver of agent with oracle, at round 0.
func NewDriver(agent consensus.Agent, oracle consensus.Oracle) *Driver {
	return &Driver{agent: agent, oracle: oracle}
}

// Rounds is the number of rounds completed.
func (d *Driver) Rounds() int { return d.t }

// Round runs the next round: for every phase, Send, evaluate the requests
// in order, Receive.
func (d *Driver) Round() error {
	t := d.t
	for ph := range d.agent.Phases(t) {
		out := d.agent.Send(t, ph)
		if len(out.Msgs) > 0 || len(out.Expect) > 0 || out.Reduce != nil {
			return fmt.Errorf("zosplm: driver: round %d phase %d: the agent exchanges messages; the in-line driver only evaluates", t, ph)
		}
		for len(d.bufs) < len(out.Evals) {
			d.bufs = append(d.bufs, nil)
		}
		d.res = d.res[:0]
		for i, req := range out.Evals {
			v, err := d.oracle.Evaluate(req, d.bufs[i][:0])
			if err != nil {
				return fmt.Errorf("zosplm: driver: round %d phase %d request %d: %w", t, ph, i, err)
			}
			d.bufs[i] = v
			d.res = append(d.res, v)
		}
		in := consensus.Inbox{}
		if len(out.Evals) > 0 {
			in.Evals = d.res
		}
		if err := d.agent.Receive(t, ph, in); err != nil {
			return err
		}
	}
	d.t++
	return nil
}

// Run runs rounds until after returns true or an error, or maxRounds
// rounds are done; after(t) is called after round t. It returns the
// number of rounds run.
func (d *Driver) Run(maxRounds int, after func(t int) (stop bool, err error)) (int, error) {
	for range maxRounds {
		if err := d.Round(); err != nil {
			return d.t, err
		}
		if after != nil {
			stop, err := after(d.t - 1)
			if err != nil || stop {
				return d.t, err
			}
		}
	}
	return d.t, nil
}
