package slicing

import (
	"fmt"
	"math"
	"slices"
)

// Model is the equality form A w = b, w in [0,1]^n, of the relaxation of
// an Instance, with the variables and rows grouped by the node that owns
// them. Node i owns, in this order within its block [VarOff[i],
// VarOff[i+1]):
//
//	u_ij(k,s) for its out-links (i,j), ascending by j, then k, then s;
//	x_i(k,m)  for the chain positions it can host, ascending by k, then m;
//	t_ij      the slack of the capacity row of each out-link, ascending by j;
//	t_i       the slack of its node capacity row, if it hosts a function;
//
// and the rows [RowOff[i], RowOff[i+1]):
//
//	conservation (i,k,s), s = 0..l_k, ascending by k then s:
//	    sum_j u_ij(k,s) - sum_j u_ji(k,s) - x_i(k,s) + x_i(k,s+1) = 1[s=0, i=S(k)] - 1[s=l_k, i=D(k)],
//	    (x_i(k,0), x_i(k,l+1) and x_i(k,m) for i not in V_{f_m} are the constants moved to b or 0);
//	link capacity (i,j), ascending by j:  sum_k (lambda(k)/C_ij) sum_s u_ij(k,s) + t_ij = 1;
//	node capacity i:  sum_k (lambda(k)/mu_i) sum_m x_i(k,m) + t_i = 1;
//
// each capacity row divided by its Euclidean norm (a diagonal row scaling
// that leaves the feasible set alone and keeps ||A|| small, so the ALM's
// step 1/L_K is not set by a few heavily loaded rows).
//
// The assignment rows sum_{i in V_{f_m}} x_i(k,m) = 1 are implied by the
// conservation rows and are not rows of A; Evaluate checks them. u <= 1
// is no restriction: with positive costs an optimal routing has no cycle,
// so no segment sends more than its whole rate over a link.
type Model struct {
	Inst *Instance
	// N is the number of variables, M the number of rows.
	N, M int
	// VarOff and RowOff delimit the nodes' blocks (length Nodes+1).
	VarOff, RowOff []int
	// Rows are the rows of A, sparse, columns ascending.
	Rows []Row
	// B is b.
	B []float64
	// Cost is the gradient of g: lambda(k) at u_ij(k,s), 0 elsewhere.
	Cost []float64
	// Groups lists, per chain position (k,m) in order of k then m, the
	// variables x_i(k,m), i in V_{f_m} ascending: the blocks x_f(k) of
	// P_eps.
	Groups [][]int
	// GroupHosts lists the hosts i of each group, aligned with Groups.
	GroupHosts [][]int
	// Seg is sum_k (l_k + 1), the number of segments; SegOff[k] is the
	// index of segment (k,0) among them.
	Seg    int
	SegOff []int
	// Out and In are the out- and in-neighbours of every node, ascending;
	// OutLink[i][a] is the index in Inst.Links of (i, Out[i][a]).
	Out, In [][]int
	OutLink [][]int

	xIdx    [][]int // xIdx[g][i]: the variable of x_i(g), or -1
	linkVar []int   // linkVar[e]: the slack variable of link e
	nodeVar []int   // nodeVar[i]: the slack of node i, or -1
	groupOf [][]int // groupOf[k][m-1] = g
}

// Row is one sparse row of A.
type Row struct {
	Cols []int
	Vals []float64
}

