package slicing

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// GenOptions are the parameters of a random instance.
type GenOptions struct {
	// Nodes is |V| (the range is 10..60).
	Nodes int
	// Flows is K (3..20).
	Flows int
	// MinChain and MaxChain bound the chain lengths l_k (2..4).
	MinChain, MaxChain int
	// Functions is the number of function types; 0 means max(4, MaxChain).
	Functions int
	// HostFrac is the fraction of nodes that can host each function; 0
	// means 1/3.
	HostFrac float64
	// Degree is the mean undirected degree of the network; 0 means 3.
	Degree float64
	// Cut is the fraction of the uncapacitated routing's load that the
	// capacities keep (see Generate); 0 means 0.8.
	Cut float64
}

// Medium is the medium instance size: 30 nodes, 10 flows,
// chains of length 2..4.
var Medium = GenOptions{Nodes: 30, Flows: 10, MinChain: 2, MaxChain: 4}

// Generate returns a random valid instance drawn from seed (its own
// PCG stream):
//
//   - the network: nodes uniform in the unit square; node i > 0 linked to
//     its nearest node among 0..i-1 (a spanning tree), then the nearest
//     pairs added until the mean degree is Degree; every undirected edge is
//     a pair of opposite links;
//   - Functions types, each with round(HostFrac |V|) >= 1 random hosts;
//   - flows with distinct random endpoints, rate uniform in [1, 4] and a
//     chain of distinct random functions of length uniform in
//     [MinChain, MaxChain];
//   - capacities from two binary routings on hop-shortest paths: A, the
//     placement minimizing the hop count of every flow alone, and B, a
//     random placement. C_ij = max(load_B, Cut load_A) and
//     mu_i = max(load_B, Cut load_A), each kept exact with probability 1/2
//     and otherwise multiplied by a uniform in [1, 1.5]; links and hosts
//     neither routing uses get a uniform in [1, 2] times the largest rate.
//     B is a feasible binary slice, so the LP and the binary problem are
//     feasible, while A (the uncapacitated optimum) is typically cut on
//     the links and nodes where Cut load_A > load_B: those capacities bind.
func Generate(opt GenOptions, seed uint64) (*Instance, error) {
	if opt.Functions == 0 {
		opt.Functions = max(4, opt.MaxChain)
	}
	if opt.HostFrac == 0 {
		opt.HostFrac = 1.0 / 3
	}
	if opt.Degree == 0 {
		opt.Degree = 3
	}
	if opt.Cut == 0 {
		opt.Cut = 0.8
	}
	switch {
	case opt.Nodes < 3:
		return nil, fmt.Errorf("slicing: generate: %d nodes, need at least 3", opt.Nodes)
	case opt.Flows < 1:
		return nil, fmt.Errorf("slicing: generate: %d flows, need at least 1", opt.Flows)
	case opt.MinChain < 1 || opt.MaxChain < opt.MinChain:
		return nil, fmt.Errorf("slicing: generate: chain lengths [%d, %d]: need 1 <= min <= max", opt.MinChain, opt.MaxChain)
	case opt.MaxChain > opt.Functions:
		return nil, fmt.Errorf("slicing: generate: chains up to %d functions but only %d function types", opt.MaxChain, opt.Functions)
	case !(opt.HostFrac > 0 && opt.HostFrac <= 1):
		return nil, fmt.Errorf("slicing: generate: host fraction %v must be in (0, 1]", opt.HostFrac)
	case !(opt.Cut > 0 && opt.Cut <= 1):
		return nil, fmt.Errorf("slicing: generate: cut %v must be in (0, 1]", opt.Cut)
	case !(opt.Degree >= 2):
		return nil, fmt.Errorf("slicing: generate: mean degree %v must be >= 2", opt.Degree)
	}
	rng := rand.New(rand.NewPCG(seed, 0x51c1))
	n := opt.Nodes
	px, py := make([]float64, n), make([]float64, n)
	for i := range px {
		px[i], py[i] = rng.Float64(), rng.Float64()
	}
	dist := func(i, j int) float64 { return math.Hypot(px[i]-px[j], py[i]-py[j]) }
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
	}
	edges := 0
	for i := 1; i < n; i++ {
		best := 0
		for j := 1; j < i; j++ {
			if dist(i, j) < dist(i, best) {
				best = j
			}
		}
		adj[i][best], adj[best][i] = true, true
		edges++
	}
	type pair struct {
		i, j int
		d    float64
	}
	var pairs []pair
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			pairs = append(pairs, pair{i, j, dist(i, j)})
		}
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if a.d < b.d {
			return -1
		}
		if a.d > b.d {
			return 1
		}
		return 0
	})
	want := int(math.Round(opt.Degree * float64(n) / 2))
	for _, p := range pairs {
		if edges >= want {
			break
		}
		if !adj[p.i][p.j] {
			adj[p.i][p.j], adj[p.j][p.i] = true, true
			edges++
		}
	}
	in := &Instance{Nodes: n, NodeCap: make([]float64, n)}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if adj[i][j] {
				in.Links = append(in.Links, Link{From: i, To: j})
			}
		}
	}
	nh := max(1, int(math.Round(opt.HostFrac*float64(n))))
	for f := 0; f < opt.Functions; f++ {
		hosts := rng.Perm(n)[:nh]
		slices.Sort(hosts)
		in.Functions = append(in.Functions, Function{Name: fmt.Sprintf("f%d", f), Hosts: hosts})
	}
	var rateMax float64
	for k := 0; k < opt.Flows; k++ {
		src := rng.IntN(n)
		dst := rng.IntN(n - 1)
		if dst >= src {
			dst++
		}
		l := opt.MinChain + rng.IntN(opt.MaxChain-opt.MinChain+1)
		chain := rng.Perm(opt.Functions)[:l]
		rate := 1 + 3*rng.Float64()
		rateMax = math.Max(rateMax, rate)
		in.Flows = append(in.Flows, Flow{Src: src, Dst: dst, Rate: rate, Chain: chain})
	}
	hops := allHops(n, adj)
	next := nextHops(n, adj, hops)
	loadA, nodeA := make(map[[2]int]float64), make([]float64, n)
	loadB, nodeB := make(map[[2]int]float64), make([]float64, n)
	route := func(load map[[2]int]float64, node []float64, place []int, fl Flow) {
		stops := append(append([]int{fl.Src}, place...), fl.Dst)
		for s := 0; s+1 < len(stops); s++ {
			for i := stops[s]; i != stops[s+1]; {
				j := next[i][stops[s+1]]
				load[[2]int{i, j}] += fl.Rate
				i = j
			}
		}
		for _, h := range place {
			node[h] += fl.Rate
		}
	}
	for _, fl := range in.Flows {
		route(loadA, nodeA, nearestPlacement(in, fl, hops), fl)
		place := make([]int, len(fl.Chain))
		for m, f := range fl.Chain {
			hs := in.Functions[f].Hosts
			place[m] = hs[rng.IntN(len(hs))]
		}
		route(loadB, nodeB, place, fl)
	}
	capOf := func(a, b float64) float64 {
		c := math.Max(b, opt.Cut*a)
		if c == 0 {
			return rateMax * (1 + rng.Float64())
		}
		if rng.IntN(2) == 1 {
			c *= 1 + 0.5*rng.Float64()
		}
		return c
	}
	for e := range in.Links {
		key := [2]int{in.Links[e].From, in.Links[e].To}
		in.Links[e].Cap = capOf(loadA[key], loadB[key])
	}
	hosts := make([]bool, n)
	for _, fn := range in.Functions {
		for _, i := range fn.Hosts {
			hosts[i] = true
		}
	}
	for i := range in.NodeCap {
		if hosts[i] {
			in.NodeCap[i] = capOf(nodeA[i], nodeB[i])
		}
	}
	if err := in.Validate(); err != nil {
		return nil, fmt.Errorf("slicing: generate: %w", err)
	}
	return in, nil
}

