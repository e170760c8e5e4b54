package slicing

import (
	"fmt"
	"math"
	"slices"

	"github.com/consim/consim/consensus"
	problem "github.com/consim/consim/problems/slicing"
)

// Agent is network node i running Algorithm 1 on its own block: it owns
// w_i (its out-link fractions u_ij(k,s), its placement variables
// x_i(k,m), its capacity slacks), the centre z_i, and the duals y_i of its
// own rows (Model). It talks only to its physical neighbours, in two
// phases per round t:
//
//	phase 0: send u_ij(.,.) of link (i,j) to every out-neighbour j; receive
//	         u_ji(.,.) from every in-neighbour j. Then form the residual of
//	         the own rows, r_i = (A w_t - b)_i, and take the dual step
//	         y_i <- y_i + eta r_i; v_i = y_i + rho r_i.
//	phase 1: send the conservation block of v_i to every in-neighbour j;
//	         receive v_j's conservation block from every out-neighbour j.
//	         Then the primal step on the own columns,
//	         G_i = grad_i f(w_t) + (A^T v)_i + mu (w_i - z_i),
//	         z_i <- z_i + beta (w_i - z_i),  w_i <- proj_[0,1](w_i - tau G_i),
//
// where (A^T v)_i sums the own rows and, for u_ij(k,s), the term
// -v_j(k,s) of the downstream conservation row. With every message
// delivered this is exactly the Reference iteration.
//
// Dropouts: a message missing at the deadline is replaced by the last
// value received from that neighbour in the same phase (before the first
// message: the neighbour's initial value, u = 0 and v = 0). The agent
// still takes its full step; its own duals are held by it alone, so no
// replica drifts, but the step uses stale rates or stale multipliers of
// that neighbour.
type Agent struct {
	cfg Config
	md  *problem.Model
	id  int

	n, m int       // own variables and rows
	seg  int       // values per message
	w, z []float64 // w_i, z_i
	lo   []float64 // lower bounds of w_i: 0, or 1 where a variable is fixed to 1
	hi   []float64 // upper bounds of w_i: 1, or 0 where a variable is fixed to 0
	y, v []float64 // y_i, v_i = y_i + rho r_i
	g    []float64 // gradient scratch
	cost []float64 // Scale * Cost on the own columns
	xloc []int     // local indices of the own x variables

	out, in []int       // out- and in-neighbours, ascending
	uin     [][]float64 // uin[q]: last u_{in[q], i}(.,.) received
	vout    [][]float64 // vout[a]: last conservation block of v_{out[a]} received
	rows    []localRow  // own rows over own and received values

	msgs []consensus.Msg
	vbuf []float64 // the conservation block of v_i sent in phase 1

	round, phase int
	sent         bool

	fl floodState // the final stage (Stage)

	kktSq  float64 // ||(w_t - w_{t+1}) / tau||^2 of the last round
	resMax float64 // max |(A w_t - b)_i| of the last round
	values int64   // float64 values sent so far
	msgsN  int64   // messages sent so far
}

// localRow is an own row of A: entries on own variables (loc) and on
// received in-link rates (in-neighbour q, offset o).
type localRow struct {
	loc  []int
	lval []float64
	remQ []int
	remO []int
	rval []float64
	b    float64
}

var _ consensus.Agent = (*Agent)(nil)

