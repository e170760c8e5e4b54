package slicing

import (
	"math"
	"slices"
	"strconv"
)

// far stands for an unknown or infinite distance in the distance tables
// (finite, so that it travels in any wire form).
const far = 1e18

// tabuTenure is the number of move cycles for which a flow may not
// return to a chain placement it has left.
const tabuTenure = 8

// routedTol and likelyTol sort the placements the move passes measure,
// by the largest row residual of the ALM 2 Fix rounds after the move,
// before the routing has converged: at most routedTol, the placement is
// taken as routed; at most likelyTol, as likely routed; above it, as
// unrouted. On the medium instances 1..40 most placements that route
// measured below 1e-3, some (slow to converge, seeds 13 and 27) 1e-3 to
// 4e-3, and those that do not 7.8e-3 or more, most above 2e-2; a few
// that do not route measured between 1e-3 and 5e-3 (seed 1).
const (
	routedTol = 1e-3
	likelyTol = 5e-3
)

// The move cycles are a distributed tabu search on the placement that
// the ALM's duals guide: they price the links, the flows' chains are
// re-placed on the priced distances, and the ALM's own routing measures
// what each placement costs. Each cycle is two passes:
//
//   - a distance pass: priced shortest distances by Bellman-Ford over the
//     links. Link (i,j) costs w_ij = 1 + max(0, y_ij) a_ij / Scale per
//     unit rate, the reduced cost of routing on it when its capacity row
//     is relaxed with its dual y_ij (held by i; a_ij is the row's
//     coefficient per unit rate), so a link at capacity costs a hop plus
//     its shadow price. Node i keeps dT_i[v], its distance to every node
//     v: every round it sends dT_i to its neighbours and takes
//     dT_i[v] = min(dT_i[v], w_ij + dT_j[v]) over its out-neighbours j.
//   - a move pass: a flood of the rows dT_i of the distance matrix d, the
//     spare node capacities mu_i - load_i, and per node the routing cost g
//     on its out-links and the largest residual of its rows under the
//     current placement. At its end every agent, from the same tables:
//     (1) keeps the placement in effect if it is complete and the best so
//     far (better: by the tier of its largest residual, then by g); (2) places
//     every unplaced position (placeUnplaced); (3) moves one flow: among
//     the neighbours of the placement, each flow's cheapest chain on d
//     (cheapestChain, dynamic programming over the chain's layers) and
//     each single position of a flow moved to another host, all within
//     the spare capacities and none a chain the flow left in the last
//     tabuTenure cycles, the one whose priced cost
//     lambda(k) sum_s d(h_s, h_{s+1}) (h_0 = S(k), h_{l+1} = D(k)) is the
//     lowest against the flow's current chain, even where it is higher
//     (the search goes on from a local optimum of the prices; the kept
//     placement remembers the best one measured). Each agent fixes its own
//     x_i to the new placement.
//
// The Fix ALM rounds after each pass re-route the flows on the new
// placement and update the duals that price the next cycle. The last
// move pass, instead of moving, restores the kept placement (if any),
// which the ALM rounds after the stage then route.
//
// As in the dive, the agents take the same decision only if the flood
// reached every agent: a lost message delays a flood by a round, and the
// Flood rounds (2 |V| in DefaultStage) cover that at 10% loss
// (TestStageFixesOnePlacement checks one host per position under loss).

// outLinkRows returns, per out-link of the agent, the index of its
// capacity row among the agent's rows and the row's coefficient per
// unit rate (the slack's coefficient over C_ij).
func (a *Agent) outLinkRows() ([]int, []float64) {
	md, lo := a.md, a.md.VarOff[a.id]
	rows := make([]int, len(a.out))
	coef := make([]float64, len(a.out))
	for q, e := range md.OutLink[a.id] {
		s := md.LinkSlack(e) - lo
		rows[q] = -1
		for r, lr := range a.rows {
			if i := slices.Index(lr.loc, s); i >= 0 {
				rows[q], coef[q] = r, lr.lval[i]/md.Inst.Links[e].Cap
				break
			}
		}
	}
	return rows, coef
}

// startDistances starts a distance pass: the link prices from the
// current duals, and the tables that know only the own node.
func (a *Agent) startDistances() {
	fs := &a.fl
	if fs.linkRow == nil {
		fs.linkRow, fs.linkCoef = a.outLinkRows()
	}
	for q := range a.out {
		fs.price[q] = 1
		if r := fs.linkRow[q]; r >= 0 {
			fs.price[q] += max(0, a.y[r]) * fs.linkCoef[q] / a.cfg.Scale
		}
	}
	for v := range fs.dT {
		fs.dT[v] = far
	}
	fs.dT[a.id] = 0
}

