package node

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/compress"
	"github.com/consim/consim/engine"
)

// errInboxClosed ends a run whose endpoint closed under it.
var errInboxClosed = errors.New("inbox closed")

// errStopInPhase ends a phase that a stop control found waiting for
// frames that had not arrived (see collect); the round loop then stops as
// it does on a stop control at the end of a round.
var errStopInPhase = errors.New("stop control during the phase")

// phase runs phase ph of round t: send, collect until complete or the
// deadline, deliver. The outbox is checked, and the inbox built, by the
// phase core (package engine).
func (r *runner) phase(ctx context.Context, t, ph int) error {
	r.cur = phaseKey(t, ph)
	r.closed = false
	out := r.a.Send(t, ph)
	if err := engine.CheckOutbox(r.id, r.o.N, out); err != nil {
		return fmt.Errorf("round %d phase %d: %w", t, ph, err)
	}
	r.in.Begin(out.Expect)
	if err := r.send(t, ph, out); err != nil {
		return fmt.Errorf("round %d phase %d: %w", t, ph, err)
	}
	r.next = phaseKey(t, ph+1)
	if err := r.startEvals(t, ph, out.Evals); err != nil {
		return fmt.Errorf("round %d phase %d: %w", t, ph, err)
	}

	r.waitMsgs = 0
	for _, j := range r.in.Expect() {
		if r.leaveOf(j) > r.cur {
			r.waitMsgs++
		}
	}
	r.waitTerms = 0
	if r.reduce {
		r.sumGot = false
		r.sumSent = false
		clear(r.termGot)
		r.termGot[r.id] = true
		if r.root == r.id {
			for _, j := range r.group.members {
				if j != r.id && r.leaveOf(j) > r.cur {
					r.waitTerms++
				}
			}
		} else {
			r.waitTerms = 1 // the root's sum
		}
	}
	r.takeFuture()
	if err := r.collect(ctx); err != nil {
		return fmt.Errorf("round %d phase %d: %w", t, ph, err)
	}
	in := r.deliver(t, ph)
	r.closed = true
	if r.reduce && r.root == r.id {
		r.broadcastSum(t, ph)
	}
	if err := r.awaitEvals(ctx); err != nil {
		return fmt.Errorf("round %d phase %d: %w", t, ph, err)
	}
	in.Evals = r.ev.results()
	if err := r.a.Receive(t, ph, in); err != nil {
		return fmt.Errorf("round %d phase %d: %w", t, ph, err)
	}
	return nil
}

// send encodes and sends the phase's messages and reduce term of out, an
// outbox engine.CheckOutbox accepted; the agent's own term is kept
// locally. Messages with the same values (the same slice, or equal bits)
// leave as one frame addressed to all their destinations, so the common
// "x_i to every neighbour" is one publish; under injected loss or delay
// every message is a frame of its own, since the faults act per edge.
func (r *runner) send(t, ph int, out consensus.Outbox) error {
	if r.faults != nil {
		for i := range out.Msgs {
			m := &out.Msgs[i]
			r.one[0] = m.To
			f, err := AppendDataTo(r.wbuf[:0], r.id, r.one[:], t, ph, m.Enc, m.Data)
			if err != nil {
				return err
			}
			r.wbuf = f
			if err := r.faults.send(m.To, f, t, ph); err != nil {
				r.sendFailed(m.To, err)
				continue
			}
			r.tr.MsgsSent++
			r.tr.BytesSent += r.wireLen(f, 1)
		}
	} else if err := r.sendGrouped(t, ph, out.Msgs); err != nil {
		return err
	}
	r.reduce = out.Reduce != nil
	if !r.reduce {
		return nil
	}
	r.group.set(out.Group, r.o.N)
	r.reduceLen = len(out.Reduce)
	if r.terms == nil {
		r.terms = make(map[int][]float64)
		r.termGot = make(map[int]bool)
	}
	r.terms[r.id] = append(r.terms[r.id][:0], out.Reduce...)
	r.earlyFrom = -1
	r.root = r.reduceRoot()
	if r.root == r.id {
		return nil
	}
	return r.sendTerm(t, ph)
}

