package coordinator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/node"
	"github.com/consim/consim/observe"
)

// fakeObserver is an in-memory node.Observer: tests push status frames
// into statuses, and every Control frame is recorded and forwarded to
// controls for the scripted agents.
type fakeObserver struct {
	statuses chan []byte
	controls chan node.Control

	mu   sync.Mutex
	sent []node.Control
}

func newFakeObserver() *fakeObserver {
	return &fakeObserver{statuses: make(chan []byte, 1<<14), controls: make(chan node.Control, 16)}
}

func (f *fakeObserver) Statuses() <-chan []byte { return f.statuses }

func (f *fakeObserver) Control(frame []byte) error {
	c, err := node.DecodeControl(frame)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.sent = append(f.sent, c)
	f.mu.Unlock()
	select {
	case f.controls <- c:
	default:
	}
	return nil
}

func (f *fakeObserver) Close() error { return nil }

// sentControls returns the controls published so far.
func (f *fakeObserver) sentControls() []node.Control {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]node.Control(nil), f.sent...)
}

// sim scripts n agents following the status protocol: ready, then after
// Start a progress report at rounds 0, every, 2*every, ... up to rounds,
// one batch per interval, and a final report of the last round once the
// rounds are done or a Stop arrives.
type sim struct {
	n, rounds, every int
	interval         time.Duration
	notReady         map[int]bool   // agents that never send ready
	silentAfter      map[int]int    // agent goes quiet after reporting this round
	failAt           map[int]int    // agent fails instead of reporting this round
	junk             [][]byte       // frames sent right after Start
	readyGap         time.Duration  // pause before each ready status
	readySent        chan time.Time // if set, gets the time each ready status was sent
}

// report is agent id's report of round t: x_i = (id + 1) / (t + 1).
func (s sim) report(id, t int) consensus.Report {
	return consensus.Report{ID: id, Round: t, X: []float64{float64(id+1) / float64(t+1)}, GradEvals: int64(10*t + id)}
}

// traffic is agent id's cumulative traffic after round t.
func (s sim) traffic(id, t int) node.Traffic {
	return node.Traffic{
		MsgsSent: int64(100*t + id), BytesSent: int64(800*t + id), MsgsRecv: int64(90 * t), BytesRecv: int64(720 * t),
		Dropouts: int64(t), DropoutsByPeer: map[int]int64{(id + 1) % s.n: int64(t)}, Late: 1,
	}
}

func (s sim) status(kind node.StatusKind, id, t int) node.Status {
	return node.Status{Kind: kind, ID: id, Report: s.report(id, t), Traffic: s.traffic(id, t)}
}

// start runs the agents in a goroutine; the returned function cancels
// them and waits until they are done.
func (s sim) start(t *testing.T, f *fakeObserver) (done func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.run(ctx, t, f)
	}()
	return func() { cancel(); wg.Wait() }
}

func (s sim) run(ctx context.Context, t *testing.T, f *fakeObserver) {
	send := func(st node.Status) {
		b, err := node.EncodeStatus(st)
		if err != nil {
			t.Error(err)
			return
		}
		select {
		case f.statuses <- b:
		case <-ctx.Done():
		}
	}
	for i := range s.n {
		if !s.notReady[i] {
			time.Sleep(s.readyGap)
			send(node.Status{Kind: node.StatusReady, ID: i})
			if s.readySent != nil {
				s.readySent <- time.Now()
			}
		}
	}
	select {
	case c := <-f.controls:
		if c.Kind != node.ControlStart {
			return
		}
	case <-ctx.Done():
		return
	}
	for _, b := range s.junk {
		f.statuses <- b
	}
	gone := make([]bool, s.n)
	last := 0
	for r := 0; r <= s.rounds; r += s.every {
		for i := range s.n {
			if gone[i] {
				continue
			}
			if fr, ok := s.failAt[i]; ok && fr == r {
				send(node.Status{Kind: node.StatusFailed, ID: i, Err: "x diverged", Traffic: s.traffic(i, r)})
				gone[i] = true
				continue
			}
			send(s.status(node.StatusProgress, i, r))
			if sr, ok := s.silentAfter[i]; ok && sr == r {
				gone[i] = true
			}
		}
		last = r
		select {
		case c := <-f.controls:
			if c.Kind == node.ControlStop {
				r = s.rounds // leave the loop
			}
		case <-time.After(s.interval):
		case <-ctx.Done():
			return
		}
	}
	for i := range s.n {
		if !gone[i] {
			send(s.status(node.StatusFinal, i, last))
		}
	}
}

// fakeEvaluator checks that reports come indexed by id and of one round,
// and returns ConsensusErr = 1/(1+t), OptGap = NaN at t = 0 and 2/(1+t)
// after, Feasibility = sum_i x_i and GradEvals = sum_i GradEvals_i.
type fakeEvaluator struct {
	consensus func(t int) float64 // overrides ConsensusErr if set
	fail      int                 // fail at this round if > 0
}

func (e fakeEvaluator) Evaluate(reps []consensus.Report) (observe.Metrics, error) {
	t := reps[0].Round
	var m observe.Metrics
	for i, r := range reps {
		if r.ID != i || r.Round != t {
			return m, fmt.Errorf("report %d is agent %d round %d, want agent %d round %d", i, r.ID, r.Round, i, t)
		}
		m.Feasibility += r.X[0]
		m.GradEvals += r.GradEvals
	}
	if e.fail > 0 && t >= e.fail {
		return m, errors.New("evaluator broke")
	}
	m.ConsensusErr = 1 / float64(1+t)
	if e.consensus != nil {
		m.ConsensusErr = e.consensus(t)
	}
	m.OptGap = math.NaN()
	if t > 0 {
		m.OptGap = 2 / float64(1+t)
	}
	return m, nil
}