// allHops returns the hop distances of the undirected adjacency adj.
func allHops(n int, adj [][]bool) [][]int {
	d := make([][]int, n)
	for s := range d {
		d[s] = make([]int, n)
		for i := range d[s] {
			d[s][i] = -1
		}
		d[s][s] = 0
		queue := []int{s}
		for len(queue) > 0 {
			i := queue[0]
			queue = queue[1:]
			for j := 0; j < n; j++ {
				if adj[i][j] && d[s][j] < 0 {
					d[s][j] = d[s][i] + 1
					queue = append(queue, j)
				}
			}
		}
	}
	return d
}

// nextHops returns next[i][t], the lowest-numbered neighbour of i on a
// hop-shortest path to t.
func nextHops(n int, adj [][]bool, d [][]int) [][]int {
	next := make([][]int, n)
	for i := range next {
		next[i] = make([]int, n)
		for t := 0; t < n; t++ {
			next[i][t] = -1
			for j := 0; j < n; j++ {
				if adj[i][j] && d[t][j] == d[t][i]-1 {
					next[i][t] = j
					break
				}
			}
		}
	}
	return next
}

// nearestPlacement returns the host sequence of flow fl that minimizes the
// total hop count S -> f_1 -> ... -> D (dynamic programming over the
// chain; ties to the lowest host).
func nearestPlacement(in *Instance, fl Flow, d [][]int) []int {
	prev := []int{fl.Src}
	cost := []int{0}
	var back [][]int
	for _, f := range fl.Chain {
		hs := in.Functions[f].Hosts
		c := make([]int, len(hs))
		b := make([]int, len(hs))
		for h, i := range hs {
			c[h] = math.MaxInt
			for p, j := range prev {
				if v := cost[p] + d[j][i]; v < c[h] {
					c[h], b[h] = v, p
				}
			}
		}
		back = append(back, b)
		prev, cost = hs, c
	}
	bestH, bestC := 0, math.MaxInt
	for h, i := range prev {
		if v := cost[h] + d[i][fl.Dst]; v < bestC {
			bestH, bestC = h, v
		}
	}
	place := make([]int, len(fl.Chain))
	for m := len(fl.Chain) - 1; m >= 0; m-- {
		place[m] = in.Functions[fl.Chain[m]].Hosts[bestH]
		bestH = back[m][bestH]
	}
	return place
}