// NewAgent returns the agent of node id of cfg on md, starting from
// w_0 = z_0 = md.Initial() restricted to its block and y_0 = 0.
func NewAgent(cfg Config, md *problem.Model, id int) (*Agent, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("slicing: agent %d: %w", id, err)
	}
	if md == nil || id < 0 || id >= md.Inst.Nodes {
		return nil, fmt.Errorf("slicing: agent id %d: need a model and an id in [0, nodes)", id)
	}
	lo, hi := md.VarOff[id], md.VarOff[id+1]
	w0 := md.Initial()
	a := &Agent{
		cfg: cfg, md: md, id: id,
		n: hi - lo, m: md.RowOff[id+1] - md.RowOff[id], seg: md.Seg,
		w:   append([]float64(nil), w0[lo:hi]...),
		z:   append([]float64(nil), w0[lo:hi]...),
		out: md.Out[id], in: md.In[id],
	}
	a.lo = make([]float64, a.n)
	a.hi = make([]float64, a.n)
	for c := range a.hi {
		a.hi[c] = 1
	}
	a.y = make([]float64, a.m)
	a.v = make([]float64, a.m)
	a.g = make([]float64, a.n)
	a.cost = make([]float64, a.n)
	for c := lo; c < hi; c++ {
		a.cost[c-lo] = cfg.Scale * md.Cost[c]
	}
	for _, grp := range md.Groups {
		for _, c := range grp {
			if c >= lo && c < hi {
				a.xloc = append(a.xloc, c-lo)
			}
		}
	}
	slices.Sort(a.xloc)
	a.uin = make([][]float64, len(a.in))
	for q := range a.uin {
		a.uin[q] = make([]float64, a.seg)
	}
	a.vout = make([][]float64, len(a.out))
	for q := range a.vout {
		a.vout[q] = make([]float64, a.seg)
	}
	for r := md.RowOff[id]; r < md.RowOff[id+1]; r++ {
		row := md.Rows[r]
		lr := localRow{b: md.B[r]}
		for q, c := range row.Cols {
			if c >= lo && c < hi {
				lr.loc = append(lr.loc, c-lo)
				lr.lval = append(lr.lval, row.Vals[q])
				continue
			}
			j := owner(md, c)
			qi, ok := slices.BinarySearch(a.in, j)
			off := c - md.U(j, md.OutPos(j, id), 0, 0)
			if !ok || off < 0 || off >= a.seg {
				return nil, fmt.Errorf("slicing: agent %d: row %d uses variable %d of node %d, which is not one of its in-link rates", id, r, c, j)
			}
			lr.remQ = append(lr.remQ, qi)
			lr.remO = append(lr.remO, off)
			lr.rval = append(lr.rval, row.Vals[q])
		}
		a.rows = append(a.rows, lr)
	}
	a.vbuf = make([]float64, a.seg)
	a.fl = newFloodState(md, id, lo)
	return a, nil
}

// owner returns the node whose block holds variable c.
func owner(md *problem.Model, c int) int {
	i, found := slices.BinarySearch(md.VarOff, c)
	if found {
		// c starts block i; skip empty blocks.
		for i+1 < len(md.VarOff) && md.VarOff[i+1] == c {
			i++
		}
		return i
	}
	return i - 1
}

// ID implements consensus.Agent.
func (a *Agent) ID() int { return a.id }

// Phases implements consensus.Agent: every round of the ALM has 2
// phases, a flood round of the final stage 1.
func (a *Agent) Phases(t int) int {
	if _, flood, _ := a.cfg.Stage.flooding(t); flood {
		return 1
	}
	return 2
}

// Send implements consensus.Agent (see Agent for the phases). The
// returned slices stay valid until the next Send. A call for another
// round or phase than the one due returns an empty outbox, and the
// following Receive fails.
func (a *Agent) Send(t, ph int) consensus.Outbox {
	a.sent = false
	if t != a.round || ph != a.phase {
		return consensus.Outbox{}
	}
	a.sent = true
	a.msgs = a.msgs[:0]
	if p, flood, _ := a.cfg.Stage.flooding(t); flood {
		kind := a.cfg.Stage.kind(p)
		if a.fl.pass != p+1 {
			switch kind {
			case blaming:
				a.blame()
			case distances:
				a.startDistances()
			case moving:
				a.propose()
			default:
				a.announce()
			}
			a.fl.pass = p + 1
		}
		switch kind {
		case distances:
			copy(a.fl.buf, a.fl.dT)
		case moving:
			copy(a.fl.buf, a.fl.dist)
			copy(a.fl.buf[len(a.fl.dist):], a.fl.spare)
			copy(a.fl.buf[len(a.fl.dist)+len(a.fl.spare):], a.fl.score)
		default:
			G := len(a.fl.best)
			copy(a.fl.buf[:G], a.fl.best)
			copy(a.fl.buf[G:], a.fl.host)
		}
		n := a.tableLen(kind)
		for _, j := range a.fl.nbrs {
			a.msgs = append(a.msgs, consensus.Msg{From: a.id, To: j, Round: t, Phase: 0, Data: a.fl.buf[:n]})
		}
		a.msgsN += int64(len(a.msgs))
		a.values += int64(len(a.msgs) * n)
		return consensus.Outbox{Msgs: a.msgs, Expect: a.fl.nbrs}
	}
	if ph == 0 {
		for q, j := range a.out {
			a.msgs = append(a.msgs, consensus.Msg{From: a.id, To: j, Round: t, Phase: 0, Data: a.w[q*a.seg : (q+1)*a.seg]})
		}
		a.count()
		return consensus.Outbox{Msgs: a.msgs, Expect: a.in}
	}
	copy(a.vbuf, a.v[:a.seg])
	for _, j := range a.in {
		a.msgs = append(a.msgs, consensus.Msg{From: a.id, To: j, Round: t, Phase: 1, Data: a.vbuf})
	}
	a.count()
	return consensus.Outbox{Msgs: a.msgs, Expect: a.out}
}