// sendGroup is the destinations of one distinct payload of a phase.
type sendGroup struct {
	data []float64
	enc  compress.Encoding
	to   []int
}

// sendGrouped sends msgs as one frame per distinct payload (values and
// encoding). A payload is matched against every group by slice identity
// and against the last group by value, so an outbox of n messages costs
// O(n) comparisons in the usual cases (one shared slice, or one slice per
// message).
func (r *runner) sendGrouped(t, ph int, msgs []consensus.Msg) error {
	groups := r.groups[:0]
	for i := range msgs {
		m := &msgs[i]
		k := -1
		for g := range groups {
			if sameSlice(groups[g].data, m.Data) && groups[g].enc == m.Enc {
				k = g
				break
			}
		}
		if last := len(groups) - 1; k < 0 && last >= 0 && groups[last].enc == m.Enc && equalBits(groups[last].data, m.Data) {
			k = last
		}
		if k < 0 {
			if len(groups) < cap(groups) {
				groups = groups[:len(groups)+1]
				groups[len(groups)-1].data = m.Data
				groups[len(groups)-1].enc = m.Enc
				groups[len(groups)-1].to = groups[len(groups)-1].to[:0]
			} else {
				groups = append(groups, sendGroup{data: m.Data, enc: m.Enc})
			}
			k = len(groups) - 1
		}
		groups[k].to = append(groups[k].to, m.To)
	}
	r.groups = groups
	for g := range groups {
		gr := &groups[g]
		kind := FrameData
		if gr.enc.Compact() {
			kind = FrameCompact
		}
		f, err := r.encodeData(gr.to, t, ph, gr.enc, gr.data)
		gr.data = nil // the agent's slice is not kept past the phase
		if err != nil {
			return err
		}
		if err := r.publishFrame(f, kind, gr.to); err != nil {
			for _, j := range gr.to {
				r.sendFailed(j, err)
			}
			continue
		}
		r.tr.MsgsSent += int64(len(gr.to))
		r.tr.BytesSent += r.wireLen(f, len(gr.to))
	}
	return nil
}

// framePublisher is implemented by endpoints that publish a frame without
// copying it: the round loop encodes a frame of n bytes into
// frameBuffer(n), an empty slice with room for exactly n bytes that no
// later frameBuffer hands out again, and passes it to publishOwned with
// the kind and destination list it encoded (which the endpoint need not
// read back), after which it never touches the frame again (its readers
// share it). Both are called from the round loop's goroutine only.
type framePublisher interface {
	frameBuffer(n int) []byte
	publishOwned(frame []byte, kind FrameKind, to []int) error
}

// encodeFrame encodes the frame of kind from this agent to the
// destinations to (every agent when empty) for phase ph of round t,
// carrying data, into the buffer of the next publishFrame, which takes
// the same kind and to.
func (r *runner) encodeFrame(kind FrameKind, to []int, t, ph int, data []float64) ([]byte, error) {
	if r.owned != nil {
		return AppendFrameTo(r.owned.frameBuffer(frameLen(len(to), len(data))), kind, r.id, to, t, ph, data)
	}
	f, err := AppendFrameTo(r.wbuf[:0], kind, r.id, to, t, ph, data)
	r.wbuf = f
	return f, err
}

// encodeData is encodeFrame for a data frame carrying data with wire
// encoding enc (AppendDataTo).
func (r *runner) encodeData(to []int, t, ph int, enc compress.Encoding, data []float64) ([]byte, error) {
	if r.owned != nil {
		n, err := dataFrameLen(len(to), enc, data)
		if err != nil {
			return nil, fmt.Errorf("node: encode data frame: %w", err)
		}
		return AppendDataTo(r.owned.frameBuffer(n), r.id, to, t, ph, enc, data)
	}
	f, err := AppendDataTo(r.wbuf[:0], r.id, to, t, ph, enc, data)
	r.wbuf = f
	return f, err
}

