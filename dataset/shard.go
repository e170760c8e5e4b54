package dataset

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/consim/consim/graph"
)

// Sharding methods, the values of Sharding.Method.
const (
	// ShardContiguous gives agent i the i-th block of consecutive rows.
	ShardContiguous = "contiguous"
	// ShardRandom gives agent i the i-th block of a seeded random
	// permutation of the rows.
	ShardRandom = "random"
	// ShardColumn groups the rows by the value of a column and gives each
	// group to one agent.
	ShardColumn = "column"
)

// streamShard is the stream of common randomness of the random sharding
// permutation, a named stream of package graph (distinct from every
// registered stream).
var streamShard = graph.NamedStream("dataset/shard")

// Sharding says how the M rows of a data set are split among N agents.
// Every method is deterministic: every process that knows (Sharding,
// data, N) computes the same shards without talking. Each agent's rows
// keep their file order.
type Sharding struct {
	// Method is ShardContiguous, ShardRandom or ShardColumn.
	Method string
	// Seed drives the permutation of ShardRandom (the run seed).
	Seed uint64
	// Column names the column of ShardColumn: a feature name (or, for data
	// without names, a 1-based LIBSVM feature index "1" .. Dim), else
	// "label" (or the label's own name) for the labels, or "qid" for the
	// SVMlight query ids.
	Column string
}

// ParseSharding reads the text form of a sharding, "contiguous",
// "random" or "column:NAME"; seed is used by "random".
func ParseSharding(s string, seed uint64) (Sharding, error) {
	switch {
	case s == ShardContiguous:
		return Sharding{Method: ShardContiguous}, nil
	case s == ShardRandom:
		return Sharding{Method: ShardRandom, Seed: seed}, nil
	case strings.HasPrefix(s, ShardColumn+":") && len(s) > len(ShardColumn)+1:
		return Sharding{Method: ShardColumn, Column: s[len(ShardColumn)+1:]}, nil
	}
	return Sharding{}, fmt.Errorf("dataset: sharding %q unknown; want contiguous, random or column:NAME", s)
}

// String returns the text form ParseSharding reads.
func (s Sharding) String() string {
	if s.Method == ShardColumn {
		return ShardColumn + ":" + s.Column
	}
	return s.Method
}

// Assign returns the row indices of each of the n agents' shards (each
// ascending, together a partition of 0 .. M-1):
//
//   - contiguous: with M = q n + r (0 <= r < n), agent i gets the rows
//     [i q + min(i, r), (i+1) q + min(i+1, r)): the first r agents get
//     q+1 rows, the others q.
//   - random: the rows are permuted by Permutation(M, Seed), agent i gets
//     the i-th contiguous block of the permutation (sizes as contiguous),
//     sorted ascending.
//   - column: the rows are grouped by the column's value (one group per
//     distinct value; -0 and +0 are one value). Groups are taken largest
//     first (ties: smaller value first) and each goes whole to the agent
//     holding the fewest rows so far (ties: lower id). Shard sizes follow
//     the group sizes; there must be at least n groups.
//
// It fails if n < 1 or n > M (some agent would hold no row).
func (s Sharding) Assign(d *Dataset, n int) ([][]int, error) {
	if err := d.checkShape(); err != nil {
		return nil, err
	}
	m := d.Rows()
	if n < 1 || n > m {
		return nil, fmt.Errorf("dataset %s: %d agents for %d rows, want 1 <= N <= rows", d.name(), n, m)
	}
	switch s.Method {
	case ShardContiguous:
		out := make([][]int, n)
		for i := range out {
			lo, hi := ContiguousBlock(m, n, i)
			out[i] = make([]int, hi-lo)
			for p := range out[i] {
				out[i][p] = lo + p
			}
		}
		return out, nil
	case ShardRandom:
		perm := Permutation(m, s.Seed)
		out := make([][]int, n)
		for i := range out {
			lo, hi := ContiguousBlock(m, n, i)
			out[i] = slices.Clone(perm[lo:hi])
			slices.Sort(out[i])
		}
		return out, nil
	case ShardColumn:
		return groupRows(d, n, s.Column)
	}
	return nil, fmt.Errorf("dataset: sharding method %q unknown; want contiguous, random or column", s.Method)
}