// NewModel builds the model of a valid instance.
func NewModel(in *Instance) (*Model, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	n := in.Nodes
	md := &Model{Inst: in, VarOff: make([]int, n+1), RowOff: make([]int, n+1),
		Out: make([][]int, n), In: make([][]int, n), OutLink: make([][]int, n),
		SegOff: make([]int, len(in.Flows)), nodeVar: make([]int, n)}
	for k, fl := range in.Flows {
		md.SegOff[k] = md.Seg
		md.Seg += len(fl.Chain) + 1
		var gs []int
		for m, f := range fl.Chain {
			_ = m
			gs = append(gs, len(md.GroupHosts))
			md.GroupHosts = append(md.GroupHosts, in.Functions[f].Hosts)
		}
		md.groupOf = append(md.groupOf, gs)
	}
	order := make([]int, len(in.Links))
	for e := range order {
		order[e] = e
	}
	slices.SortFunc(order, func(a, b int) int {
		la, lb := in.Links[a], in.Links[b]
		if la.From != lb.From {
			return la.From - lb.From
		}
		return la.To - lb.To
	})
	for _, e := range order {
		l := in.Links[e]
		md.Out[l.From] = append(md.Out[l.From], l.To)
		md.OutLink[l.From] = append(md.OutLink[l.From], e)
		md.In[l.To] = append(md.In[l.To], l.From)
	}
	for i := range md.In {
		slices.Sort(md.In[i])
	}
	md.xIdx = make([][]int, len(md.GroupHosts))
	for g := range md.xIdx {
		md.xIdx[g] = make([]int, n)
		for i := range md.xIdx[g] {
			md.xIdx[g][i] = -1
		}
	}
	md.Groups = make([][]int, len(md.GroupHosts))
	md.linkVar = make([]int, len(in.Links))
	// Variables.
	v := 0
	for i := 0; i < n; i++ {
		md.VarOff[i] = v
		v += len(md.Out[i]) * md.Seg
		hosts := false
		for g, hs := range md.GroupHosts {
			if _, ok := slices.BinarySearch(hs, i); ok {
				md.xIdx[g][i] = v
				v++
				hosts = true
			}
		}
		for _, e := range md.OutLink[i] {
			md.linkVar[e] = v
			v++
		}
		md.nodeVar[i] = -1
		if hosts {
			md.nodeVar[i] = v
			v++
		}
	}
	md.VarOff[n] = v
	md.N = v
	for g, hs := range md.GroupHosts {
		for _, i := range hs {
			md.Groups[g] = append(md.Groups[g], md.xIdx[g][i])
		}
	}
	md.Cost = make([]float64, v)
	for i := 0; i < n; i++ {
		for a := range md.Out[i] {
			for k, fl := range in.Flows {
				for s := 0; s <= len(fl.Chain); s++ {
					md.Cost[md.U(i, a, k, s)] = fl.Rate
				}
			}
		}
	}
	// Rows.
	for i := 0; i < n; i++ {
		md.RowOff[i] = len(md.Rows)
		for k, fl := range in.Flows {
			l := len(fl.Chain)
			for s := 0; s <= l; s++ {
				var r Row
				for a := range md.Out[i] {
					r.Cols = append(r.Cols, md.U(i, a, k, s))
					r.Vals = append(r.Vals, 1)
				}
				for _, j := range md.In[i] {
					r.Cols = append(r.Cols, md.U(j, md.OutPos(j, i), k, s))
					r.Vals = append(r.Vals, -1)
				}
				if s >= 1 {
					if c := md.X(i, k, s); c >= 0 {
						r.Cols = append(r.Cols, c)
						r.Vals = append(r.Vals, -1)
					}
				}
				if s+1 <= l {
					if c := md.X(i, k, s+1); c >= 0 {
						r.Cols = append(r.Cols, c)
						r.Vals = append(r.Vals, 1)
					}
				}
				var b float64
				if s == 0 && i == fl.Src {
					b++
				}
				if s == l && i == fl.Dst {
					b--
				}
				md.Rows = append(md.Rows, sortRow(r))
				md.B = append(md.B, b)
			}
		}
		for a, e := range md.OutLink[i] {
			c := in.Links[e].Cap
			var r Row
			for k, fl := range in.Flows {
				for s := 0; s <= len(fl.Chain); s++ {
					r.Cols = append(r.Cols, md.U(i, a, k, s))
					r.Vals = append(r.Vals, fl.Rate/c)
				}
			}
			r.Cols = append(r.Cols, md.linkVar[e])
			r.Vals = append(r.Vals, 1)
			md.Rows = append(md.Rows, sortRow(unitRow(r)))
			md.B = append(md.B, 1/rowNorm(r))
		}
		if md.nodeVar[i] >= 0 {
			c := in.NodeCap[i]
			var r Row
			for k, fl := range in.Flows {
				for m := 1; m <= len(fl.Chain); m++ {
					if x := md.X(i, k, m); x >= 0 {
						r.Cols = append(r.Cols, x)
						r.Vals = append(r.Vals, fl.Rate/c)
					}
				}
			}
			r.Cols = append(r.Cols, md.nodeVar[i])
			r.Vals = append(r.Vals, 1)
			md.Rows = append(md.Rows, sortRow(unitRow(r)))
			md.B = append(md.B, 1/rowNorm(r))
		}
	}
	md.RowOff[n] = len(md.Rows)
	md.M = len(md.Rows)
	return md, nil
}

// rowNorm returns the Euclidean norm of a row's values.
func rowNorm(r Row) float64 { return math.Sqrt(dot(r.Vals, r.Vals)) }