// mergeDistances relaxes dT_i with neighbour j's table if j is an
// out-neighbour.
func (a *Agent) mergeDistances(j int, tab []float64) {
	fs := &a.fl
	if q, ok := slices.BinarySearch(a.out, j); ok {
		w := fs.price[q]
		for v, d := range tab {
			fs.dT[v] = min(fs.dT[v], d+w)
		}
	}
}

// ends returns the hosts a and b of the chain neighbours of position
// (k,m) in the current placement (S(k) and D(k) at the chain's ends; -1
// where a neighbour is unplaced).
func (a *Agent) ends(k, m int) (int, int) {
	fl := a.md.Inst.Flows[k]
	from, to := fl.Src, fl.Dst
	if m > 1 {
		from = a.fl.place[a.md.Group(k, m-1)]
	}
	if m < len(fl.Chain) {
		to = a.fl.place[a.md.Group(k, m+1)]
	}
	return from, to
}

// posCost returns the priced cost of position (k,m) at host h:
// lambda(k) (d(a,h) + d(h,b)), a and b the hosts of its chain neighbours
// (an unplaced neighbour adds nothing).
func (a *Agent) posCost(k, m, h int) float64 {
	from, to := a.ends(k, m)
	var d float64
	if from >= 0 {
		d += a.dist(from, h)
	}
	if to >= 0 {
		d += a.dist(h, to)
	}
	return a.md.Inst.Flows[k].Rate * min(d, far)
}

// placeUnplaced places every unplaced position. A flow with unplaced
// positions gets the cheapest chain that keeps its placed positions'
// capacity (cheapestChain; flows by decreasing rate, then index); a
// position that still has no host goes on the host of its function with
// the spare capacity for it where it costs least, or, where no host has,
// by an eviction: a position (k',m') on a host h of the function whose
// departure makes room moves to another host of its own function with
// the spare capacity, the pair of least added cost.
func (a *Agent) placeUnplaced() {
	fs := &a.fl
	in := a.md.Inst
	order := make([]int, len(in.Flows))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(p, q int) int {
		switch rp, rq := in.Flows[p].Rate, in.Flows[q].Rate; {
		case rp > rq:
			return -1
		case rp < rq:
			return 1
		}
		return 0
	})
	for _, k := range order {
		cur := a.chain(k)
		if !slices.Contains(cur, -1) {
			continue
		}
		if next, _ := a.cheapestChain(k, cur); next != nil {
			for q, h := range next {
				a.move(a.md.Group(k, q+1), h)
			}
		}
	}
	for k, fl := range in.Flows {
		for m := 1; m <= len(fl.Chain); m++ {
			g := a.md.Group(k, m)
			if fs.place[g] >= 0 {
				continue
			}
			bh, bc := -1, math.Inf(1)
			for _, h := range in.Functions[fl.Chain[m-1]].Hosts {
				if fl.Rate <= fs.spare[h]*(1+1e-12) {
					if c := a.posCost(k, m, h); c < bc {
						bh, bc = h, c
					}
				}
			}
			if bh >= 0 {
				a.move(g, bh)
				continue
			}
			// eviction: (h, g2 on h, h2 for g2)
			eh, eg, eh2, ec := -1, -1, -1, math.Inf(1)
			for _, h := range in.Functions[fl.Chain[m-1]].Hosts {
				for g2, p2 := range fs.place {
					k2, m2 := fs.pos[g2][0], fs.pos[g2][1]
					r2 := in.Flows[k2].Rate
					if p2 != h || k2 == k || fl.Rate > (fs.spare[h]+r2)*(1+1e-12) {
						continue
					}
					for _, h2 := range in.Functions[in.Flows[k2].Chain[m2-1]].Hosts {
						if h2 == h || r2 > fs.spare[h2]*(1+1e-12) {
							continue
						}
						c := a.posCost(k, m, h) + a.posCost(k2, m2, h2) - a.posCost(k2, m2, h)
						if c < ec {
							eh, eg, eh2, ec = h, g2, h2, c
						}
					}
				}
			}
			if eh < 0 {
				continue
			}
			a.move(eg, eh2)
			a.move(g, eh)
		}
	}
}