// publishFrame publishes a frame of kind to the destinations to that
// encodeFrame returned.
func (r *runner) publishFrame(f []byte, kind FrameKind, to []int) error {
	if r.owned != nil {
		return r.owned.publishOwned(f, kind, to)
	}
	return r.ep.Publish(f)
}

// sameSlice reports whether a and b are the same slice of values.
func sameSlice(a, b []float64) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// equalBits reports whether a and b hold the same values bit for bit.
func equalBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// sendTerm sends this agent's all-reduce term of (t, ph) to the root. Only
// an encoding error is returned; a failed delivery is logged.
func (r *runner) sendTerm(t, ph int) error {
	r.one[0] = r.root
	f, err := r.encodeFrame(FrameReduce, r.one[:], t, ph, r.terms[r.id])
	if err != nil {
		return err
	}
	if err := r.publishFrame(f, FrameReduce, r.one[:]); err != nil {
		r.sendFailed(r.root, err)
		return nil
	}
	r.tr.MsgsSent++
	r.tr.BytesSent += r.wireLen(f, 1)
	return nil
}

// reduceRoot is the agent that gathers the terms of an all-reduce, sums
// them in ascending agent order and broadcasts the sum: the lowest agent
// not known to have left. A rooted reduce moves 2N frames where a
// broadcast of every term moves N^2, and gives the same bits.
//
// Agents that have seen different leave frames may pick different roots.
// When the root an agent picked leaves during the phase, the agent picks
// again (see switchRoot); terms that reach an agent that is not (yet) the
// root are kept for that case.
func (r *runner) reduceRoot() int {
	for _, j := range r.group.members {
		if j == r.id || r.leaveOf(j) > r.cur {
			return j
		}
	}
	return r.id
}

// broadcastSum sends the root's sum of the current phase to every agent,
// or to every other member of a group reduce still in the run.
func (r *runner) broadcastSum(t, ph int) {
	r.sumSent = true
	if r.group.grouped {
		r.sendGroupSum(t, ph)
		return
	}
	f, err := r.encodeFrame(FrameSum, nil, t, ph, r.sum)
	if err != nil {
		r.sendFailed(-1, err)
		return
	}
	if err := r.publishFrame(f, FrameSum, nil); err != nil {
		r.sendFailed(-1, err)
		return
	}
	r.tr.MsgsSent++
	r.tr.BytesSent += r.wireLen(f, 0)
}

// futureFrame is a buffered frame of a later phase.
type futureFrame struct {
	h   Header
	key uint64
	f   []byte
}

// futureSlots is the number of rounds, from the current one, whose early
// frames have a slot of their own (see takeFuture); frames further ahead
// wait in a list until their round comes within reach.
const futureSlots = 4

// takeFuture processes the buffered frames of the current phase. The
// frames of rounds t..t+futureSlots-1 are in a ring of slots, one per
// round: only the slot of the current round is looked at, and the frames
// in it of phases now past (phases this agent skipped) are dropped as
// late. Frames further ahead move into their slot when their round comes
// within reach. No list of all the buffered frames is scanned per phase.
func (r *runner) takeFuture() {
	if r.nFuture == 0 {
		return
	}
	t := int(r.cur >> 16)
	if len(r.far) > 0 && r.farMin < t+futureSlots {
		kept := r.far[:0]
		r.farMin = math.MaxInt
		for _, ff := range r.far {
			if ff.h.Round < t+futureSlots {
				slot := &r.future[ff.h.Round%futureSlots]
				*slot = append(*slot, ff)
				continue
			}
			kept = append(kept, ff)
			r.farMin = min(r.farMin, ff.h.Round)
		}
		clear(r.far[len(kept):])
		r.far = kept
	}
	slot := &r.future[t%futureSlots]
	kept := (*slot)[:0]
	for _, ff := range *slot {
		switch {
		case ff.key == r.cur:
			r.accept(ff.h, ff.f)
		case ff.key < r.cur:
			r.tr.Late++
			r.remember(ff.h, ff.f)
		default:
			kept = append(kept, ff)
			continue
		}
		r.nFuture--
		if r.countBy {
			r.futureBy[ff.h.From]--
		}
	}
	clear((*slot)[len(kept):])
	*slot = kept
	if r.countBy && r.nFuture < r.o.FutureFrames/2 {
		r.countBy = false
	}
}

