package node

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/consim/consim/consensus"
)

// EvalPublisher is implemented by endpoints whose run has remote oracle
// workers (NATS): PublishEval hands an eval frame to exactly one of them
// (a queue group), whose results come back to the agent's inbox. Without
// it, evaluations run in the agent's process (see Options.Workers).
type EvalPublisher interface {
	PublishEval(frame []byte) error
}

// Chunking of a batch for remote workers: a chunk holds at most
// ceil(n / (evalChunksPerWorker W)) requests, but no fewer than
// evalMinChunk, and at most evalMaxChunkWords words (1 MiB) unless a
// single request is larger. Several chunks per worker balance the queue
// group's random assignment; the floors keep small requests from costing
// one message each (a batch of 10,000 requests of 50 values is 16 frames
// of about 265 KB for W = 4).
const (
	evalChunksPerWorker = 4
	evalMinChunk        = 16
	evalMaxChunkWords   = 1 << 17
)

// evalSpan is the request range [lo, hi) of one chunk.
type evalSpan struct{ lo, hi int }

// evalState is a runner's evaluation fan-out: where its batches are
// evaluated and the state of the current phase's batch.
type evalState struct {
	inline  consensus.Oracle // W = 0: the agent's own oracle
	pool    *evalPool        // W > 0 in process: shared or own
	ownPool bool

	reqs    []consensus.EvalRequest // the phase's batch, nil if none
	out     [][]float64             // out[i]: values of reqs[i]
	got     []bool                  // got[i]: out[i] arrived (remote)
	wait    int                     // requests still unanswered (remote)
	chunks  []evalSpan              // the batch's chunks (remote)
	seq     uint64                  // number of the batch (remote)
	key     uint64                  // phaseKey of the batch
	sentAt  time.Time               // publication of the chunks
	retried bool
	failed  error // a worker's failure report
	reply   EvalReply
	buf     []byte
}

// close stops the runner's own worker pool, if it started one.
func (e *evalState) close() {
	if e.ownPool && e.pool != nil {
		e.pool.close()
	}
}

// results returns the values of the phase's batch for Inbox.Evals; nil
// without a batch.
func (e *evalState) results() [][]float64 {
	if e.reqs == nil {
		return nil
	}
	return e.out[:len(e.reqs)]
}

// startEvals starts the phase's batch of evaluations reqs: with W = 0 it
// evaluates them in the agent's goroutine, on an endpoint with remote
// workers it publishes them in chunks (awaitEvals collects the results),
// otherwise it evaluates them on the process's W workers.
func (r *runner) startEvals(t, ph int, reqs []consensus.EvalRequest) error {
	e := &r.ev
	e.reqs, e.wait, e.failed, e.retried = nil, 0, nil, false
	if len(reqs) == 0 {
		return nil
	}
	n := len(reqs)
	if n > maxEvalIndex {
		return fmt.Errorf("%d evaluation requests exceed the limit %d", n, maxEvalIndex)
	}
	e.reqs, e.key = reqs, phaseKey(t, ph)
	for len(e.out) < n {
		e.out = append(e.out, nil)
		e.got = append(e.got, false)
	}
	r.tr.Evals += int64(n)
	if r.o.Workers > 0 {
		if pub, ok := r.ep.(EvalPublisher); ok {
			return r.publishEvals(pub, t, ph)
		}
	}
	var fail *evalFailure
	if r.o.Workers == 0 {
		if e.inline == nil {
			if r.o.Oracle == nil {
				return fmt.Errorf("%d evaluation requests, but the run has no oracle (Options.Oracle)", n)
			}
			if e.inline = r.o.Oracle(0); e.inline == nil {
				return errors.New("Options.Oracle(0) returned nil")
			}
		}
		for i := range reqs {
			var err error
			if e.out[i], err = evaluate(e.inline, reqs[i], e.out[i][:0]); err != nil {
				fail = &evalFailure{index: i, err: err}
				break
			}
		}
	} else {
		if e.pool == nil {
			e.pool = r.o.pool
		}
		if e.pool == nil {
			p, err := newEvalPool(r.o.Workers, r.o.Oracle)
			if err != nil {
				return fmt.Errorf("%d evaluation requests: %w", n, err)
			}
			e.pool, e.ownPool = p, true
		}
		fail = e.pool.evaluate(reqs, e.out)
	}
	if fail != nil {
		return fmt.Errorf("eval request %d of %d (op %d): %w", fail.index, n, reqs[fail.index].Op, fail.err)
	}
	return nil
}

// publishEvals splits the batch into chunks and publishes them.
func (r *runner) publishEvals(pub EvalPublisher, t, ph int) error {
	e := &r.ev
	n := len(e.reqs)
	e.seq++
	clear(e.got[:n])
	e.wait = n
	per := max((n+evalChunksPerWorker*r.o.Workers-1)/(evalChunksPerWorker*r.o.Workers), evalMinChunk)
	e.chunks = e.chunks[:0]
	for lo := 0; lo < n; {
		hi, words := lo, 3
		for hi < n && hi-lo < per {
			w := 3 + len(e.reqs[hi].Arg)
			if hi > lo && words+w > evalMaxChunkWords {
				break
			}
			words += w
			hi++
		}
		e.chunks = append(e.chunks, evalSpan{lo, hi})
		lo = hi
	}
	e.sentAt = time.Now()
	for _, c := range e.chunks {
		if err := r.publishChunk(pub, c); err != nil {
			return err
		}
	}
	return nil
}

