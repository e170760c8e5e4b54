package tsp

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/problems/bilevel"
)

// The distributed form of TSP on a Split problem is a star: agent 0, the
// upper-level agent, holds y, z, y_hat, lambda, h and the oracles F0 and G0;
// agent k = 1..K, a task agent, holds its block x_k, x_hat_k and its share
// G_k(x_k, .) of the lower level. A round has three phases:
//
//	phase 0  upper -> tasks:  (y^r, z^r)
//	         task k computes G_k and grad_y G_k at (x_k, y^r) and (x_k, z^r),
//	         and grad_x G_k(x_k, z^r)
//	phase 1  all-reduce over all agents of (g(x, y), g(x, z), grad_y g(x, y),
//	         grad_y g(x, z)), the upper agent contributing the G0 terms;
//	         the upper agent applies (7a)-(10)
//	phase 2  upper -> tasks:  (y^{r+1}, z^{r+1}, lambda^{r+1});
//	         task k applies (11)-(12) to its block with grad_x G_k(x_k, y^{r+1})
//
// The all-reduce sums the terms in agent order starting from zero, the
// order in which Split.Join sums them, so the agents reproduce TSP on the
// joined problem bit for bit (see the tests). A missing message is an
// error: the star has no fallback for a lost broadcast.

// Phases of a round.
const (
	phaseBroadcast = 0
	phaseReduce    = 1
	phaseUpdate    = 2
	numPhases      = 3
)

// UpperAgent is agent 0 of the star.
type UpperAgent struct {
	// Y, Z, YHat are y^r, z^r and y_hat^r; Lambda and H are lambda^r and
	// h^r; Round is the number of completed rounds.
	Y, Z, YHat []float64
	Lambda, H  float64
	Round      int
	evals      int64

	tasks []int // ids 1..K
	prm   Constants
	f0    bilevel.Objective
	g0    bilevel.Objective
	ny    int

	out, red       []float64 // broadcast payload, reduce term
	g0y, g0z       []float64
	gfY, zNew, gyY []float64
}

// TaskAgent is agent k >= 1 of the star, owner of block x_k.
type TaskAgent struct {
	// X and XHat are the block x_k^r and its anchor; Round is the number
	// of completed rounds.
	X, XHat []float64
	Round   int
	evals   int64

	id  int
	prm Constants
	g   bilevel.Objective
	ny  int

	red           []float64
	gyY, gyZ, gxZ []float64
	gxY           []float64
}

// Star is the set of agents of one distributed TSP run.
type Star struct {
	Upper *UpperAgent
	Tasks []*TaskAgent
}

// NewStar returns the agents of TSP on s from x0 (the blocks x_k
// concatenated) and y0, with the same initialization as NewTSP.
func NewStar(s *bilevel.Split, x0, y0 []float64, prm Constants) (*Star, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	off, nx := s.Offsets()
	if len(x0) != nx || len(y0) != s.NY {
		return nil, fmt.Errorf("tsp: start point has len(x0) = %d, len(y0) = %d, want %d and %d", len(x0), len(y0), nx, s.NY)
	}
	if err := prm.Validate(); err != nil {
		return nil, err
	}
	ny := s.NY
	up := &UpperAgent{
		Y: clone(y0), Z: clone(y0), YHat: clone(y0), Lambda: prm.Lambda0,
		prm: prm, f0: s.F0, g0: s.G0, ny: ny,
		out: make([]float64, 2*ny+1), red: make([]float64, 2+2*ny),
		g0y: make([]float64, ny), g0z: make([]float64, ny),
		gfY: make([]float64, ny), zNew: make([]float64, ny), gyY: make([]float64, ny),
	}
	st := &Star{Upper: up}
	for k, g := range s.Tasks {
		up.tasks = append(up.tasks, k+1)
		xk := x0[off[k] : off[k]+s.NX[k]]
		st.Tasks = append(st.Tasks, &TaskAgent{
			X: clone(xk), XHat: clone(xk), id: k + 1, prm: prm, g: g, ny: ny,
			red: make([]float64, 2+2*ny), gyY: make([]float64, ny), gyZ: make([]float64, ny),
			gxZ: make([]float64, len(xk)), gxY: make([]float64, len(xk)),
		})
	}
	return st, nil
}

// Agents returns the agents in id order (upper first), for a runtime.
func (st *Star) Agents() []consensus.Agent {
	a := []consensus.Agent{st.Upper}
	for _, t := range st.Tasks {
		a = append(a, t)
	}
	return a
}

// Point returns copies of x (the blocks concatenated) and y.
func (st *Star) Point() (x, y []float64) {
	for _, t := range st.Tasks {
		x = append(x, t.X...)
	}
	return x, clone(st.Upper.Y)
}

// PointFromReports assembles x and y from the agents' reports: the report
// of agent 0 carries y, that of agent k the block x_k.
func PointFromReports(reports []consensus.Report) (x, y []float64, err error) {
	byID := make([]*consensus.Report, len(reports))
	for i := range reports {
		r := &reports[i]
		if r.ID < 0 || r.ID >= len(reports) || byID[r.ID] != nil {
			return nil, nil, fmt.Errorf("tsp: reports of %d agents include id %d twice or out of range", len(reports), r.ID)
		}
		byID[r.ID] = r
	}
	if len(byID) < 2 {
		return nil, nil, fmt.Errorf("tsp: a star needs the upper agent and at least one task, have %d reports", len(reports))
	}
	for _, r := range byID[1:] {
		x = append(x, r.X...)
	}
	return x, clone(byID[0].X), nil
}

// ID returns 0.
func (u *UpperAgent) ID() int { return 0 }

// Phases returns 3.
func (u *UpperAgent) Phases(int) int { return numPhases }