// countFuture starts counting the buffered frames per sender (futureBy)
// from those in the buffer. No sender can reach Options.FutureFrames
// while the whole buffer holds fewer, so keepFuture counts only from
// there on (and takeFuture stops once it holds fewer than half as many):
// a run that buffers a few frames per phase touches no map per frame.
func (r *runner) countFuture() {
	if r.futureBy == nil {
		r.futureBy = make(map[int]int32)
	}
	clear(r.futureBy)
	for _, slot := range r.future {
		for _, ff := range slot {
			r.futureBy[ff.h.From]++
		}
	}
	for _, ff := range r.far {
		r.futureBy[ff.h.From]++
	}
	r.countBy = true
}

// keepFuture buffers frame f of the later phase of h, which arrived in
// round now, unless
//
//   - its round is more than Options.FutureWindow rounds ahead, or its
//     sender already has Options.FutureFrames frames buffered: counted
//     in Traffic.Ahead;
//   - the buffer holds futureCap frames: counted in Traffic.Overflow.
//
// Why the per-sender bound drops floods and not frames a run needs:
// docs/protocol.md, Bounded buffers.
func (r *runner) keepFuture(h Header, f []byte, now int) {
	if !r.countBy && r.nFuture >= r.o.FutureFrames {
		r.countFuture()
	}
	switch {
	case h.Round > now+r.o.FutureWindow, r.countBy && int(r.futureBy[h.From]) >= r.o.FutureFrames:
		r.ahead++
		r.tr.Ahead++
		return
	case r.nFuture >= r.futureCap:
		r.tr.Overflow++
		return
	}
	ff := futureFrame{h: h, key: phaseKey(h.Round, h.Phase), f: f}
	if h.Round < now+futureSlots {
		r.future[h.Round%futureSlots] = append(r.future[h.Round%futureSlots], ff)
	} else {
		if len(r.far) == 0 || h.Round < r.farMin {
			r.farMin = h.Round
		}
		r.far = append(r.far, ff)
	}
	r.nFuture++
	if r.countBy {
		r.futureBy[h.From]++
	}
}

// dropFuture discards every buffered frame and returns how many there
// were.
func (r *runner) dropFuture() int {
	n := r.nFuture
	for k := range r.future {
		clear(r.future[k])
		r.future[k] = r.future[k][:0]
	}
	clear(r.far)
	r.far = r.far[:0]
	clear(r.futureBy)
	r.countBy = false
	r.nFuture = 0
	return n
}

// arm sets the deadline of the current wait to at. On the batch path the
// timer is not reset for each wait: it stays armed at an earlier
// deadline, and when it fires while a later deadline is set it re-arms
// itself for the rest (see onTimer); deadlines of phases only grow, so it
// fires about once per deadline period instead of being reset and
// stopped twice per phase. A deadline earlier than the one the timer is
// set for resets it. On the channel path the timer is reset.
func (r *runner) arm(at time.Time) {
	r.deadline = at
	if r.batch == nil {
		r.timer.Reset(time.Until(at))
		return
	}
	r.tmu.Lock()
	r.deadlineNs = at.UnixNano()
	if !r.timerSet || r.deadlineNs < r.timerAt {
		// Idle, or set for later than this deadline (an eval deadline
		// shorter than the phase deadline).
		r.timerSet, r.timerAt = true, r.deadlineNs
		r.timer.Reset(time.Until(at))
	}
	r.tmu.Unlock()
}

// disarm ends the current wait's deadline.
func (r *runner) disarm() {
	if r.batch == nil {
		r.timer.Stop()
		return
	}
	r.tmu.Lock()
	r.deadlineNs = 0
	r.tmu.Unlock()
}