// propose starts a move pass: the agent's row of the distance matrix
// (dT_i) and its spare node capacity; the rest of the table unknown.
func (a *Agent) propose() {
	fs := &a.fl
	for v := range fs.dist {
		fs.dist[v] = far
	}
	for v := range fs.spare {
		fs.spare[v] = -1
	}
	N := len(fs.dT)
	copy(fs.dist[a.id*N:(a.id+1)*N], fs.dT)
	fs.spare[a.id] = a.md.Inst.NodeCap[a.id] - fs.load
	for v := range fs.score {
		fs.score[v] = -1
	}
	var g float64
	for c, w := range a.w {
		g += a.cost[c] * w
	}
	fs.score[a.id], fs.score[N+a.id] = g/a.cfg.Scale, a.resMax
}

// mergeMoves takes the known rows of the distance matrix and the spare
// capacities from a neighbour's table.
func (a *Agent) mergeMoves(tab []float64) {
	fs := &a.fl
	nd, N := len(fs.dist), len(fs.spare)
	for v, d := range tab[:nd] {
		fs.dist[v] = min(fs.dist[v], d)
	}
	for v, c := range tab[nd : nd+N] {
		fs.spare[v] = max(fs.spare[v], c)
	}
	for v, c := range tab[nd+N:] {
		fs.score[v] = max(fs.score[v], c)
	}
}

// applyMoves ends a move pass (see the move cycles above); last marks
// the stage's last pass.
func (a *Agent) applyMoves(last bool) {
	fs := &a.fl
	N := a.md.Inst.Nodes
	var g, res float64
	for v := range N {
		g += fs.score[v]
		res = max(res, fs.score[N+v])
	}
	if !slices.Contains(fs.place, -1) && fs.better(g, res) {
		fs.kept, fs.keptG, fs.keptRes = slices.Clone(fs.place), g, res
	}
	if last {
		for q, h := range fs.kept {
			if fs.place[q] != h {
				a.move(q, h)
			}
		}
		return
	}
	a.placeUnplaced()
	fs.cycle++
	tabu := func(k int, hosts []int) bool {
		c, ok := fs.visited[chainKey(k, hosts)]
		return ok && fs.cycle-c <= tabuTenure
	}
	bk, bs := -1, math.Inf(-1)
	var bnext []int
	consider := func(k int, cur, next []int, cost float64) {
		if next == nil || slices.Equal(next, cur) || tabu(k, next) {
			return
		}
		fl := a.md.Inst.Flows[k]
		if save := fl.Rate * (a.chainCost(k, cur) - cost); save > bs {
			bk, bs, bnext = k, save, slices.Clone(next)
		}
	}
	for k, fl := range a.md.Inst.Flows {
		cur := a.chain(k)
		next, c := a.cheapestChain(k, cur)
		consider(k, cur, next, c)
		alt := slices.Clone(cur)
		for m := range alt {
			for _, h := range a.md.Inst.Functions[fl.Chain[m]].Hosts {
				if h == cur[m] {
					continue
				}
				alt[m] = h
				if a.chainFits(k, cur, alt) {
					consider(k, cur, alt, a.chainCost(k, alt))
				}
			}
			alt[m] = cur[m]
		}
	}
	if bk < 0 {
		return
	}
	fs.visited[chainKey(bk, a.chain(bk))] = fs.cycle
	for q, h := range bnext {
		a.move(a.md.Group(bk, q+1), h)
	}
}

// better reports whether a complete placement measured at routing cost
// g and largest residual res is to be kept rather than the kept one: the
// better tier of residual (routed, likely routed, unrouted: routedTol,
// likelyTol) wins; in the same tier, routed and likely routed placements
// compare by g, unrouted ones by res.
func (fs *floodState) better(g, res float64) bool {
	if fs.kept == nil {
		return true
	}
	t, kt := tier(res), tier(fs.keptRes)
	switch {
	case t != kt:
		return t < kt
	case t < 2:
		return g < fs.keptG
	}
	return res < fs.keptRes
}

// tier returns 0 for a residual at most routedTol, 1 at most likelyTol,
// 2 above.
func tier(res float64) int {
	switch {
	case res <= routedTol:
		return 0
	case res <= likelyTol:
		return 1
	}
	return 2
}

// chain returns the hosts of flow k's positions (-1: unplaced).
func (a *Agent) chain(k int) []int {
	cur := make([]int, len(a.md.Inst.Flows[k].Chain))
	for m := range cur {
		cur[m] = a.fl.place[a.md.Group(k, m+1)]
	}
	return cur
}