// Send returns the broadcast of phase 0 and 2 and the G0 term of the
// reduce of phase 1.
func (u *UpperAgent) Send(t, ph int) consensus.Outbox {
	switch ph {
	case phaseBroadcast:
		copy(u.out, u.Y)
		copy(u.out[u.ny:], u.Z)
		return consensus.Outbox{Msgs: u.broadcast(t, ph, u.out[:2*u.ny])}
	case phaseReduce:
		var vy, vz float64
		clear(u.g0y)
		clear(u.g0z)
		if u.g0 != nil {
			vy = bilevel.ValueGrad(u.g0, nil, u.Y, nil, u.g0y)
			vz = bilevel.ValueGrad(u.g0, nil, u.Z, nil, u.g0z)
			u.evals += 2
		}
		packReduce(u.red, vy, vz, u.g0y, u.g0z)
		return consensus.Outbox{Reduce: u.red}
	default:
		copy(u.out, u.Y)
		copy(u.out[u.ny:], u.Z)
		u.out[2*u.ny] = u.Lambda
		return consensus.Outbox{Msgs: u.broadcast(t, ph, u.out)}
	}
}

// broadcast returns one message with data to every task.
func (u *UpperAgent) broadcast(t, ph int, data []float64) []consensus.Msg {
	msgs := make([]consensus.Msg, len(u.tasks))
	for i, k := range u.tasks {
		msgs[i] = consensus.Msg{From: 0, To: k, Round: t, Phase: ph, Data: data}
	}
	return msgs
}

// Receive applies (7a)-(10) after the reduce of phase 1.
func (u *UpperAgent) Receive(t, ph int, in consensus.Inbox) error {
	if ph != phaseReduce {
		return nil
	}
	if len(in.Reduce) != 2+2*u.ny {
		return fmt.Errorf("tsp: upper agent round %d: reduce of %d values, want %d", t, len(in.Reduce), 2+2*u.ny)
	}
	prm := u.prm
	gxy, gxz := in.Reduce[0], in.Reduce[1]
	copy(u.gyY, in.Reduce[2:2+u.ny])
	gyZ := in.Reduce[2+u.ny:]
	u.H, u.Lambda = dualStep(prm, u.H, u.Lambda, gxy, gxz, dist2(u.Z, u.Y))
	zStep(prm, u.zNew, u.Z, u.Y, gyZ)
	zu := u.Z
	if prm.ZNew {
		zu = u.zNew
	}
	u.f0.Grad(nil, u.Y, nil, u.gfY)
	u.evals++
	yStep(prm, u.Lambda, u.Y, u.YHat, u.gfY, u.gyY, zu)
	u.Z, u.zNew = u.zNew, u.Z
	u.Round++
	return nil
}

// Report returns y in X and the oracle calls of the agent.
func (u *UpperAgent) Report() consensus.Report {
	return consensus.Report{ID: 0, Round: u.Round, X: clone(u.Y), GradEvals: u.evals}
}

// packReduce writes (vy, vz, gy, gz) into dst.
func packReduce(dst []float64, vy, vz float64, gy, gz []float64) {
	dst[0], dst[1] = vy, vz
	copy(dst[2:], gy)
	copy(dst[2+len(gy):], gz)
}

// ID returns k.
func (a *TaskAgent) ID() int { return a.id }

// Phases returns 3.
func (a *TaskAgent) Phases(int) int { return numPhases }

// Send expects the upper agent's broadcasts in phases 0 and 2 and
// contributes its lower-level terms to the reduce of phase 1.
func (a *TaskAgent) Send(_, ph int) consensus.Outbox {
	if ph == phaseReduce {
		return consensus.Outbox{Reduce: a.red}
	}
	return consensus.Outbox{Expect: []int{0}}
}

// Receive evaluates G_k after the broadcast of phase 0 and updates x_k
// after that of phase 2.
func (a *TaskAgent) Receive(t, ph int, in consensus.Inbox) error {
	if ph == phaseReduce {
		return nil
	}
	if len(in.Msgs) != 1 {
		return fmt.Errorf("tsp: task agent %d round %d phase %d: the upper agent's message is missing", a.id, t, ph)
	}
	d := in.Msgs[0].Data
	ny := a.ny
	switch ph {
	case phaseBroadcast:
		if len(d) != 2*ny {
			return fmt.Errorf("tsp: task agent %d round %d: broadcast of %d values, want %d", a.id, t, len(d), 2*ny)
		}
		y, z := d[:ny], d[ny:]
		vy := bilevel.ValueGrad(a.g, a.X, y, nil, a.gyY)
		var vz float64
		if a.prm.ZNew {
			vz = bilevel.ValueGrad(a.g, a.X, z, nil, a.gyZ)
		} else {
			vz = bilevel.ValueGrad(a.g, a.X, z, a.gxZ, a.gyZ)
		}
		a.evals += 2
		packReduce(a.red, vy, vz, a.gyY, a.gyZ)
	case phaseUpdate:
		if len(d) != 2*ny+1 {
			return fmt.Errorf("tsp: task agent %d round %d: update of %d values, want %d", a.id, t, len(d), 2*ny+1)
		}
		y, z, lam := d[:ny], d[ny:2*ny], d[2*ny]
		if a.prm.ZNew {
			a.g.Grad(a.X, z, a.gxZ, nil)
			a.evals++
		}
		a.g.Grad(a.X, y, a.gxY, nil)
		a.evals++
		xStep(a.prm, lam, a.X, a.XHat, nil, a.gxY, a.gxZ)
		a.Round++
	}
	return nil
}

// Report returns x_k in X and the oracle calls of the agent.
func (a *TaskAgent) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: a.Round, X: clone(a.X), GradEvals: a.evals}
}
