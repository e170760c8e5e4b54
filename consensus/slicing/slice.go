package slicing

import (
	"fmt"
	"math"
	"slices"

	problem "github.com/consim/consim/problems/slicing"
)

// Stage is the final stage of a run that turns the ALM's near-binary
// point into a binary slice: passes of a fix-and-continue dive that the
// agents run on their own blocks, over the same links, from round Start
// on. Pass p = 0, 1, ... takes Flood + Fix rounds:
//
//   - Flood rounds of one phase each: every host i announces, for every
//     unfixed chain position (k,m) it can run, its x_i(k,m) if it can still
//     take the position and -1 otherwise (greedily by decreasing x, so that
//     the positions it announces fit its remaining node capacity mu_i
//     together); every agent keeps the largest announcement (value, host)
//     per position (ties to the lower host) and sends its table to all its
//     neighbours every round, a max-consensus flood. A lost message delays
//     the flood by a round; Flood rounds cover a network of diameter up to
//     about Flood at 10% loss.
//   - At the end of the flood, every host fixes each unfixed position whose
//     best announcement is a candidate (value >= 0) with value >=
//     Thresholds[p] (the last threshold for the passes after the last):
//     to 1 if it is the best host, to 0 otherwise. The best host accepts:
//     its announcements fit its capacity.
//   - Fix rounds of the ALM (two phases) with the fixed variables held by
//     the projection, so that the routing u, the free positions and the
//     duals adapt to the placement chosen so far.
//
// Then Repairs repair cycles, a local search over the positions whose
// routing overloads a link, each two passes of the same shape:
//
//   - a blame pass: every node measures the overload load/C_ij - 1 of its
//     out-links under the current routing; each overloaded link (by more
//     than 1e-3) blames the chain positions next to the segments it
//     carries (the host of f_s and of f_{s+1} for segment s), by overload
//     times the segment's rate on it; the flood keeps the largest blame per
//     position, and at its end the position of largest blame (if any) is
//     unfixed: its host is excluded from it for the rest of the run (tabu)
//     and the other hosts may take it again;
//   - a fixing pass with threshold 0, which places it again (the ALM
//     rounds in between move its x to the hosts the routing prefers).
//
// Then Moves move cycles, a cost-aware local search on the placement
// (two passes each: link prices from the duals and priced distances,
// then one flow's chain or position moved; the last pass restores the
// best placement measured; see move.go).
//
// After the passes the ALM continues on the fixed placement: with x
// binary, Algorithm 1 on the remaining LP in the routing. A position with
// no candidate left stays unfixed, and the run ends without a binary slice
// (Measures.Binary false): the stage found none.
type Stage struct {
	// Start is the first round of the stage (0: no stage).
	Start int
	// Passes, Flood and Fix are the number of fixing passes and the rounds
	// of each part of a pass; Repairs is the number of repair cycles (two
	// passes each).
	Passes, Flood, Fix, Repairs int
	// Moves is the number of move cycles (two passes each) after the
	// repair cycles.
	Moves int
	// Thresholds are the passes' fixing thresholds in [0, 1].
	Thresholds []float64
	// Steps, if Steps.Tau > 0, replace the Config's step parameters from
	// Start on.
	Steps Steps
}

// Steps are Algorithm 1's step parameters: the penalty rho, the proximal
// weight mu, the primal step tau, the dual step eta, the smoothing step
// beta.
type Steps struct {
	Rho, Mu, Tau, Eta, Beta float64
}

// StageRho is the penalty of the final stage (DefaultStage): with
// rho = eta = 1 the ALM on a fixed placement stalls near violation 1e-3
// on the medium instances; with rho = eta = 10 it reaches 1e-7 in 10,000
// rounds (seed 2, the binary optimum's placement).
const StageRho = 10.0