// Split returns the n agents' shards of d as data sets (copies of the
// rows; see Assign for which rows).
func (s Sharding) Split(d *Dataset, n int) ([]*Dataset, error) {
	rows, err := s.Assign(d, n)
	if err != nil {
		return nil, err
	}
	out := make([]*Dataset, n)
	for i, r := range rows {
		if out[i], err = d.Subset(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Shard returns agent i's shard of d alone, identical to Split(d, n)[i]
// (a process building only its own agent calls it).
func (s Sharding) Shard(d *Dataset, n, i int) (*Dataset, error) {
	if i < 0 || i >= n {
		return nil, fmt.Errorf("dataset %s: agent %d, want 0 <= id < N = %d", d.name(), i, n)
	}
	if s.Method == ShardContiguous && n >= 1 && n <= d.Rows() {
		lo, hi := ContiguousBlock(d.Rows(), n, i)
		rows := make([]int, hi-lo)
		for p := range rows {
			rows[p] = lo + p
		}
		return d.Subset(rows)
	}
	rows, err := s.Assign(d, n)
	if err != nil {
		return nil, err
	}
	return d.Subset(rows[i])
}

// ContiguousBlock returns the rows [lo, hi) of agent i when m rows are cut
// into n contiguous blocks: with m = q n + r, lo = i q + min(i, r) and
// hi = lo + q + (1 if i < r), so the first r agents get one more row.
// Outside 1 <= n, 0 <= i < n and m >= 0 it returns the empty block 0, 0.
func ContiguousBlock(m, n, i int) (lo, hi int) {
	if n < 1 || i < 0 || i >= n || m < 0 {
		return 0, 0
	}
	q, r := m/n, m%n
	lo = i*q + min(i, r)
	hi = lo + q
	if i < r {
		hi++
	}
	return lo, hi
}

// Permutation returns a uniformly random permutation of 0 .. m-1 that is a
// pure function of (m, seed): the Fisher-Yates shuffle that, for k = m-1
// down to 1, swaps position k with position j = floor(h_k (k+1) / 2^64),
// where h_k = graph.Hash(seed, 0, s, k, 0) with s the stream
// graph.NamedStream("dataset/shard").
func Permutation(m int, seed uint64) []int {
	p := make([]int, max(m, 0))
	for k := range p {
		p[k] = k
	}
	for k := len(p) - 1; k > 0; k-- {
		j, _ := bits.Mul64(streamShard.Hash(seed, 0, uint64(k), 0), uint64(k+1))
		p[k], p[j] = p[j], p[k]
	}
	return p
}

// groupRows implements the column sharding of Assign.
func groupRows(d *Dataset, n int, column string) ([][]int, error) {
	key, err := columnValues(d, column)
	if err != nil {
		return nil, err
	}
	type group struct {
		value float64
		rows  []int
	}
	byValue := map[float64]int{}
	var groups []group
	for k, v := range key {
		v += 0 // -0 joins +0
		g, ok := byValue[v]
		if !ok {
			g = len(groups)
			byValue[v] = g
			groups = append(groups, group{value: v})
		}
		groups[g].rows = append(groups[g].rows, k)
	}
	if len(groups) < n {
		return nil, fmt.Errorf("dataset %s: column %q has %d distinct values, fewer than the N = %d agents (each group goes whole to one agent)", d.name(), column, len(groups), n)
	}
	slices.SortFunc(groups, func(a, b group) int {
		if c := cmp.Compare(len(b.rows), len(a.rows)); c != 0 {
			return c
		}
		return cmp.Compare(a.value, b.value)
	})
	out := make([][]int, n)
	for _, g := range groups {
		best := 0
		for i := 1; i < n; i++ {
			if len(out[i]) < len(out[best]) {
				best = i
			}
		}
		out[best] = append(out[best], g.rows...)
	}
	for _, r := range out {
		slices.Sort(r)
	}
	return out, nil
}

// columnValues returns the per-row values of the named column (see
// Sharding.Column).
func columnValues(d *Dataset, column string) ([]float64, error) {
	j, err := d.Column(column)
	if err == nil {
		v := make([]float64, d.Rows())
		for k := range v {
			v[k] = d.X[k*d.Dim+j]
		}
		return v, nil
	}
	switch {
	case column == "label" || (d.LabelName != "" && column == d.LabelName):
		return d.Y, nil
	case column == "qid" && d.QID != nil:
		v := make([]float64, len(d.QID))
		for k, q := range d.QID {
			v[k] = float64(q)
		}
		return v, nil
	}
	return nil, fmt.Errorf("%w (nor is it \"label\" or \"qid\")", err)
}