// tableLen returns the values of a flood message of a pass of kind k:
// best and host per position in a fixing or blame pass, one distance per
// node in a distance pass, and in a move pass the distance matrix, then
// spare capacity, cost and residual per node.
func (a *Agent) tableLen(k passKind) int {
	G := len(a.fl.best)
	switch k {
	case moving:
		return a.md.Inst.Nodes * (a.md.Inst.Nodes + 3)
	case distances:
		return a.md.Inst.Nodes
	}
	return 2 * G
}

func (a *Agent) count() {
	a.msgsN += int64(len(a.msgs))
	a.values += int64(len(a.msgs) * a.seg)
}

// Receive implements consensus.Agent.
func (a *Agent) Receive(t, ph int, in consensus.Inbox) error {
	if !a.sent || t != a.round || ph != a.phase {
		return fmt.Errorf("slicing: agent %d: receive of round %d phase %d: expected round %d phase %d after its send", a.id, t, ph, a.round, a.phase)
	}
	if a.cfg.Rounds > 0 && t >= a.cfg.Rounds {
		return fmt.Errorf("slicing: agent %d: round %d is beyond the horizon T = %d", a.id, t, a.cfg.Rounds)
	}
	a.sent = false
	if p, flood, last := a.cfg.Stage.flooding(t); flood {
		kind := a.cfg.Stage.kind(p)
		n := a.tableLen(kind)
		for _, msg := range in.Msgs {
			if _, ok := slices.BinarySearch(a.fl.nbrs, msg.From); !ok {
				return fmt.Errorf("slicing: agent %d: flood round %d: message from node %d, which is not a neighbour", a.id, t, msg.From)
			}
			if msg.Round != t || msg.Phase != 0 || len(msg.Data) != n {
				return fmt.Errorf("slicing: agent %d: flood message from node %d is for round %d phase %d with %d values, want round %d phase 0 with %d", a.id, msg.From, msg.Round, msg.Phase, len(msg.Data), t, n)
			}
			switch kind {
			case blaming:
				a.mergeBlame(msg.Data)
			case distances:
				a.mergeDistances(msg.From, msg.Data)
			case moving:
				a.mergeMoves(msg.Data)
			default:
				a.merge(msg.Data)
			}
		}
		if last {
			switch kind {
			case blaming:
				a.unfixWorst()
			case moving:
				a.applyMoves(p == a.cfg.Stage.passes()-1)
			case fixing:
				a.fixPass(p)
			}
		}
		a.round++
		return nil
	}
	from, bufs := a.in, a.uin
	if ph == 1 {
		from, bufs = a.out, a.vout
	}
	for _, msg := range in.Msgs {
		q, ok := slices.BinarySearch(from, msg.From)
		if !ok {
			return fmt.Errorf("slicing: agent %d: round %d phase %d: message from node %d, which is not expected", a.id, t, ph, msg.From)
		}
		if msg.Round != t || msg.Phase != ph || len(msg.Data) != a.seg {
			return fmt.Errorf("slicing: agent %d: message from node %d is for round %d phase %d with %d values, want round %d phase %d with %d", a.id, msg.From, msg.Round, msg.Phase, len(msg.Data), t, ph, a.seg)
		}
		copy(bufs[q], msg.Data)
	}
	if ph == 0 {
		a.dualStep()
		a.phase = 1
		return nil
	}
	a.primalStep()
	a.round++
	a.phase = 0
	return nil
}

// dualStep forms r_i = (A w - b)_i, y_i <- y_i + eta r_i, v_i = y_i + rho r_i.
func (a *Agent) dualStep() {
	p := a.params()
	a.resMax = 0
	for r, lr := range a.rows {
		s := -lr.b
		for q, c := range lr.loc {
			s += lr.lval[q] * a.w[c]
		}
		for q, qi := range lr.remQ {
			s += lr.rval[q] * a.uin[qi][lr.remO[q]]
		}
		a.resMax = max(a.resMax, math.Abs(s))
		a.y[r] += p.Eta * s
		a.v[r] = a.y[r] + p.Rho*s
	}
}