// DefaultStage returns the stage of the experiment for cfg: from round
// start, 6 passes of a flood of max(2 |V|, 20) rounds and 1,000 ALM
// rounds, with thresholds 0.9, 0.7, 0.5, then 0 (fix every position that
// has a candidate), 8 repair cycles, 30 move cycles, and the steps of cfg with
// rho = eta = StageRho, tau = 1/(2 (L_f + rho ||A||^2 + mu)), beta = tau mu.
func DefaultStage(cfg Config, md *problem.Model, start int) Stage {
	na := md.NormA()
	tau := 1 / (2 * (cfg.Lf() + StageRho*na*na + cfg.Mu))
	return Stage{Start: start, Passes: 6, Repairs: 8, Moves: 30, Flood: max(2*md.Inst.Nodes, 20), Fix: 1000,
		Thresholds: []float64{0.9, 0.7, 0.5, 0},
		Steps:      Steps{Rho: StageRho, Mu: cfg.Mu, Tau: tau, Eta: StageRho, Beta: tau * cfg.Mu}}
}

// Rounds returns the rounds the passes take,
// (Passes + 2 Repairs + 2 Moves) (Flood + Fix).
func (s Stage) Rounds() int { return s.passes() * (s.Flood + s.Fix) }

// passKind is what a pass's flood computes.
type passKind int

const (
	fixing    passKind = iota // announcements, then fixing (fixPass)
	blaming                   // blame of overloaded links, then unfixWorst
	distances                 // priced shortest distances (Bellman-Ford)
	moving                    // relocation proposals, then moves
)

// kind returns the kind of pass p.
func (s Stage) kind(p int) passKind {
	switch {
	case p < s.Passes:
		return fixing
	case p < s.Passes+2*s.Repairs:
		if (p-s.Passes)%2 == 0 {
			return blaming
		}
		return fixing
	case (p-s.Passes-2*s.Repairs)%2 == 0:
		return distances
	}
	return moving
}

// Validate checks the stage's fields.
func (s Stage) Validate() error {
	if s.Start == 0 {
		return nil
	}
	switch {
	case s.Start < 0:
		return fmt.Errorf("slicing: stage start %d: want >= 0", s.Start)
	case s.Passes < 1 || s.Flood < 1 || s.Fix < 0 || s.Repairs < 0 || s.Moves < 0:
		return fmt.Errorf("slicing: stage of %d passes, %d repairs and %d moves of %d flood and %d ALM rounds: want >= 1, >= 0, >= 0, >= 1, >= 0", s.Passes, s.Repairs, s.Moves, s.Flood, s.Fix)
	case len(s.Thresholds) == 0:
		return fmt.Errorf("slicing: stage: no thresholds")
	}
	for _, th := range s.Thresholds {
		if !(th >= 0 && th <= 1) {
			return fmt.Errorf("slicing: stage threshold %v not in [0, 1]", th)
		}
	}
	if st := s.Steps; st.Tau != 0 {
		for _, v := range []float64{st.Rho, st.Mu, st.Eta, st.Tau} {
			if !(v >= 0) || math.IsInf(v, 0) {
				return fmt.Errorf("slicing: stage steps %+v: want finite values >= 0", st)
			}
		}
		if !(st.Tau > 0) || !(st.Beta >= 0 && st.Beta <= 1) {
			return fmt.Errorf("slicing: stage steps %+v: want tau > 0 and beta in [0, 1]", st)
		}
	}
	return nil
}

// passes returns the number of passes.
func (s Stage) passes() int { return s.Passes + 2*s.Repairs + 2*s.Moves }

// running reports whether round t is a round of the stage's passes.
func (s Stage) running(t int) bool {
	return s.Start > 0 && t >= s.Start && t < s.Start+s.Rounds()
}

// flooding reports whether round t is a flood round of the stage, and
// its pass and whether it is the pass's last flood round.
func (s Stage) flooding(t int) (pass int, flood, last bool) {
	if !s.running(t) {
		return 0, false, false
	}
	o := t - s.Start
	pass, o = o/(s.Flood+s.Fix), o%(s.Flood+s.Fix)
	return pass, o < s.Flood, o == s.Flood-1
}

