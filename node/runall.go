package node

import (
	"context"
	"errors"
	"fmt"

	"github.com/consim/consim/consensus"
	"golang.org/x/sync/errgroup"
)

// RunAll runs agents as goroutines over tr, one Run each, and returns when
// all have ended; the error joins the agents' errors. It connects every
// endpoint before the first agent starts and closes each as soon as its
// agent's Run returns, so frames still sent to a departed agent are
// discarded instead of queueing for a reader that is gone. One
// agent's failure does not cancel the others: its leave frame releases
// its peers, which finish with dropouts. RunAll does not start the run:
// the coordinator (or StartWhenReady) must send the start control once
// the agents are ready, through an Observer connected before RunAll is
// called. opts.N defaults to len(agents).
//
// With opts.Workers = W > 0 and opts.Oracle set, RunAll also runs the
// run's W oracle workers, from before the first agent connects until the
// last one ends: on a transport with remote workers (EvalTransport, i.e.
// NATS) W OracleWorkers, each on its own connection in the queue group;
// otherwise W goroutines of this process that all its agents share.
func RunAll(ctx context.Context, agents []consensus.Agent, tr Transport, opts Options) error {
	if opts.N == 0 {
		opts.N = len(agents)
	}
	stopWorkers, err := startWorkers(tr, &opts)
	if err != nil {
		return err
	}
	if opts.clock = newLiveClock(opts); opts.clock != nil {
		defer opts.clock.stop()
	}
	if opts.gate = gateFor(len(agents)); opts.gate != nil {
		defer context.AfterFunc(ctx, opts.gate.close)()
	}
	eps := make([]Endpoint, 0, len(agents))
	closeAll := func() error {
		var errs []error
		for _, ep := range eps {
			errs = append(errs, ep.Close())
		}
		return errors.Join(append(errs, stopWorkers())...)
	}
	for _, a := range agents {
		ep, err := tr.Endpoint(a.ID())
		if err != nil {
			return errors.Join(fmt.Errorf("node: connect agent %d: %w", a.ID(), err), closeAll())
		}
		eps = append(eps, ep)
	}
	errs := make([]error, 2*len(agents)) // Run's error, then Close's
	var g errgroup.Group
	for i, a := range agents {
		g.Go(func() error {
			errs[i] = Run(ctx, a, eps[i], opts)
			errs[len(agents)+i] = eps[i].Close()
			return nil
		})
	}
	_ = g.Wait() // every error is in errs
	return errors.Join(append(errs, stopWorkers())...)
}

// StartWhenReady reads statuses from obs until agents 0..n-1 have all
// published ready, then sends the start control. A failed status before
// that, a closed status channel or the end of ctx is an error. Statuses
// read here are consumed; later ones stay queued for the caller.
func StartWhenReady(ctx context.Context, obs Observer, n int) error {
	ready := make([]bool, n)
	left := n
	for left > 0 {
		select {
		case f, ok := <-obs.Statuses():
			if !ok {
				return fmt.Errorf("node: status channel closed with %d of %d agents ready", n-left, n)
			}
			s, err := DecodeStatus(f)
			if err != nil {
				return fmt.Errorf("node: waiting for ready agents: %w", err)
			}
			switch {
			case s.Kind == StatusFailed:
				return fmt.Errorf("node: agent %d failed before start: %s", s.ID, s.Err)
			case s.Kind != StatusReady:
			case s.ID < 0 || s.ID >= n:
				return fmt.Errorf("node: ready status from agent %d: ids are 0..%d", s.ID, n-1)
			case !ready[s.ID]:
				ready[s.ID] = true
				left--
			}
		case <-ctx.Done():
			return fmt.Errorf("node: %d of %d agents ready: %w", n-left, n, ctx.Err())
		}
	}
	if err := obs.Control(EncodeControl(Control{Kind: ControlStart})); err != nil {
		return fmt.Errorf("node: send start: %w", err)
	}
	return nil
}