// publishChunk encodes and publishes chunk c of the current batch.
func (r *runner) publishChunk(pub EvalPublisher, c evalSpan) error {
	e := &r.ev
	f, err := AppendEvalChunk(e.buf[:0], r.id, int(e.key>>16), int(e.key&0xffff), e.seq, c.lo, e.reqs[c.lo:c.hi])
	if err != nil {
		return err
	}
	e.buf = f
	if err := pub.PublishEval(f); err != nil {
		return fmt.Errorf("publish eval requests %d..%d: %w", c.lo, c.hi-1, err)
	}
	r.tr.EvalFrames++
	r.tr.EvalBytes += int64(len(f))
	return nil
}

// receiveEval handles an eval frame from the inbox: results of the
// current batch are stored by request index (a repeat is ignored), a
// failure ends the wait, replies to earlier batches are late.
func (r *runner) receiveEval(h Header, f []byte) {
	e := &r.ev
	r.tr.EvalFrames++
	r.tr.EvalBytes += int64(len(f))
	if h.Kind == FrameEval {
		r.tr.Unexpected++ // requests are for the workers
		return
	}
	if h.From != r.id {
		r.tr.Unexpected++
		return
	}
	rp := &e.reply
	if err := DecodeEvalReply(rp, f); err != nil {
		r.tr.Malformed++
		if r.log.IsDebug() {
			r.log.Debug("dropped malformed eval reply", "error", err)
		}
		return
	}
	if e.reqs == nil || rp.Seq != e.seq || phaseKey(h.Round, h.Phase) != e.key {
		r.tr.Late++
		return
	}
	n := len(e.reqs)
	if h.Kind == FrameEvalFail {
		if rp.Start >= n {
			r.tr.Malformed++
			return
		}
		if e.failed == nil {
			e.failed = fmt.Errorf("oracle worker %d: eval request %d of %d (op %d): %s",
				rp.Worker, rp.Start, n, e.reqs[rp.Start].Op, rp.Err)
		}
		return
	}
	if rp.Start+len(rp.Values) > n {
		r.tr.Malformed++
		return
	}
	for k, v := range rp.Values {
		i := rp.Start + k
		if e.got[i] {
			continue
		}
		e.out[i] = append(e.out[i][:0], v...)
		e.got[i] = true
		e.wait--
	}
}

// awaitEvals waits until every request of the phase's remote batch has its
// result. At EvalDeadline after the publication the chunks still
// unanswered are published once more; those unanswered EvalDeadline after
// that are counted in EvalMissing and returned as an error, as is a
// worker's failure report.
func (r *runner) awaitEvals(ctx context.Context) error {
	e := &r.ev
	if e.failed == nil && e.wait == 0 {
		return nil
	}
	r.arm(e.sentAt.Add(r.o.EvalDeadline))
	defer r.disarm()
	for e.failed == nil && e.wait > 0 {
		got, err := r.poll()
		if err != nil {
			return err
		}
		if got {
			continue
		}
		expired, err := r.wait(ctx)
		if err != nil {
			return err
		}
		if !expired {
			continue
		}
		missing := r.missingChunks()
		if !e.retried {
			e.retried = true
			r.log.Warn("eval chunks unanswered: publishing them again", "round", e.key>>16, "phase", e.key&0xffff,
				"chunks", len(missing), "deadline", r.o.EvalDeadline)
			pub := r.ep.(EvalPublisher) // the batch was published through it
			for _, c := range missing {
				if err := r.publishChunk(pub, c); err != nil {
					return err
				}
				r.tr.EvalRetries++
			}
			r.arm(time.Now().Add(r.o.EvalDeadline))
			continue
		}
		r.tr.EvalMissing += int64(len(missing))
		spans := make([]string, len(missing))
		for k, c := range missing {
			spans[k] = fmt.Sprintf("%d..%d", c.lo, c.hi-1)
		}
		return fmt.Errorf("%d of %d eval chunks (requests %s) unanswered within %v of their publication and again %v after it was repeated: no oracle worker answered",
			len(missing), len(e.chunks), strings.Join(spans, ", "), r.o.EvalDeadline, r.o.EvalDeadline)
	}
	return e.failed
}

// missingChunks returns the chunks of the current batch with a request
// still unanswered.
func (r *runner) missingChunks() []evalSpan {
	e := &r.ev
	var missing []evalSpan
	for _, c := range e.chunks {
		for i := c.lo; i < c.hi; i++ {
			if !e.got[i] {
				missing = append(missing, c)
				break
			}
		}
	}
	return missing
}
