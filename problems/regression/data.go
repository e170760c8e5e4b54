package regression

import (
	"fmt"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/dataset"
	"github.com/consim/consim/objective"
)

// DataSource is the data block of a regression problem read from a file
// instead of generated: the file, how to read it, how to split its rows
// over the agents and how to weigh them.
type DataSource struct {
	// Path is the data file (gzip or not), relative to the scenario file.
	Path registry.Path `yaml:"path"`
	// Format is libsvm or csv; empty guesses from the file name (.csv and
	// .tsv are CSV, anything else LIBSVM).
	Format string `yaml:"format,omitempty"`
	// Header says that the first CSV record names the columns.
	Header bool `yaml:"header,omitempty"`
	// Label is the CSV label column: a 0-based index (-1 the last) or a
	// header name; empty is the first column.
	Label string `yaml:"label,omitempty"`
	// Delimiter is the CSV delimiter, one character or "tab"; empty is
	// ",".
	Delimiter string `yaml:"delimiter,omitempty"`
	// Shard splits the rows over the agents: contiguous (blocks in file
	// order; the default, empty), random (a permutation drawn from the
	// run seed) or column:NAME (the rows of one value of column NAME go to
	// one agent).
	Shard string `yaml:"shard,omitempty"`
	// Weighting is rows (the default, empty: f is the mean loss over all
	// rows, whatever the sharding) or agents (f_i is the mean over agent
	// i's rows).
	Weighting string `yaml:"weighting,omitempty"`
}

// spec is the dataset.FileSpec of the block; dim is problem.dim, the
// LIBSVM feature count (0: the highest index in the file). A CSV file's
// width is its own, checked against dim after loading.
func (d *DataSource) spec(dim int) dataset.FileSpec {
	fs := dataset.FileSpec{Format: d.Format, Path: string(d.Path), Header: d.Header, Label: d.Label, Delimiter: d.Delimiter}
	if fs.Resolved() == dataset.FormatLIBSVM {
		fs.Dim = dim
	}
	return fs
}

// sharding is the text form of the sharding, contiguous by default.
func (d *DataSource) sharding() string {
	if d.Shard == "" {
		return dataset.ShardContiguous
	}
	return d.Shard
}

// validate checks the block's values that need no file.
func (d *DataSource) validate(errs *registry.FieldErrors) {
	if d.Path == "" {
		errs.Add("data.path", "required: the data file")
	}
	if d.Format != "" {
		errs.OneOf("data.format", d.Format, dataset.FormatLIBSVM, dataset.FormatCSV)
	}
	if _, err := dataset.ParseSharding(d.sharding(), 0); err != nil {
		errs.Add("data.shard", "%q is not one of contiguous, random, column:NAME", d.Shard)
	}
	if d.Weighting != "" {
		errs.OneOf("data.weighting", d.Weighting, objective.WeightRows, objective.WeightAgents)
	}
}

// fromData is a regression instance whose rows come from a file.
type fromData struct {
	kind   string
	opt    objective.GivenOptions
	shards []*dataset.Dataset
	prob   []objective.Shard
	locals []objective.Local
	total  int
}

func buildFromData(r *Params, env registry.ProblemEnv) (*fromData, error) {
	d := r.Data
	ds, err := d.spec(r.Dim).Load()
	if err != nil {
		return nil, registry.FieldErrors{{Key: "data.path", Msg: err.Error()}}
	}
	if r.Kind == objective.KindLogistic {
		if err := ds.SignLabels(); err != nil {
			return nil, registry.FieldErrors{{Key: "data.path", Msg: fmt.Sprintf("logistic needs labels in {-1, +1} or {0, 1}: %v", err)}}
		}
	}
	if r.Dim != 0 && r.Dim != ds.Dim {
		return nil, registry.FieldErrors{{Key: "dim", Msg: fmt.Sprintf("%d differs from the %d features of %s (leave dim out to take the file's)", r.Dim, ds.Dim, d.Path)}}
	}
	sh, err := dataset.ParseSharding(d.sharding(), env.Seed)
	if err != nil {
		return nil, registry.FieldErrors{{Key: "data.shard", Msg: err.Error()}}
	}
	shards, err := sh.Split(ds, env.N)
	if err != nil {
		return nil, registry.FieldErrors{{Key: "data.shard", Msg: err.Error()}}
	}
	box := r.box()
	g := &fromData{
		kind:   r.Kind,
		shards: shards,
		opt: objective.GivenOptions{
			Name: string(d.Path), Reg: r.Reg, Batch: r.Batch, Lo: box.Lo, Hi: box.Hi,
			Scale: r.scale(), Seed: env.Seed, Weighting: d.Weighting,
		},
	}
	for i, s := range shards {
		if s.Rows() < r.Batch {
			return nil, registry.FieldErrors{{Key: "batch", Msg: fmt.Sprintf("%d exceeds the %d rows of agent %d's shard", r.Batch, s.Rows(), i)}}
		}
		g.prob = append(g.prob, objective.Shard{A: s.X, B: s.Y, Dim: s.Dim})
		g.total += s.Rows()
	}
	for i, s := range g.prob {
		l, err := objective.LocalFromShard(r.Kind, s, env.N, g.total, g.opt)
		if err != nil {
			return nil, fmt.Errorf("agent %d: %w", i, err)
		}
		g.locals = append(g.locals, l)
	}
	return g, nil
}

func (g *fromData) Dim() int                    { return g.prob[0].Dim }
func (g *fromData) Local(i int) objective.Local { return g.locals[i] }
func (g *fromData) Box() objective.Box          { return objective.BoxOf(g.opt.Lo, g.opt.Hi) }

// Central is FromShards over the agents' shards: f and its optimum.
func (g *fromData) Central() (*objective.Problem, error) {
	return objective.FromShards(g.kind, g.prob, g.opt)
}

// DataShard is agent i's generated rows.
func (g *generated) DataShard(i int) (*dataset.Dataset, error) {
	a, b, n, ok := objective.Samples(g.locals[i])
	if !ok {
		return nil, fmt.Errorf("agent %d's objective holds no rows", i)
	}
	return &dataset.Dataset{X: a, Y: b, Dim: n, Source: fmt.Sprintf("%s agent %d", g.p.Kind, i)}, nil
}
