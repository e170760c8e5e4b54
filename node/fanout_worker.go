package node

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/consim/consim/consensus"
	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go"
)

// EvalConn is an oracle worker's connection to a run.
type EvalConn interface {
	// Requests yields the eval frames (FrameEval) given to this worker,
	// in arrival order.
	Requests() <-chan []byte
	// Reply delivers frame to agent to's inbox.
	Reply(to int, frame []byte) error
	// Close releases the connection; Requests is closed.
	Close() error
}

// EvalTransport is implemented by transports whose oracle workers are
// connections of their own, which may live in other processes (NATS).
type EvalTransport interface {
	// EvalWorker connects oracle worker w: it shares the run's requests
	// with the other workers connected, each request frame going to one.
	// The subscription is registered at the server when it returns.
	EvalWorker(w int) (EvalConn, error)
}

// OracleWorker is the oracle worker role: it evaluates the chunks of
// requests its connection yields and replies to the requesting agents.
type OracleWorker struct {
	// ID is the worker's index w, reported in its replies.
	ID int
	// Oracle evaluates the requests; required. Serve uses it from one
	// goroutine.
	Oracle consensus.Oracle
	// Logger receives dropped requests and failed replies. Default:
	// discard.
	Logger hclog.Logger
}

// Serve answers the request frames of conn until conn closes (it returns
// nil) or ctx ends (it returns ctx.Err()). For each chunk it replies to
// the requesting agent with the results in request order, in frames of at
// most 1 MiB (a single larger result gets a frame of its own), or, at the
// first request the oracle fails on (an error or a panic), with a failure
// frame naming that request. A frame that does not decode is logged and
// dropped; its agent sees the chunk missing.
func (w OracleWorker) Serve(ctx context.Context, conn EvalConn) error {
	if w.Oracle == nil {
		return fmt.Errorf("node: oracle worker %d: no oracle", w.ID)
	}
	if w.ID < 0 || uint64(w.ID) > MaxFrameID {
		return fmt.Errorf("node: oracle worker id %d outside [0, %d]", w.ID, uint64(MaxFrameID))
	}
	log := w.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	log = log.With("worker", w.ID)
	var (
		chunk EvalChunk
		out   [][]float64
		buf   []byte
	)
	reqs := conn.Requests()
	for {
		var f []byte
		select {
		case g, ok := <-reqs:
			if !ok {
				return nil
			}
			f = g
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := DecodeEvalChunk(&chunk, f); err != nil {
			log.Warn("dropped eval frame", "error", err)
			continue
		}
		for len(out) < len(chunk.Reqs) {
			out = append(out, nil)
		}
		failed := -1
		var ferr error
		for k, q := range chunk.Reqs {
			if out[k], ferr = evaluate(w.Oracle, q, out[k][:0]); ferr != nil {
				failed = k
				break
			}
		}
		var err error
		if failed >= 0 {
			buf, err = w.replyFail(conn, buf, &chunk, failed, ferr)
		} else {
			buf, err = w.replyResults(conn, buf, &chunk, out[:len(chunk.Reqs)])
		}
		if err != nil {
			log.Warn("eval reply not delivered", "agent", chunk.From, "round", chunk.Round, "phase", chunk.Phase, "error", err)
		}
	}
}

// replyResults sends the results vals of chunk c to its agent, split into
// frames of at most evalMaxChunkWords words where possible.
func (w OracleWorker) replyResults(conn EvalConn, buf []byte, c *EvalChunk, vals [][]float64) ([]byte, error) {
	for lo := 0; lo < len(vals); {
		hi, words := lo, 4
		for hi < len(vals) {
			n := 1 + len(vals[hi])
			if hi > lo && words+n > evalMaxChunkWords {
				break
			}
			words += n
			hi++
		}
		f, err := AppendEvalResults(buf[:0], c.From, c.Round, c.Phase, c.Seq, w.ID, c.Start+lo, vals[lo:hi])
		if err != nil {
			return buf, err
		}
		buf = f
		if err := conn.Reply(c.From, f); err != nil {
			return buf, err
		}
		lo = hi
	}
	return buf, nil
}

// replyFail tells chunk c's agent that request k of the chunk failed.
func (w OracleWorker) replyFail(conn EvalConn, buf []byte, c *EvalChunk, k int, cause error) ([]byte, error) {
	f, err := AppendEvalFail(buf[:0], c.From, c.Round, c.Phase, c.Seq, w.ID, c.Start+k, cause.Error())
	if err != nil {
		return buf, err
	}
	return f, conn.Reply(c.From, f)
}

// EvalWorker implements EvalTransport: a connection subscribed to
// SubjectEval in the queue group EvalQueue, publishing its replies on
// SubjectResult(run, w), from which the agents' connections hand them to
// the agent each names. Requests whose MAC fails are dropped, logged and
// counted (Refused).
func (t *NATSTransport) EvalWorker(w int) (EvalConn, error) {
	if w < 0 {
		return nil, fmt.Errorf("node: NATS oracle worker %d: negative id", w)
	}
	role := "worker-" + strconv.Itoa(w)
	watch := t.newWatch(role)
	nc, err := t.connect(role, watch, nil)
	if err != nil {
		return nil, err
	}
	c := &natsEvalConn{nc: nc, mac: t.mac, subject: SubjectResult(t.opts.RunID, w), reqs: newMailbox(mailboxBuffer)}
	err = subscribe(nc, SubjectEval(t.opts.RunID), EvalQueue, func(m *nats.Msg) {
		frame, ok := c.mac.open(macEval, m.Data)
		if !ok {
			if n := c.refused.Add(1); n == 1 || n%1000 == 0 {
				t.log.Warn("dropped eval requests that failed the run's MAC", "worker", w, "dropped", n)
			}
			return
		}
		c.reqs.put(frame)
	})
	if err == nil {
		err = nc.FlushTimeout(t.opts.ConnectTimeout)
	}
	if err == nil {
		err = t.track(c.Close)
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("node: NATS oracle worker %d: %w", w, err)
	}
	watch.onLost(func() { c.Close() })
	return c, nil
}

// natsEvalConn is an oracle worker's NATS connection.
type natsEvalConn struct {
	nc      *nats.Conn
	mac     *macer
	subject string // SubjectResult(run, w)
	reqs    *mailbox
	refused atomic.Int64
	once    sync.Once
}

func (c *natsEvalConn) Requests() <-chan []byte { return c.reqs.C() }

// Reply publishes frame, a result or failure for agent to (its from
// field), on the worker's result subject.
func (c *natsEvalConn) Reply(to int, frame []byte) error {
	return c.mac.seal(macResult, frame, func(msg []byte) error { return c.nc.Publish(c.subject, msg) })
}

// Refused returns the number of requests dropped for a failed MAC.
func (c *natsEvalConn) Refused() int64 { return c.refused.Load() }

// Close flushes the replies, closes the connection and the requests.
func (c *natsEvalConn) Close() error {
	var err error
	c.once.Do(func() {
		if c.nc.IsConnected() {
			if ferr := c.nc.FlushTimeout(natsCloseFlushTime); ferr != nil {
				err = fmt.Errorf("node: close NATS oracle worker: %w", ferr)
			}
		}
		c.nc.Close()
		c.reqs.close()
	})
	return err
}

// startWorkers starts the oracle workers of a RunAll with opts: none
// without Workers or Oracle; W goroutines, each with its own connection,
// on a transport with remote workers; otherwise an in-process pool that
// the agents share (opts.pool). The returned stop ends them.
func startWorkers(tr Transport, opts *Options) (stop func() error, err error) {
	if opts.Workers <= 0 || opts.Oracle == nil {
		return func() error { return nil }, nil
	}
	et, ok := tr.(EvalTransport)
	if !ok {
		p, err := newEvalPool(opts.Workers, opts.Oracle)
		if err != nil {
			return nil, err
		}
		opts.pool = p
		return func() error { p.close(); return nil }, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	conns := make([]EvalConn, 0, opts.Workers)
	errs := make([]error, opts.Workers)
	var wg sync.WaitGroup
	stop = func() error {
		cancel()
		var cerrs []error
		for _, c := range conns {
			cerrs = append(cerrs, c.Close())
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil && !errors.Is(err, context.Canceled) {
				cerrs = append(cerrs, err)
			}
		}
		return errors.Join(cerrs...)
	}
	for w := range opts.Workers {
		o := opts.Oracle(w)
		if o == nil {
			return nil, errors.Join(fmt.Errorf("node: Options.Oracle(%d) returned nil", w), stop())
		}
		c, err := et.EvalWorker(w)
		if err != nil {
			return nil, errors.Join(err, stop())
		}
		conns = append(conns, c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = OracleWorker{ID: w, Oracle: o, Logger: opts.Logger}.Serve(ctx, c)
		}()
	}
	return stop, nil
}
