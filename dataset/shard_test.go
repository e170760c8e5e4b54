package dataset

import (
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/consim/consim/graph"
)

// seqDataset returns m rows of dim features where row k is
// (k, k mod 3, k mod 4, ...) and the label is k mod 2.
func seqDataset(m, dim int) *Dataset {
	d := &Dataset{X: make([]float64, m*dim), Y: make([]float64, m), Dim: dim, Source: "seq"}
	for k := range m {
		d.X[k*dim] = float64(k)
		for j := 1; j < dim; j++ {
			d.X[k*dim+j] = float64(k % (j + 2))
		}
		d.Y[k] = float64(k % 2)
	}
	return d
}

// checkPartition fails unless rows is a partition of 0 .. m-1 into n
// nonempty ascending shards.
func checkPartition(t *testing.T, rows [][]int, m, n int) {
	t.Helper()
	if len(rows) != n {
		t.Fatalf("%d shards, want %d", len(rows), n)
	}
	seen := make([]bool, m)
	for i, r := range rows {
		if len(r) == 0 {
			t.Errorf("agent %d has no rows", i)
		}
		if !slices.IsSorted(r) {
			t.Errorf("agent %d rows not ascending: %v", i, r)
		}
		for _, k := range r {
			if k < 0 || k >= m || seen[k] {
				t.Fatalf("row %d out of range or in two shards", k)
			}
			seen[k] = true
		}
	}
	for k, s := range seen {
		if !s {
			t.Fatalf("row %d in no shard", k)
		}
	}
}

func TestContiguous(t *testing.T) {
	tests := []struct {
		m, n  int
		sizes []int
	}{
		{10, 3, []int{4, 3, 3}},
		{10, 4, []int{3, 3, 2, 2}},
		{8, 8, []int{1, 1, 1, 1, 1, 1, 1, 1}},
		{7, 1, []int{7}},
		{32561, 8, []int{4071, 4070, 4070, 4070, 4070, 4070, 4070, 4070}},
	}
	for _, tc := range tests {
		d := seqDataset(tc.m, 1)
		rows, err := Sharding{Method: ShardContiguous}.Assign(d, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		checkPartition(t, rows, tc.m, tc.n)
		next := 0
		for i, r := range rows {
			if len(r) != tc.sizes[i] || r[0] != next {
				t.Errorf("m=%d n=%d: agent %d rows %d..+%d, want %d..+%d", tc.m, tc.n, i, r[0], len(r), next, tc.sizes[i])
			}
			next += len(r)
		}
	}
}

func TestShardErrors(t *testing.T) {
	d := seqDataset(5, 2)
	d.Names = []string{"a", "b"}
	tests := []struct {
		s    Sharding
		n    int
		want string
	}{
		{Sharding{Method: ShardContiguous}, 6, "dataset seq: 6 agents for 5 rows, want 1 <= N <= rows"},
		{Sharding{Method: ShardRandom}, 0, "dataset seq: 0 agents for 5 rows"},
		{Sharding{Method: "blocks"}, 2, `sharding method "blocks" unknown`},
		{Sharding{Method: ShardColumn, Column: "c"}, 2, `dataset seq: no feature named "c"; features: "a", "b" (nor is it "label" or "qid")`},
		{Sharding{Method: ShardColumn, Column: "label"}, 3, `dataset seq: column "label" has 2 distinct values, fewer than the N = 3 agents`},
	}
	for _, tc := range tests {
		_, err := tc.s.Assign(d, tc.n)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v over %d: error %v, want %q", tc.s, tc.n, err, tc.want)
		}
	}
	for _, s := range []string{"", "columns:x", "column:", "Random"} {
		if _, err := ParseSharding(s, 1); err == nil {
			t.Errorf("ParseSharding(%q): no error", s)
		}
	}
}

func TestParseSharding(t *testing.T) {
	for _, s := range []string{"contiguous", "random", "column:sex", "column:a:b"} {
		sh, err := ParseSharding(s, 42)
		if err != nil {
			t.Fatal(err)
		}
		if sh.String() != s {
			t.Errorf("ParseSharding(%q).String() = %q", s, sh.String())
		}
		if sh.Method == ShardRandom && sh.Seed != 42 {
			t.Errorf("seed %d, want 42", sh.Seed)
		}
	}
}

// TestPermutationGolden pins the bits of the random sharding: a change
// here re-deals every random shard of every recorded run.
func TestPermutationGolden(t *testing.T) {
	want := []int{5, 2, 3, 6, 9, 7, 1, 4, 0, 8}
	if got := Permutation(10, 1); !reflect.DeepEqual(got, want) {
		t.Errorf("Permutation(10, 1) = %v, want %v", got, want)
	}
}

