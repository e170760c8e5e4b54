package slicing

import (
	"container/heap"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// Column generation: the same LP in path form, for instances too large
// for the dense simplex on the arc form.
//
// Flow k with its segments is one unit of flow in a layered graph: layer
// s = 0..l holds segment s, links of the network inside each layer, and an
// arc from layer m-1 to layer m at every host of f_m. A service path p of
// flow k uses link e a_ep times and host i n_ip times, and costs
// c_p = lambda(k) sum_e a_ep. Flow decomposition in the layered graph
// makes the arc LP equal to the path LP
//
//	min sum_p c_p z_p  s.t.  sum_{p of k} z_p = 1,
//	    sum_p lambda(k) a_ep z_p <= C_e,  sum_p lambda(k) n_ip z_p <= mu_i,  z >= 0,
//
// whose dual is
//
//	max sum_k alpha_k - sum_e C_e pi_e - sum_i mu_i nu_i
//	s.t. alpha_k <= c_p + lambda(k) (sum_e a_ep pi_e + sum_i n_ip nu_i)  for every p,  pi, nu >= 0.
//
// pathLP solves the dual over a growing set of paths with gonum's simplex
// and adds, for every flow, the path of least reduced cost (a shortest
// path in the layered graph with link weights lambda(k)(1 + pi_e) and host
// weights lambda(k) nu_i) while it is below alpha_k; at the end no path
// violates a dual constraint, so the dual value is the LP optimum. An
// artificial path per flow that uses nothing keeps the dual bounded; a
// first phase that prices the artificial paths alone decides feasibility
// (see pathLP).

// cgTol is the reduced-cost threshold below which a path is added.
const cgTol = 1e-9

// cgMaxIter bounds the pricing rounds.
const cgMaxIter = 500

type path struct {
	k          int
	artificial bool
	cost       float64
	links      []int // link indices, with repeats
	hosts      []int // hosts, with repeats
}

// PathLP returns the optimal value of the LP relaxation by column
// generation (see SolveLP for the arc form it equals). The result wraps
// ErrInfeasible when the LP has no feasible point.
func PathLP(md *Model) (float64, error) {
	allowed := make([][][]int, len(md.Inst.Flows))
	for k, fl := range md.Inst.Flows {
		for _, f := range fl.Chain {
			allowed[k] = append(allowed[k], md.Inst.Functions[f].Hosts)
		}
	}
	v, _, err := pathLP(md, allowed, nil)
	return v, err
}

// PathFixed returns the optimal routing cost of a fixed binary placement
// (as SolveFixed) by column generation. The result wraps ErrInfeasible if
// the placement breaks a node capacity or no routing fits.
func PathFixed(md *Model, place [][]int) (float64, error) {
	in := md.Inst
	if len(place) != len(in.Flows) {
		return 0, fmt.Errorf("slicing: placement has %d flows, instance has %d", len(place), len(in.Flows))
	}
	allowed := make([][][]int, len(in.Flows))
	for k, fl := range in.Flows {
		if len(place[k]) != len(fl.Chain) {
			return 0, fmt.Errorf("slicing: placement of flow %d has %d functions, its chain %d", k, len(place[k]), len(fl.Chain))
		}
		for m, i := range place[k] {
			if i < 0 || i >= in.Nodes || md.X(i, k, m+1) < 0 {
				return 0, fmt.Errorf("slicing: placement of flow %d: node %d cannot run chain position %d", k, i, m+1)
			}
			allowed[k] = append(allowed[k], []int{i})
		}
	}
	v, _, err := pathLP(md, allowed, nil)
	return v, err
}

// pathLP runs column generation with the real costs and the artificial
// paths at bigM, starting from the paths of init that fit allowed (nil:
// none), and returns the optimal value and the final set of paths. When
// an artificial path may carry flow it runs phase 1, which minimizes the
// total weight of the artificial paths (real paths cost 0, artificial ones
// 1, pricing with link weights pi_e alone): a positive optimum proves the
// LP infeasible; otherwise phase 2 is resumed from the paths found.
func pathLP(md *Model, allowed [][][]int, init []path) (float64, []path, error) {
	start := startPaths(len(md.Inst.Flows), allowed, init)
	// Phase 2 first: if no alpha_k reaches bigM, no dual constraint of an
	// artificial path is tight, so by complementary slackness no
	// artificial path carries flow and the value is the LP optimum.
	paths, v2, tight, err := colgen(md, allowed, start, false)
	if err != nil {
		return 0, nil, err
	}
	if !tight {
		return v2, paths, nil
	}
	_, v1, _, err := colgen(md, allowed, paths, true)
	if err != nil {
		return 0, nil, err
	}
	if v1 > 1e-9 {
		return 0, nil, fmt.Errorf("%w: the LP has no feasible routing (link or node capacities too small for the flows; %.3g of the flow cannot be routed)", ErrInfeasible, v1)
	}
	paths, v2, _, err = colgen(md, allowed, paths, false)
	return v2, paths, err
}

// startPaths returns the artificial path of every flow followed by the
// real paths of init whose hosts are all allowed.
func startPaths(K int, allowed [][][]int, init []path) []path {
	paths := make([]path, 0, K+len(init))
	for k := 0; k < K; k++ {
		paths = append(paths, path{k: k, artificial: true})
	}
	for _, p := range init {
		if !p.artificial && p.fits(allowed[p.k]) {
			paths = append(paths, p)
		}
	}
	return paths
}

// fits reports whether the path's host of every chain position is in
// allowed[m-1]. p.hosts lists the hosts from the last position to the
// first.
func (p path) fits(allowed [][]int) bool {
	l := len(p.hosts)
	for q, i := range p.hosts {
		if !slices.Contains(allowed[l-1-q], i) {
			return false
		}
	}
	return true
}

// colgen runs one phase of column generation from the given paths (which
// start with the artificial path of every flow, see startPaths) and returns the final path
// set, the optimal value, and whether some alpha_k reached the cost of
// its artificial path (so that it may carry flow).
func colgen(md *Model, allowed [][][]int, paths []path, phase1 bool) ([]path, float64, bool, error) {
	in := md.Inst
	K, L := len(in.Flows), len(in.Links)
	hostIdx := make([]int, in.Nodes)
	var hosts []int
	for i := range hostIdx {
		hostIdx[i] = -1
		if in.NodeCap[i] > 0 {
			hostIdx[i] = len(hosts)
			hosts = append(hosts, i)
		}
	}
	H := len(hosts)
	bigM := artificialCost(md)
	costOf := func(p path) float64 {
		switch {
		case p.artificial && phase1:
			return 1
		case p.artificial:
			return bigM
		case phase1:
			return 0
		}
		return p.cost
	}
	unit := 1.0
	if phase1 {
		unit = 0
	}
	// Dual variables: alpha+_k, alpha-_k, pi_e, nu_h, then one slack per path.
	nv := 2*K + L + H
	pi := make([]float64, L)
	nu := make([]float64, in.Nodes)
	alpha := make([]float64, K)
	var value float64
	for it := 0; ; it++ {
		if it == cgMaxIter {
			return nil, 0, false, fmt.Errorf("slicing: column generation did not converge in %d rounds", cgMaxIter)
		}
		// Only links and hosts some path uses get a dual variable: the
		// others have a zero column and cost >= 0, so they are 0 at the
		// optimum, and gonum's simplex rejects zero columns.
		vcol := make([]int, nv)
		for v := range vcol {
			vcol[v] = -1
		}
		nc := 0
		use := func(v int) int {
			if vcol[v] < 0 {
				vcol[v] = nc
				nc++
			}
			return vcol[v]
		}
		for k := 0; k < K; k++ {
			use(k)
			use(K + k)
		}
		for _, p := range paths {
			for _, e := range p.links {
				use(2*K + e)
			}
			for _, i := range p.hosts {
				use(2*K + L + hostIdx[i])
			}
		}
		m := len(paths)
		a := mat.NewDense(m, nc+m, nil)
		b := make([]float64, m)
		for r, p := range paths {
			lam := in.Flows[p.k].Rate
			a.Set(r, vcol[p.k], 1)
			a.Set(r, vcol[K+p.k], -1)
			for _, e := range p.links {
				c := vcol[2*K+e]
				a.Set(r, c, a.At(r, c)-lam)
			}
			for _, i := range p.hosts {
				c := vcol[2*K+L+hostIdx[i]]
				a.Set(r, c, a.At(r, c)-lam)
			}
			a.Set(r, nc+r, 1)
			b[r] = costOf(p)
		}
		c := make([]float64, nc+m)
		for k := 0; k < K; k++ {
			c[vcol[k]], c[vcol[K+k]] = -1, 1
		}
		for e, l := range in.Links {
			if vcol[2*K+e] >= 0 {
				c[vcol[2*K+e]] = l.Cap
			}
		}
		for h, i := range hosts {
			if vcol[2*K+L+h] >= 0 {
				c[vcol[2*K+L+h]] = in.NodeCap[i]
			}
		}
		opt, y, err := lp.Simplex(c, a, b, LPTol, nil)
		if err != nil {
			return nil, 0, false, fmt.Errorf("slicing: column generation: dual simplex: %w", err)
		}
		value = -opt
		at := func(v int) float64 {
			if vcol[v] < 0 {
				return 0
			}
			return y[vcol[v]]
		}
		for k := range alpha {
			alpha[k] = at(k) - at(K+k)
		}
		// pi, nu >= 0; clamp the simplex's rounding so that Dijkstra sees
		// no negative weight.
		for e := range pi {
			pi[e] = math.Max(0, at(2*K+e))
		}
		for h, i := range hosts {
			nu[i] = math.Max(0, at(2*K+L+h))
		}
		added := 0
		for k := 0; k < K; k++ {
			p, ok := shortestService(md, k, allowed[k], pi, nu, unit)
			if ok && costOf(p)+in.Flows[k].Rate*reducedExtra(p, pi, nu) < alpha[k]-cgTol*math.Max(1, math.Abs(alpha[k])) {
				paths = append(paths, p)
				added++
			}
		}
		if added == 0 {
			break
		}
	}
	art := 1.0
	if !phase1 {
		art = bigM
	}
	tight := false
	for _, a := range alpha {
		if a >= art*(1-1e-9) {
			tight = true
		}
	}
	return paths, value, tight, nil
}

// artificialCost is the phase-2 cost of an artificial path: above the
// cost of any routing, 10 (sum_e C_e) (|L| + |V|), and above 10 lambda(k)
// |L| (l_k + 1) for every flow.
func artificialCost(md *Model) float64 {
	in := md.Inst
	var total float64
	for _, l := range in.Links {
		total += l.Cap
	}
	bigM := 10 * total * float64(len(in.Links)+in.Nodes)
	for _, fl := range in.Flows {
		bigM = math.Max(bigM, 10*fl.Rate*float64(len(in.Links)*(len(fl.Chain)+1)))
	}
	return bigM
}

// reducedExtra returns sum_e a_ep pi_e + sum_i n_ip nu_i.
func reducedExtra(p path, pi, nu []float64) float64 {
	var s float64
	for _, e := range p.links {
		s += pi[e]
	}
	for _, i := range p.hosts {
		s += nu[i]
	}
	return s
}

// shortestService returns the cheapest service path of flow k in the
// layered graph with link weights unit + pi_e and host weights nu_i (times
// lambda(k) for the reduced cost), where chain position m may run on
// allowed[m-1]. Its cost field is the true cost lambda(k) * #links. ok is
// false when no service path exists.
func shortestService(md *Model, k int, allowed [][]int, pi, nu []float64, unit float64) (path, bool) {
	in := md.Inst
	fl := in.Flows[k]
	l := len(fl.Chain)
	n := in.Nodes
	N := n * (l + 1)
	dist := make([]float64, N)
	prev := make([]int, N)     // previous layered node
	prevLink := make([]int, N) // link used to arrive, or -1 for a host arc
	for v := range dist {
		dist[v] = math.Inf(1)
		prev[v] = -1
	}
	src := fl.Src // layer 0
	dist[src] = 0
	pq := &minHeap{}
	heap.Push(pq, item{src, 0})
	isAllowed := make([][]bool, l)
	for m := range isAllowed {
		isAllowed[m] = make([]bool, n)
		for _, i := range allowed[m] {
			isAllowed[m][i] = true
		}
	}
	for pq.Len() > 0 {
		it := heap.Pop(pq).(item)
		v := it.v
		if it.d > dist[v] {
			continue
		}
		s, i := v/n, v%n
		for a, j := range md.Out[i] {
			e := md.OutLink[i][a]
			w := v - i + j
			if d := dist[v] + unit + pi[e]; d < dist[w] {
				dist[w], prev[w], prevLink[w] = d, v, e
				heap.Push(pq, item{w, d})
			}
		}
		if s < l && isAllowed[s][i] {
			w := v + n
			if d := dist[v] + nu[i]; d < dist[w] {
				dist[w], prev[w], prevLink[w] = d, v, -1
				heap.Push(pq, item{w, d})
			}
		}
	}
	if math.IsInf(dist[l*n+fl.Dst], 1) {
		return path{}, false
	}
	p := path{k: k}
	for v := l*n + fl.Dst; prev[v] >= 0; v = prev[v] {
		if prevLink[v] >= 0 {
			p.links = append(p.links, prevLink[v])
		} else {
			p.hosts = append(p.hosts, v%n)
		}
	}
	p.cost = fl.Rate * float64(len(p.links))
	return p, true
}

type item struct {
	v int
	d float64
}

type minHeap []item

func (h minHeap) Len() int { return len(h) }
func (h minHeap) Less(a, b int) bool {
	if h[a].d != h[b].d {
		return h[a].d < h[b].d
	}
	return h[a].v < h[b].v
}
func (h minHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *minHeap) Push(x any)   { *h = append(*h, x.(item)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
