package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// The UCI Adult (census income) files adult.data and adult.test: 14
// attributes and the income class per line, comma-separated; "?" marks a
// missing value; adult.test starts with a "|1x3 Cross validator" line and
// ends its class labels with a period.

// adultColumns are the 15 fields of an Adult line, in file order.
var adultColumns = []string{
	"age", "workclass", "fnlwgt", "education", "education_num", "marital_status",
	"occupation", "relationship", "race", "sex", "capital_gain", "capital_loss",
	"hours_per_week", "native_country", "income",
}

// adultNumeric marks the numeric fields of adultColumns.
var adultNumeric = map[string]bool{
	"age": true, "fnlwgt": true, "education_num": true,
	"capital_gain": true, "capital_loss": true, "hours_per_week": true,
}

// AdultRecord is one line of the Adult files.
type AdultRecord struct {
	// Num holds the numeric fields by name (age, fnlwgt, education_num,
	// capital_gain, capital_loss, hours_per_week).
	Num map[string]float64
	// Cat holds the categorical fields by name (workclass, education,
	// marital_status, occupation, relationship, race, sex,
	// native_country).
	Cat map[string]string
	// HighIncome is the class: income >50K.
	HighIncome bool
}

// AdultReadStats counts what ReadAdult skipped.
type AdultReadStats struct {
	// Missing is the number of records dropped for a "?" field.
	Missing int
}

// LoadAdult reads an Adult file (adult.data or adult.test, gzip or plain).
func LoadAdult(path string) ([]AdultRecord, AdultReadStats, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, AdultReadStats{}, err
	}
	defer f.Close()
	return ReadAdult(f, path)
}

// ReadAdult reads the records of an Adult file, dropping (and counting)
// the records with a missing ("?") field, as is usual for this data set.
// name is used in error messages.
func ReadAdult(r io.Reader, name string) ([]AdultRecord, AdultReadStats, error) {
	var st AdultReadStats
	br, err := textInput(r, name)
	if err != nil {
		return nil, st, err
	}
	lr := &lineReader{br: br}
	var recs []AdultRecord
	for {
		line, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, st, &ParseError{File: name, Line: lr.line, Msg: "read", Err: err}
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '|' {
			continue
		}
		fields := strings.Split(string(line), ",")
		if len(fields) != len(adultColumns) {
			return nil, st, &ParseError{File: name, Line: lr.line, Msg: fmt.Sprintf("%d comma-separated fields, want %d (%s)", len(fields), len(adultColumns), strings.Join(adultColumns, ", "))}
		}
		rec := AdultRecord{Num: make(map[string]float64, len(adultNumeric)), Cat: make(map[string]string, len(adultColumns)-len(adultNumeric)-1)}
		missing := false
		for k, col := range adultColumns {
			v := strings.TrimSpace(fields[k])
			if v == "?" {
				missing = true
				continue
			}
			switch {
			case col == "income":
				switch strings.TrimSuffix(v, ".") {
				case ">50K":
					rec.HighIncome = true
				case "<=50K":
				default:
					return nil, st, &ParseError{File: name, Line: lr.line, Msg: fmt.Sprintf("income %q, want >50K or <=50K (a trailing period allowed)", v)}
				}
			case adultNumeric[col]:
				x, err := strconv.ParseFloat(v, 64)
				if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, st, &ParseError{File: name, Line: lr.line, Msg: fmt.Sprintf("%s %q, want a finite number", col, v)}
				}
				rec.Num[col] = x
			default:
				if v == "" {
					return nil, st, &ParseError{File: name, Line: lr.line, Msg: fmt.Sprintf("%s is empty, want a category or ?", col)}
				}
				rec.Cat[col] = v
			}
		}
		if missing {
			st.Missing++
			continue
		}
		recs = append(recs, rec)
	}
	if len(recs) == 0 {
		return nil, st, &ParseError{File: name, Msg: "no complete Adult records"}
	}
	return recs, st, nil
}

// AdultEncoding turns Adult records into features for a linear
// classifier, as in Zafar et al. (2017): the numeric fields standardized
// with the training set's mean and standard deviation, each categorical
// field one-hot over the categories seen in training (a category not seen
// in training encodes as all zeros), and a constant 1 last. The sensitive
// attribute and the fields in Drop are not features.
type AdultEncoding struct {
	// Names are the feature names, the constant "bias" last.
	Names []string
	// Sensitive is the sensitive field ("sex").
	Sensitive string
	// Protected is the value of Sensitive encoded as z = 0 ("Female");
	// every other value is z = 1.
	Protected string
	mean, std map[string]float64
	cats      map[string][]string
	numeric   []string
	nominal   []string
}

// NewAdultEncoding fits the encoding on the training records: sex is the
// sensitive attribute (z = 1 for Male), and race and fnlwgt are dropped
// along with it, as in Zafar et al.
func NewAdultEncoding(train []AdultRecord) (*AdultEncoding, error) {
	if len(train) < 2 {
		return nil, fmt.Errorf("adult encoding: %d training records, want at least 2", len(train))
	}
	e := &AdultEncoding{Sensitive: "sex", Protected: "Female", mean: map[string]float64{}, std: map[string]float64{}, cats: map[string][]string{}}
	drop := map[string]bool{"sex": true, "race": true, "fnlwgt": true, "income": true}
	for _, col := range adultColumns {
		if drop[col] {
			continue
		}
		if adultNumeric[col] {
			e.numeric = append(e.numeric, col)
			var s, s2 float64
			for _, r := range train {
				s += r.Num[col]
			}
			m := s / float64(len(train))
			for _, r := range train {
				d := r.Num[col] - m
				s2 += d * d
			}
			sd := math.Sqrt(s2 / float64(len(train)))
			if sd == 0 {
				sd = 1
			}
			e.mean[col], e.std[col] = m, sd
			continue
		}
		e.nominal = append(e.nominal, col)
		seen := map[string]bool{}
		for _, r := range train {
			seen[r.Cat[col]] = true
		}
		vals := make([]string, 0, len(seen))
		for v := range seen {
			vals = append(vals, v)
		}
		slices.Sort(vals)
		e.cats[col] = vals
	}
	// Names in the order of Encode: numeric fields, one-hot fields, bias.
	e.Names = append(e.Names, e.numeric...)
	for _, col := range e.nominal {
		for _, v := range e.cats[col] {
			e.Names = append(e.Names, col+"="+v)
		}
	}
	e.Names = append(e.Names, "bias")
	return e, nil
}

// Dim is the number of features, the constant included.
func (e *AdultEncoding) Dim() int { return len(e.Names) }

// Encode returns the features (row-major, len(recs) x Dim), the labels
// y in {-1, +1} (+1 for >50K) and the sensitive attribute z in {0, 1}.
func (e *AdultEncoding) Encode(recs []AdultRecord) (x, y, z []float64) {
	d := e.Dim()
	x = make([]float64, len(recs)*d)
	y = make([]float64, len(recs))
	z = make([]float64, len(recs))
	for k, r := range recs {
		row := x[k*d : (k+1)*d]
		j := 0
		for _, col := range e.numeric {
			row[j] = (r.Num[col] - e.mean[col]) / e.std[col]
			j++
		}
		for _, col := range e.nominal {
			vals := e.cats[col]
			if i, ok := slices.BinarySearch(vals, r.Cat[col]); ok {
				row[j+i] = 1
			}
			j += len(vals)
		}
		row[j] = 1
		y[k] = -1
		if r.HighIncome {
			y[k] = 1
		}
		if r.Cat[e.Sensitive] != e.Protected {
			z[k] = 1
		}
	}
	return x, y, z
}