// TestPermutationFormula recomputes the documented shuffle with big
// integers: j = floor(h_k (k+1) / 2^64), h_k = graph.Hash(seed, 0,
// NamedStream("dataset/shard"), k, 0).
func TestPermutationFormula(t *testing.T) {
	for _, seed := range []uint64{0, 1, 77, math.MaxUint64} {
		const m = 50
		p := make([]int, m)
		for k := range p {
			p[k] = k
		}
		for k := m - 1; k > 0; k-- {
			var prod big.Int
			prod.Mul(new(big.Int).SetUint64(graph.Hash(seed, 0, uint64(graph.NamedStream("dataset/shard")), uint64(k), 0)), big.NewInt(int64(k+1)))
			j := int(prod.Rsh(&prod, 64).Int64())
			p[k], p[j] = p[j], p[k]
		}
		if got := Permutation(m, seed); !reflect.DeepEqual(got, p) {
			t.Errorf("seed %d: Permutation = %v, formula gives %v", seed, got, p)
		}
	}
}

// TestPermutationUniform checks that Permutation is a permutation, that
// the seed changes it, and that where element 0 lands is uniform over the
// m positions (chi-square over 5000 seeds).
func TestPermutationUniform(t *testing.T) {
	const m, seeds = 6, 6000
	counts := make([]int, m)
	for s := range uint64(seeds) {
		p := Permutation(m, s)
		q := slices.Clone(p)
		slices.Sort(q)
		for k := range q {
			if q[k] != k {
				t.Fatalf("seed %d: %v is not a permutation", s, p)
			}
		}
		counts[slices.Index(p, 0)]++
	}
	var chi2 float64
	e := float64(seeds) / m
	for _, c := range counts {
		chi2 += (float64(c) - e) * (float64(c) - e) / e
	}
	// 5 degrees of freedom: P(chi2 > 25) < 2e-4.
	if chi2 > 25 {
		t.Errorf("position of element 0: counts %v, chi2 = %.1f > 25", counts, chi2)
	}
	if reflect.DeepEqual(Permutation(100, 1), Permutation(100, 2)) {
		t.Error("seeds 1 and 2 give the same permutation")
	}
}

func TestRandomShards(t *testing.T) {
	d := seqDataset(103, 3)
	s := Sharding{Method: ShardRandom, Seed: 9}
	rows, err := s.Assign(d, 7)
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, rows, 103, 7)
	perm := Permutation(103, 9)
	for i, r := range rows {
		lo, hi := ContiguousBlock(103, 7, i)
		want := slices.Clone(perm[lo:hi])
		slices.Sort(want)
		if !reflect.DeepEqual(r, want) {
			t.Errorf("agent %d: rows %v, want block %d..%d of the permutation %v", i, r, lo, hi, want)
		}
	}
	again, _ := s.Assign(d, 7)
	if !reflect.DeepEqual(rows, again) {
		t.Error("random sharding is not deterministic")
	}
}

func TestColumnShards(t *testing.T) {
	// Column "g" takes the values 5 (x4), 1 (x3), 2 (x3), 7 (x1), -0 and 0
	// (x2, one group).
	g := []float64{5, 1, 5, 2, 1, 5, 2, 7, 5, math.Copysign(0, -1), 2, 1, 0}
	m := len(g)
	d := &Dataset{X: make([]float64, 2*m), Y: make([]float64, m), Dim: 2, Names: []string{"f", "g"}, LabelName: "y", Source: "grp"}
	for k, v := range g {
		d.X[2*k] = float64(k)
		d.X[2*k+1] = v
		d.Y[k] = float64(k % 3)
	}
	s := Sharding{Method: ShardColumn, Column: "g"}
	rows, err := s.Assign(d, 3)
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, rows, m, 3)
	// Largest first to the least loaded agent: 5 (4 rows) -> 0, 1 (3) -> 1,
	// 2 (3) -> 2, 0 (2) -> 1 (3 < 4, lower id than 2), 7 (1) -> 2.
	wantVals := [][]float64{{5}, {0, 1}, {2, 7}}
	for i, r := range rows {
		var vals []float64
		for _, k := range r {
			if v := g[k] + 0; !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		slices.Sort(vals)
		if !reflect.DeepEqual(vals, wantVals[i]) {
			t.Errorf("agent %d holds values %v, want %v", i, vals, wantVals[i])
		}
	}
	// Every group lies whole in one shard.
	owner := map[float64]int{}
	for i, r := range rows {
		for _, k := range r {
			if o, ok := owner[g[k]]; ok && o != i {
				t.Errorf("value %g in shards %d and %d", g[k], o, i)
			}
			owner[g[k]] = i
		}
	}
	// By the label, by its own name, and by the feature index of nameless
	// data.
	for _, col := range []string{"label", "y"} {
		r, err := Sharding{Method: ShardColumn, Column: col}.Assign(d, 3)
		if err != nil {
			t.Fatal(err)
		}
		checkPartition(t, r, m, 3)
		for i, rr := range r {
			for _, k := range rr {
				if d.Y[k] != d.Y[rr[0]] {
					t.Errorf("column %s: agent %d mixes labels", col, i)
				}
			}
		}
	}
	nameless := *d
	nameless.Names = nil
	r2, err := Sharding{Method: ShardColumn, Column: "2"}.Assign(&nameless, 3)
	if err != nil || !reflect.DeepEqual(r2, rows) {
		t.Errorf("column 2 of nameless data: %v, %v; want %v", r2, err, rows)
	}
}

