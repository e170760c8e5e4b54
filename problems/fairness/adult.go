package fairness

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/consim/consim/dataset"
)

// AdultFile returns dir/name.gz if it exists, else dir/name: the UCI
// Adult files are read gzip-compressed or plain.
func AdultFile(dir, name string) string {
	gz := filepath.Join(dir, name+".gz")
	if _, err := os.Stat(gz); err == nil {
		return gz
	}
	return filepath.Join(dir, name)
}

// LoadAdult reads the UCI Adult files of dir, adult.data (training) and
// adult.test, keeps the first rows training records (0: all; records with
// a missing field are dropped first), fits dataset.AdultEncoding on them
// (sex the sensitive attribute, race and fnlwgt dropped, numeric fields
// standardized, categorical fields one-hot, a constant 1 last) and encodes
// both sets with it.
func LoadAdult(dir string, rows int) (train, test *Data, err error) {
	read := func(name string) ([]dataset.AdultRecord, error) {
		recs, _, err := dataset.LoadAdult(AdultFile(dir, name))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return recs, nil
	}
	tr, err := read("adult.data")
	if err != nil {
		return nil, nil, err
	}
	te, err := read("adult.test")
	if err != nil {
		return nil, nil, err
	}
	if rows > 0 && rows < len(tr) {
		tr = tr[:rows]
	}
	enc, err := dataset.NewAdultEncoding(tr)
	if err != nil {
		return nil, nil, err
	}
	x, y, z := enc.Encode(tr)
	train = &Data{X: x, Y: y, Z: z, Dim: enc.Dim()}
	x, y, z = enc.Encode(te)
	test = &Data{X: x, Y: y, Z: z, Dim: enc.Dim()}
	if err := train.Validate(); err != nil {
		return nil, nil, fmt.Errorf("adult.data: %w", err)
	}
	if err := test.Validate(); err != nil {
		return nil, nil, fmt.Errorf("adult.test: %w", err)
	}
	return train, test, nil
}