// onTimer is the batch path's timer function: it wakes the agent if the
// deadline of its current wait has passed, re-arms for the rest if a
// later deadline is set, and goes idle if the agent is not waiting.
func (r *runner) onTimer() {
	r.tmu.Lock()
	dl := r.deadlineNs
	if dl == 0 {
		r.timerSet = false
		r.tmu.Unlock()
		return
	}
	if now := time.Now().UnixNano(); now < dl {
		r.timerAt = dl
		r.timer.Reset(time.Duration(dl - now))
		r.tmu.Unlock()
		return
	}
	r.timerSet = false
	r.fired.Store(true)
	r.tmu.Unlock()
	r.batch.Wake()
}

// collect reads the inbox until every awaited message and term has
// arrived, or the phase deadline passes.
func (r *runner) collect(ctx context.Context) error {
	if r.waitMsgs == 0 && r.waitTerms == 0 {
		return nil
	}
	armed := false
	defer func() {
		if armed {
			r.disarm()
		}
	}()
	for r.waitMsgs > 0 || r.waitTerms > 0 {
		// Fast path: take the frames that have already arrived without
		// arming the deadline or waiting on several channels.
		got, err := r.poll()
		if err != nil {
			return err
		}
		if got {
			continue
		}
		if r.stopPending {
			// Peers stopped by the same control send nothing more: the
			// phase ends with what has arrived.
			return errStopInPhase
		}
		if !armed {
			// The deadline counts from the end of the phase's sends. An
			// agent awaiting the root's sum allows the root its own
			// deadline to gather the terms first.
			deadline := r.o.PhaseDeadline
			if r.reduce && r.root != r.id {
				deadline *= 2
			}
			r.arm(time.Now().Add(deadline))
			armed = true
		}
		// Every awaited message, term or sum is a frame of its own (a
		// leave frame, which may settle two, wakes the wait at once).
		r.need = r.waitMsgs + r.waitTerms
		expired, err := r.wait(ctx)
		r.need = 0
		if err != nil {
			return err
		}
		// A control wakes the wait (see Batcher). After a stop the phase
		// takes what has arrived and, if that is not all, ends.
		if r.stopRequested() {
			r.stopPending = true
		}
		if expired {
			if r.log.IsDebug() {
				r.log.Debug("phase deadline", "round", r.cur>>16, "phase", r.cur&0xffff,
					"awaited_msgs", r.waitMsgs, "awaited_terms", r.waitTerms)
			}
			return nil
		}
	}
	return nil
}

// poll processes the frames that have already arrived, without blocking,
// and reports whether there were any: a whole batch from a Batcher, or one
// frame from the inbox channel.
func (r *runner) poll() (bool, error) {
	if r.batch != nil {
		var ok bool
		r.taken, ok = r.batch.TakeInbox(r.taken[:0])
		if !ok {
			return false, errInboxClosed
		}
		if len(r.taken) > 1 {
			r.touch(r.taken)
		}
		for _, f := range r.taken {
			r.receive(f)
		}
		clear(r.taken)
		return len(r.taken) > 0, nil
	}
	select {
	case f, ok := <-r.inbox:
		if !ok {
			return false, errInboxClosed
		}
		r.receive(f)
		return true, nil
	default:
		return false, nil
	}
}

// touch reads a byte of every cache line of every frame before the
// frames are processed: the frames were written on other processors, and
// independent loads let their cache misses overlap instead of coming one
// at a time as each frame is decoded.
func (r *runner) touch(frames [][]byte) {
	const cacheLine = 64 // bytes, on the processors Go runs on
	var x byte
	for _, f := range frames {
		for k := 0; k < len(f); k += cacheLine {
			x += f[k]
		}
		if len(f) > 0 {
			x += f[len(f)-1]
		}
	}
	r.touched = x
}