// primalStep computes G_i and updates z_i and w_i.
func (a *Agent) primalStep() {
	g := a.g
	copy(g, a.cost)
	if a.cfg.RegWeight != 0 {
		sr := a.cfg.Scale * a.cfg.RegWeight * a.cfg.P
		for _, c := range a.xloc {
			g[c] += sr * math.Pow(a.w[c]+a.cfg.Eps, a.cfg.P-1)
		}
	}
	for r, lr := range a.rows {
		for q, c := range lr.loc {
			g[c] += lr.lval[q] * a.v[r]
		}
	}
	for q := range a.out {
		blk := g[q*a.seg : (q+1)*a.seg]
		for s, vj := range a.vout[q] {
			blk[s] -= vj
		}
	}
	p := a.params()
	var kkt float64
	for c := range g {
		d := a.w[c] - a.z[c]
		g[c] += p.Mu * d
		a.z[c] += p.Beta * d
		next := min(max(a.w[c]-p.Tau*g[c], a.lo[c]), a.hi[c])
		step := (a.w[c] - next) / p.Tau
		kkt += step * step
		a.w[c] = next
	}
	a.kktSq = kkt
}

// params returns the step parameters of the round due: the Config's, or
// the final stage's from its start on (Stage.Steps).
func (a *Agent) params() Steps {
	if st := a.cfg.Stage; st.Start > 0 && a.round >= st.Start && st.Steps.Tau > 0 {
		return st.Steps
	}
	return Steps{Rho: a.cfg.Rho, Mu: a.cfg.Mu, Tau: a.cfg.Tau, Eta: a.cfg.Eta, Beta: a.cfg.Beta}
}

// W returns a copy of w_i.
func (a *Agent) W() []float64 { return append([]float64(nil), a.w...) }

// Z returns a copy of z_i.
func (a *Agent) Z() []float64 { return append([]float64(nil), a.z...) }

// Y returns a copy of y_i, the duals of the own rows.
func (a *Agent) Y() []float64 { return append([]float64(nil), a.y...) }

// Sent returns the messages and float64 payload values the agent has
// sent so far.
func (a *Agent) Sent() (msgs, values int64) { return a.msgsN, a.values }

// Rejoin makes round t the next round the agent runs, keeping its state:
// it was down for the rounds in between (a crash with restart) and takes
// no step for them. t must not precede the round due.
func (a *Agent) Rejoin(t int) error {
	if t < a.round {
		return fmt.Errorf("slicing: agent %d: rejoin at round %d: round %d is already done", a.id, t, a.round-1)
	}
	if a.cfg.Rounds > 0 && t >= a.cfg.Rounds {
		return fmt.Errorf("slicing: agent %d: rejoin at round %d: beyond the horizon T = %d", a.id, t, a.cfg.Rounds)
	}
	a.round, a.phase, a.sent = t, 0, false
	return nil
}

// Report implements consensus.Agent: X is w_i, and the Measures (see
// Measures) are the squared norm of the gradient mapping (w_t -
// w_{t+1}) / tau of its block in the last round (0 before the first), the
// stationarity measure of the linearized step, and ||y_i||^2 (the agent
// alone holds its rows' duals).
func (a *Agent) Report() consensus.Report {
	var yy float64
	for _, v := range a.y {
		yy += v * v
	}
	return consensus.Report{
		ID: a.id, Round: a.round, X: a.W(),
		Measures: []float64{a.kktSq, yy},
	}
}

// AgentMeasures declares what the agents report in consensus.Report.Measures:
// kkt, the norm of the gradient mapping, and dual_norm = ||y||.
func AgentMeasures() []consensus.Measure {
	return []consensus.Measure{
		{Name: consensus.MeasureKKT, Reduce: consensus.ReduceNorm, Doc: "norm of the gradient mapping of the linearized step"},
		{Name: consensus.MeasureDualNorm, Reduce: consensus.ReduceNorm, Doc: "||y||"},
	}
}

// Gather concatenates the agents' blocks w_i in node order: the point w
// of the run in Model order.
func Gather(agents []*Agent) []float64 {
	var w []float64
	for _, a := range agents {
		w = append(w, a.w...)
	}
	return w
}