// threshold returns the threshold of pass p (0 in the repair cycles).
func (s Stage) threshold(p int) float64 {
	if p >= s.Passes {
		return 0
	}
	return s.Thresholds[min(p, len(s.Thresholds)-1)]
}

// floodState is an agent's part of the stage.
type floodState struct {
	gloc   map[int]int // group -> local index of the own x_i(g)
	groups []int       // the groups the agent hosts, ascending
	rate   []float64   // rate[g] = lambda(k) of group g's flow
	fixed  map[int]bool
	tabu   map[int]bool // positions this host is excluded from
	load   float64      // the rate of the positions fixed to 1 here
	best   []float64    // best[g]: the largest announcement heard (-1: none)
	host   []float64    // host[g]: its host (-1: none)
	nbrs   []int        // out- and in-neighbours, ascending
	pass   int          // 1 + the pass whose flood the table holds (0: none)
	buf    []float64    // the table sent (fixing and blame passes: best, host; distance passes: dT; move passes: dist, spare, score)

	place []int     // place[g]: the host of position g as far as known (-1: none)
	pos   [][2]int  // pos[g] = (k, m)
	spare []float64 // spare[v]: node v's spare capacity (move passes)
	dist  []float64 // dist[u N + v]: priced distance from u to v (move passes)
	dT    []float64 // dT[v]: priced distance from this node to v
	price []float64 // price[q]: w_ij of the out-link to out[q]

	visited map[string]int // chain placements a flow has left, and the move cycle it left them in
	cycle   int            // move passes so far
	score   []float64      // per node: g on its out-links, then its largest residual (move passes)
	kept    []int          // the best placement the move passes have measured (nil: none)
	keptG   float64        // its g
	keptRes float64        // its largest residual

	linkRow  []int     // linkRow[q]: the own row of out-link q's capacity (-1: none)
	linkCoef []float64 // its coefficient per unit rate
}

// newFloodState returns the stage state of agent id on md.
func newFloodState(md *problem.Model, id, lo int) floodState {
	G, N := len(md.Groups), md.Inst.Nodes
	fs := floodState{gloc: make(map[int]int), fixed: make(map[int]bool), tabu: make(map[int]bool),
		rate: make([]float64, G), best: make([]float64, G), host: make([]float64, G),
		place: make([]int, G), pos: make([][2]int, G), visited: make(map[string]int),
		spare: make([]float64, N), score: make([]float64, 2*N), dist: make([]float64, N*N), dT: make([]float64, N), price: make([]float64, len(md.Out[id]))}
	for g := range fs.place {
		fs.place[g] = -1
	}
	for k, fl := range md.Inst.Flows {
		for m := 1; m <= len(fl.Chain); m++ {
			g := md.Group(k, m)
			fs.rate[g] = fl.Rate
			fs.pos[g] = [2]int{k, m}
			if c := md.X(id, k, m); c >= 0 {
				fs.gloc[g] = c - lo
				fs.groups = append(fs.groups, g)
			}
		}
	}
	slices.Sort(fs.groups)
	fs.nbrs = append(append([]int(nil), md.Out[id]...), md.In[id]...)
	slices.Sort(fs.nbrs)
	fs.nbrs = slices.Compact(fs.nbrs)
	fs.buf = make([]float64, max(2*G, N*N+3*N))
	return fs
}

// announce starts a pass's flood: the table holds only the agent's own
// candidacies.
func (a *Agent) announce() {
	fs := &a.fl
	for g := range fs.best {
		fs.best[g], fs.host[g] = -1, -1
	}
	var open []int
	for _, g := range fs.groups {
		if !fs.fixed[g] && !fs.tabu[g] {
			open = append(open, g)
		}
	}
	slices.SortStableFunc(open, func(p, q int) int {
		xp, xq := a.w[fs.gloc[p]], a.w[fs.gloc[q]]
		switch {
		case xp > xq:
			return -1
		case xp < xq:
			return 1
		}
		return 0
	})
	left := a.md.Inst.NodeCap[a.id] - fs.load
	for _, g := range open {
		if fs.rate[g] <= left*(1+1e-12) {
			left -= fs.rate[g]
			fs.best[g], fs.host[g] = a.w[fs.gloc[g]], float64(a.id)
		}
	}
}