// unitRow returns r divided by its norm.
func unitRow(r Row) Row {
	nr := rowNorm(r)
	out := Row{Cols: r.Cols, Vals: make([]float64, len(r.Vals))}
	for q, v := range r.Vals {
		out.Vals[q] = v / nr
	}
	return out
}

// sortRow sorts a row's entries by column (columns are distinct).
func sortRow(r Row) Row {
	idx := make([]int, len(r.Cols))
	for k := range idx {
		idx[k] = k
	}
	slices.SortFunc(idx, func(a, b int) int { return r.Cols[a] - r.Cols[b] })
	out := Row{Cols: make([]int, len(idx)), Vals: make([]float64, len(idx))}
	for k, p := range idx {
		out.Cols[k], out.Vals[k] = r.Cols[p], r.Vals[p]
	}
	return out
}

// U returns the variable of u_ij(k,s) where j = Out[i][a].
func (md *Model) U(i, a, k, s int) int {
	return md.VarOff[i] + a*md.Seg + md.SegOff[k] + s
}

// X returns the variable of x_i(k,m), m = 1..l_k, or -1 if node i cannot
// host the m-th function of flow k.
func (md *Model) X(i, k, m int) int {
	return md.xIdx[md.groupOf[k][m-1]][i]
}

// LinkSlack returns the slack variable t_ij of link e (an index into
// Inst.Links).
func (md *Model) LinkSlack(e int) int { return md.linkVar[e] }

// NodeSlack returns the slack variable t_i of node i, or -1 if i hosts no
// function.
func (md *Model) NodeSlack(i int) int { return md.nodeVar[i] }

// Group returns the index g of chain position (k, m), m = 1..l_k, in
// Groups.
func (md *Model) Group(k, m int) int { return md.groupOf[k][m-1] }

// OutPos returns the position a of j among i's out-neighbours, Out[i][a]
// == j.
func (md *Model) OutPos(i, j int) int {
	a, ok := slices.BinarySearch(md.Out[i], j)
	if !ok {
		panic(fmt.Sprintf("slicing: no link %d->%d", i, j))
	}
	return a
}

// Residual writes A w - b into res (length M).
func (md *Model) Residual(w, res []float64) {
	for r, row := range md.Rows {
		var s float64
		for q, c := range row.Cols {
			s += row.Vals[q] * w[c]
		}
		res[r] = s - md.B[r]
	}
}

// ATmul writes A^T v into dst (length N).
func (md *Model) ATmul(v, dst []float64) {
	clear(dst)
	for r, row := range md.Rows {
		for q, c := range row.Cols {
			dst[c] += row.Vals[q] * v[r]
		}
	}
}

// NormA returns ||A||_2, the largest singular value of A, by power
// iteration on A^T A from a deterministic start, to relative accuracy
// about 1e-9 (at most 5000 iterations).
func (md *Model) NormA() float64 {
	w := make([]float64, md.N)
	for c := range w {
		w[c] = 1 + 0.01*float64(c%7)
	}
	res := make([]float64, md.M)
	var lam float64
	for it := 0; it < 5000; it++ {
		nrm := math.Sqrt(dot(w, w))
		for c := range w {
			w[c] /= nrm
		}
		md.mulNoB(w, res)
		md.ATmul(res, w)
		next := math.Sqrt(dot(w, w))
		if it > 10 && math.Abs(next-lam) <= 1e-10*next {
			lam = next
			break
		}
		lam = next
	}
	return math.Sqrt(lam)
}

// mulNoB writes A w into dst.
func (md *Model) mulNoB(w, dst []float64) {
	for r, row := range md.Rows {
		var s float64
		for q, c := range row.Cols {
			s += row.Vals[q] * w[c]
		}
		dst[r] = s
	}
}

func dot(a, b []float64) float64 {
	var s float64
	for k := range a {
		s += a[k] * b[k]
	}
	return s
}

// Initial returns the ALM's starting point w_0: u = 0, every x_i(k,m) =
// 1/|V_{f_m}| (the centre of the assignment simplex) and every slack 1
// (nothing used). It is what every agent assumes of its neighbours
// before the first message.
func (md *Model) Initial() []float64 {
	w := make([]float64, md.N)
	for _, grp := range md.Groups {
		for _, c := range grp {
			w[c] = 1 / float64(len(grp))
		}
	}
	for _, c := range md.linkVar {
		w[c] = 1
	}
	for _, c := range md.nodeVar {
		if c >= 0 {
			w[c] = 1
		}
	}
	return w
}