func TestQIDShards(t *testing.T) {
	d := seqDataset(6, 1)
	d.QID = []int64{4, 4, 9, 9, 9, 1}
	rows, err := Sharding{Method: ShardColumn, Column: "qid"}.Assign(d, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{2, 3, 4}, {0, 1, 5}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("qid shards %v, want %v", rows, want)
	}
}

// TestSplitAndShard checks that Split copies the assigned rows and that
// Shard(i) equals Split()[i] for every method.
func TestSplitAndShard(t *testing.T) {
	d := randomDataset(rand.New(rand.NewPCG(11, 12)), 57, 4, true)
	d.Names = []string{"a", "b", "c", "d"}
	for k := range d.Rows() {
		d.X[k*4+1] = float64(k % 9)
	}
	for _, s := range []Sharding{{Method: ShardContiguous}, {Method: ShardRandom, Seed: 3}, {Method: ShardColumn, Column: "b"}} {
		rows, err := s.Assign(d, 5)
		if err != nil {
			t.Fatal(err)
		}
		shards, err := s.Split(d, 5)
		if err != nil {
			t.Fatal(err)
		}
		for i, sh := range shards {
			if err := sh.Validate(); err != nil {
				t.Fatal(err)
			}
			for p, k := range rows[i] {
				if !sameBits(sh.Row(p), d.Row(k)) || !sameBits(sh.Y[p:p+1], d.Y[k:k+1]) || sh.QID[p] != d.QID[k] {
					t.Fatalf("%v agent %d row %d differs from data row %d", s, i, p, k)
				}
			}
			one, err := s.Shard(d, 5, i)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(one, sh) {
				t.Errorf("%v: Shard(%d) differs from Split()[%d]", s, i, i)
			}
		}
		if _, err := s.Shard(d, 5, 5); err == nil {
			t.Errorf("%v: Shard(5) of 5: no error", s)
		}
	}
}

func TestDatasetHelpers(t *testing.T) {
	d := seqDataset(4, 3)
	d.Names = []string{"a", "b", "a"}
	if _, err := d.Column("a"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("Column(a): %v, want ambiguous", err)
	}
	if j, err := d.Column("b"); err != nil || j != 1 {
		t.Errorf("Column(b) = %d, %v", j, err)
	}
	e, err := d.DropColumn(1)
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim != 2 || !reflect.DeepEqual(e.Names, []string{"a", "a"}) {
		t.Fatalf("DropColumn: Dim %d, Names %v", e.Dim, e.Names)
	}
	for k := range 4 {
		if r, s := e.Row(k), d.Row(k); r[0] != s[0] || r[1] != s[2] {
			t.Errorf("DropColumn row %d = %v from %v", k, r, s)
		}
	}
	if _, err := d.Subset([]int{0, 4}); err == nil {
		t.Error("Subset with row 4 of 4: no error")
	}
	bad := []Dataset{
		{X: []float64{1}, Y: []float64{1}, Dim: 0},
		{X: nil, Y: nil, Dim: 1},
		{X: []float64{1, 2, 3}, Y: []float64{1}, Dim: 2},
		{X: []float64{1}, Y: []float64{math.NaN()}, Dim: 1},
		{X: []float64{math.Inf(1)}, Y: []float64{1}, Dim: 1},
		{X: []float64{1}, Y: []float64{1}, Dim: 1, Names: []string{"a", "b"}},
		{X: []float64{1}, Y: []float64{1}, Dim: 1, QID: []int64{1, 2}},
	}
	for k, b := range bad {
		if err := b.Validate(); err == nil {
			t.Errorf("Validate(%+v): no error", b)
		}
		if WriteLIBSVM(io.Discard, &b) == nil || WriteCSV(io.Discard, &b, CSVWriteOptions{}) == nil {
			t.Errorf("writing %+v: no error", b)
		}
		if k == 3 || k == 4 {
			continue // well-shaped, only the values are bad
		}
		if _, err := (Sharding{Method: ShardContiguous}).Assign(&b, 1); err == nil {
			t.Errorf("Assign(%+v): no error", b)
		}
		if _, err := b.Subset([]int{0}); err == nil {
			t.Errorf("Subset(%+v): no error", b)
		}
		if _, err := b.DropColumn(0); err == nil {
			t.Errorf("DropColumn(%+v): no error", b)
		}
	}
	if lo, hi := ContiguousBlock(5, 0, 0); lo != 0 || hi != 0 {
		t.Errorf("ContiguousBlock(5, 0, 0) = %d, %d, want the empty block", lo, hi)
	}
	if p := Permutation(-1, 0); len(p) != 0 {
		t.Errorf("Permutation(-1) = %v", p)
	}
}