// merge takes the larger announcement of every position from a
// neighbour's table.
func (a *Agent) merge(tab []float64) {
	fs := &a.fl
	G := len(fs.best)
	for g := 0; g < G; g++ {
		v, h := tab[g], tab[G+g]
		if v > fs.best[g] || (v == fs.best[g] && v >= 0 && h < fs.host[g]) {
			fs.best[g], fs.host[g] = v, h
		}
	}
}

// fixPass fixes the own positions decided by pass p's flood.
func (a *Agent) fixPass(p int) {
	fs := &a.fl
	th := a.cfg.Stage.threshold(p)
	for g, h := range fs.host {
		if fs.place[g] < 0 && fs.best[g] >= 0 && fs.best[g] >= th {
			fs.place[g] = int(h)
		}
	}
	for _, g := range fs.groups {
		if fs.fixed[g] || fs.best[g] < 0 || fs.best[g] < th {
			continue
		}
		v := 0.0
		if int(fs.host[g]) == a.id {
			v = 1
			fs.load += fs.rate[g]
		}
		c := fs.gloc[g]
		a.lo[c], a.hi[c], a.w[c], a.z[c] = v, v, v, v
		fs.fixed[g] = true
	}
}

// blame starts a blame pass's flood: the table holds the blame of the
// agent's own overloaded out-links on the positions next to the segments
// they carry.
func (a *Agent) blame() {
	fs := &a.fl
	for g := range fs.best {
		fs.best[g], fs.host[g] = 0, float64(a.id)
	}
	md := a.md
	for q, e := range md.OutLink[a.id] {
		blk := a.w[q*a.seg : (q+1)*a.seg]
		var load float64
		for k, fl := range md.Inst.Flows {
			for s := 0; s <= len(fl.Chain); s++ {
				load += fl.Rate * blk[md.SegOff[k]+s]
			}
		}
		over := load/md.Inst.Links[e].Cap - 1
		if over <= 1e-3 {
			continue
		}
		for k, fl := range md.Inst.Flows {
			l := len(fl.Chain)
			for s := 0; s <= l; s++ {
				u := blk[md.SegOff[k]+s]
				if u <= 1e-3 {
					continue
				}
				for _, m := range []int{s, s + 1} {
					if m >= 1 && m <= l {
						fs.best[md.Group(k, m)] += over * fl.Rate * u
					}
				}
			}
		}
	}
}

// mergeBlame takes the larger blame of every position from a neighbour's
// table.
func (a *Agent) mergeBlame(tab []float64) {
	for g := range a.fl.best {
		a.fl.best[g] = math.Max(a.fl.best[g], tab[g])
	}
}

// unfixWorst unfixes the position of largest blame (ties to the lower
// position) if the agent hosts it: its host becomes tabu for it.
func (a *Agent) unfixWorst() {
	fs := &a.fl
	g := argmaxBlame(fs.best)
	if g < 0 {
		return
	}
	fs.place[g] = -1
	c, ok := fs.gloc[g]
	if !ok || !fs.fixed[g] {
		return
	}
	if a.hi[c] == 1 { // the host of g: excluded from now on
		fs.tabu[g] = true
		fs.load -= fs.rate[g]
		a.lo[c], a.hi[c], a.w[c], a.z[c] = 0, 0, 0, 0
	} else if !fs.tabu[g] {
		a.lo[c], a.hi[c] = 0, 1
	}
	delete(fs.fixed, g)
}

// argmaxBlame returns the position of largest positive blame, or -1.
func argmaxBlame(b []float64) int {
	g := -1
	for q, v := range b {
		if v > 0 && (g < 0 || v > b[g]) {
			g = q
		}
	}
	return g
}

// Unfixed returns the number of the agent's chain positions the stage
// has not fixed (a tabu position counts as fixed to 0 once another host
// took it).
func (a *Agent) Unfixed() int { return len(a.fl.groups) - len(a.fl.fixed) }