// wait blocks until frames may have arrived (processing the frame itself
// on the channel path; on the batch path, r.need of them when
// r.need > 1), the armed deadline passes (expired) or ctx ends.
// On the batch path the deadline timer and ctx wake the agent through
// Batcher.Wake (see armDeadline and Run), so the wait is a single channel
// receive; after it the deadline and ctx are checked.
func (r *runner) wait(ctx context.Context) (expired bool, err error) {
	if r.inGate {
		// Waiting agents hold no place of the gate (see gate).
		r.o.gate.leave()
		r.inGate = false
		defer func() {
			if err == nil {
				if r.inGate = r.o.gate.enter(r.gateWake); !r.inGate {
					err = ctx.Err()
				}
			}
		}()
	}
	if r.batch != nil {
		if cw, ok := r.batch.(countWaiter); ok && r.need > 1 {
			cw.waitInboxFor(r.need)
		} else {
			r.batch.WaitInbox()
		}
		if r.cancelled.Load() {
			return false, ctx.Err()
		}
		if !r.fired.Load() {
			return false, nil
		}
		// The timer fired, maybe for an earlier wait: check the clock.
		if time.Now().Before(r.deadline) {
			r.fired.Store(false)
			return false, nil
		}
		return true, nil
	}
	select {
	case f, ok := <-r.inbox:
		if !ok {
			return false, errInboxClosed
		}
		r.receive(f)
		return false, nil
	case <-r.timer.C:
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// receive accounts for an arriving frame and routes it: leave frames mark
// their sender departed, frames of the current phase are accepted, later
// ones buffered, earlier ones counted late. Frames that fail to decode
// are counted malformed. The echo of this agent's own broadcasts is
// ignored (its reduce term is kept locally).
func (r *runner) receive(f []byte) {
	h, err := DecodeHeader(f)
	if err == nil && h.Kind.eval() {
		r.receiveEval(h, f)
		return
	}
	if err == nil && h.From == r.id && !h.Kind.data() {
		return
	}
	r.tr.MsgsRecv++
	r.tr.BytesRecv += r.wireLen(f, -1)
	if err == nil && h.From >= r.o.N {
		err = fmt.Errorf("sender %d outside 0..%d", h.From, r.o.N-1)
	}
	if err != nil {
		r.tr.Malformed++
		if r.log.IsDebug() {
			r.log.Debug("dropped malformed frame", "error", err)
		}
		return
	}
	if h.Kind == FrameLeave {
		r.depart(h.From, phaseKey(h.Round, h.Phase))
		return
	}
	switch k := phaseKey(h.Round, h.Phase); {
	case k == r.cur && !r.closed:
		r.accept(h, f)
	case k <= r.cur:
		r.tr.Late++
		r.remember(h, f)
	case h.Round >= r.o.Rounds:
		r.tr.Unexpected++
	default:
		r.keepFuture(h, f, int(r.cur>>16))
	}
}

// accept stores a data or reduce frame of the current phase.
func (r *runner) accept(h Header, f []byte) {
	switch h.Kind {
	case FrameData, FrameCompact:
		k, ok := r.in.Slot(h.From)
		if !ok {
			r.tr.Unexpected++
			return
		}
		data := DecodeValues(r.in.Buffer(k), f, h)
		r.in.Arrive(k, data)
		r.rememberValues(h, data)
		if r.leaveOf(h.From) > r.cur {
			r.waitMsgs--
		}
	case FrameReduce:
		// A term sent to this agent while it is not the root is kept: its
		// sender saw a departure this agent has not seen yet, and this
		// agent becomes the root when it does (switchRoot).
		switch {
		case !r.reduce || r.termGot[h.From] || !r.group.has(h.From):
			r.tr.Unexpected++
			return
		case h.Count != r.reduceLen:
			r.tr.Malformed++
			return
		}
		r.terms[h.From] = DecodeValues(r.terms[h.From], f, h)
		r.termGot[h.From] = true
		if r.root == r.id && r.leaveOf(h.From) > r.cur {
			r.waitTerms--
		}
	case FrameSum:
		switch {
		case !r.reduce || r.root == r.id || r.sumGot || !r.group.has(h.From):
			r.tr.Unexpected++
			return
		case h.Count != r.reduceLen:
			r.tr.Malformed++
			return
		case h.From != r.root:
			// The sum of an agent that became the root on a departure
			// this agent has not seen yet: kept for switchRoot.
			if r.earlyFrom >= 0 {
				r.tr.Unexpected++
				return
			}
			r.early = DecodeValues(r.early, f, h)
			r.earlyFrom = h.From
			return
		}
		r.sum = DecodeValues(r.sum, f, h)
		r.sumGot = true
		r.waitTerms--
	}
}

// depart records that agent j sends nothing from phase key k on; if that
// includes the current phase, it is no longer awaited.
func (r *runner) depart(j int, k uint64) {
	if j == r.id || r.leaveOf(j) != noLeave {
		return
	}
	if r.leaveKey == nil {
		r.leaveKey = make(map[int]uint64)
	}
	r.leaveKey[j] = k
	if r.log.IsDebug() {
		r.log.Debug("peer left", "peer", j, "round", k>>16, "phase", k&0xffff)
	}
	if k > r.cur || r.closed {
		return
	}
	if _, awaited := r.in.Slot(j); awaited {
		r.waitMsgs--
	}
	switch {
	case r.reduce && r.root == r.id && !r.termGot[j] && r.group.has(j):
		r.waitTerms--
	case r.reduce && r.root == j && !r.sumGot:
		r.switchRoot()
	}
}

// switchRoot picks the reduce root of the current phase again after the
// root left without sending the sum. If the new root is another agent,
// this agent's term goes to it (unless its sum is already here) and the
// wait is for its sum; if it is this agent, it gathers the terms of the
// agents still in the run, counting those that reached it already.
func (r *runner) switchRoot() {
	old := r.root
	r.root = r.reduceRoot()
	if r.log.IsDebug() {
		r.log.Debug("reduce root left", "round", r.cur>>16, "phase", r.cur&0xffff, "old", old, "new", r.root)
	}
	if r.root == r.id {
		r.waitTerms = 0
		for _, j := range r.group.members {
			if !r.termGot[j] && r.leaveOf(j) > r.cur {
				r.waitTerms++
			}
		}
		return
	}
	if r.earlyFrom == r.root {
		r.sum = append(r.sum[:0], r.early...)
		r.sumGot = true
		r.waitTerms = 0
		return
	}
	r.waitTerms = 1 // the new root's sum
	if err := r.sendTerm(int(r.cur>>16), int(r.cur&0xffff)); err != nil {
		r.log.Warn("cannot resend reduce term", "error", err)
	}
}

// deliver builds the inbox of the phase with the phase core and counts
// what is missing: the messages that arrived, or a stale substitute (see
// Faults.Staleness); the reduce, the root's sum of the arrived terms of
// the group's members in ascending order (engine.Sum), or, on an agent
// whose root sent no sum, its own term alone.
func (r *runner) deliver(t, ph int) consensus.Inbox {
	var stale func(j int) ([]float64, bool)
	if r.o.Faults.Staleness > 0 {
		stale = func(j int) ([]float64, bool) {
			data, ok := r.staleFor(j, t, ph)
			if ok {
				r.tr.StaleUsed++
			}
			return data, ok
		}
	}
	var in consensus.Inbox
	in.Msgs, in.Missing = r.in.Deliver(t, ph, r.id, stale)
	for _, j := range in.Missing {
		r.tr.Dropouts++
		if r.tr.DropoutsByPeer == nil {
			r.tr.DropoutsByPeer = make(map[int]int64)
		}
		r.tr.DropoutsByPeer[j]++
	}
	if !r.reduce {
		return in
	}
	if r.root != r.id {
		if !r.sumGot {
			// No sum from the root: every other term counts as missing
			// and contributes zero.
			r.tr.ReduceMissing += int64(len(r.group.members) - 1)
			r.acc.Reset()
			_ = r.acc.Add(r.terms[r.id]) // the first term cannot fail
			r.sum = r.acc.Value()
		}
		in.Reduce = r.sum
		return in
	}
	r.acc.Reset()
	for _, j := range r.group.members {
		if !r.termGot[j] {
			r.acc.Miss()
			continue
		}
		// Every arrived term has the length of this agent's (accept).
		_ = r.acc.Add(r.terms[j])
	}
	r.tr.ReduceMissing += int64(r.acc.Missing())
	r.sum = r.acc.Value()
	in.Reduce = r.sum
	return in
}