// chainKey names flow k's chain placed on hosts.
func chainKey(k int, hosts []int) string {
	b := strconv.AppendInt(nil, int64(k), 10)
	for _, h := range hosts {
		b = strconv.AppendInt(append(b, ' '), int64(h), 10)
	}
	return string(b)
}

// dist returns the flooded priced distance from u to v.
func (a *Agent) dist(u, v int) float64 { return a.fl.dist[u*a.md.Inst.Nodes+v] }

// chainCost returns the priced distance of flow k's chain placed on
// hosts: S(k), the hosts in order, D(k) (far if a position is unplaced).
func (a *Agent) chainCost(k int, hosts []int) float64 {
	fl := a.md.Inst.Flows[k]
	prev, c := fl.Src, 0.0
	for _, h := range hosts {
		if h < 0 {
			return far
		}
		c += a.dist(prev, h)
		prev = h
	}
	return min(c+a.dist(prev, fl.Dst), far)
}

// chainFits reports whether flow k can move from the hosts cur to next
// within the spare capacities (cur's own load given back).
func (a *Agent) chainFits(k int, cur, next []int) bool {
	rate := a.md.Inst.Flows[k].Rate
	need := make(map[int]float64)
	for _, h := range next {
		need[h] += rate
	}
	for _, h := range cur {
		if h >= 0 {
			need[h] -= rate
		}
	}
	for h, r := range need {
		if r > a.fl.spare[h]*(1+1e-12)+1e-12 && r > 0 {
			return false
		}
	}
	return true
}

// cheapestChain returns the cheapest placement of flow k's chain on the
// flooded distances (dynamic programming over the chain's layers, each
// layer the hosts of its function that fit the rate) and its priced
// distance; a host that the placement would overload is taken out of
// the layers after its first use and the program run again (nil if no
// placement fits).
func (a *Agent) cheapestChain(k int, cur []int) ([]int, float64) {
	fl := a.md.Inst.Flows[k]
	l := len(fl.Chain)
	banned := make(map[[2]int]bool) // (layer, host) taken out
	for range l + 1 {
		layers := make([][]int, l+2)
		layers[0] = []int{fl.Src}
		for m := 1; m <= l; m++ {
			for _, h := range a.md.Inst.Functions[fl.Chain[m-1]].Hosts {
				if !banned[[2]int{m, h}] && a.chainFits(k, cur, []int{h}) {
					layers[m] = append(layers[m], h)
				}
			}
		}
		layers[l+1] = []int{fl.Dst}
		V := []float64{0}
		from := make([][]int, l+2)
		for m := 1; m <= l+1; m++ {
			nv := make([]float64, len(layers[m]))
			from[m] = make([]int, len(layers[m]))
			for q, h := range layers[m] {
				nv[q], from[m][q] = far, -1
				for p, h0 := range layers[m-1] {
					if c := V[p] + a.dist(h0, h); c < nv[q] {
						nv[q], from[m][q] = c, p
					}
				}
			}
			V = nv
		}
		if len(V) == 0 || from[l+1][0] < 0 || V[0] >= far {
			return nil, far
		}
		next := make([]int, l)
		q := from[l+1][0]
		for m := l; m >= 1; m-- {
			next[m-1] = layers[m][q]
			q = from[m][q]
		}
		if a.chainFits(k, cur, next) {
			return next, V[0]
		}
		// ban the second use on of the first overloaded host
		seen := make(map[int]int)
		for m, h := range next {
			seen[h]++
			if seen[h] > 1 {
				banned[[2]int{m + 1, h}] = true
			}
		}
	}
	return nil, far
}

// move places position g on host h: the agent's own x_i(g) is fixed to
// 1 if it is h and to 0 otherwise.
func (a *Agent) move(g, h int) {
	fs := &a.fl
	if c, ok := fs.gloc[g]; ok {
		if fs.place[g] == a.id {
			fs.load -= fs.rate[g]
		}
		v := 0.0
		if h == a.id {
			v = 1
			fs.load += fs.rate[g]
		}
		a.lo[c], a.hi[c], a.w[c], a.z[c] = v, v, v, v
		fs.fixed[g] = true
	}
	if old := fs.place[g]; old >= 0 {
		fs.spare[old] += fs.rate[g]
	}
	fs.spare[h] -= fs.rate[g]
	fs.place[g] = h
}
