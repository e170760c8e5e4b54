package dataset

import (
	"errors"
	"strings"
	"testing"
)

const adultSample = `39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K
50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Female, 0, 0, 13, United-States, >50K
38, Private, 215646, HS-grad, 9, Divorced, ?, Not-in-family, White, Male, 0, 0, 40, United-States, <=50K
`

// TestReadAdult reads a training-style and a test-style text and encodes
// them, checking the dropped record, the labels, z and the one-hot and
// standardized features.
func TestReadAdult(t *testing.T) {
	recs, st, err := ReadAdult(strings.NewReader(adultSample), "adult.data")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || st.Missing != 1 {
		t.Fatalf("%d records, %d missing; want 2 and 1", len(recs), st.Missing)
	}
	if recs[0].HighIncome || !recs[1].HighIncome {
		t.Errorf("labels %v %v, want false true", recs[0].HighIncome, recs[1].HighIncome)
	}
	test := "|1x3 Cross validator\n" + strings.ReplaceAll(strings.ReplaceAll(adultSample, "50K\n", "50K.\n"), "State-gov", "Never-seen")
	trecs, _, err := ReadAdult(strings.NewReader(test), "adult.test")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := NewAdultEncoding(recs)
	if err != nil {
		t.Fatal(err)
	}
	x, y, z := enc.Encode(recs)
	if y[0] != -1 || y[1] != 1 || z[0] != 1 || z[1] != 0 {
		t.Errorf("y %v z %v, want [-1 1] [1 0]", y, z)
	}
	d := enc.Dim()
	if enc.Names[d-1] != "bias" || x[d-1] != 1 {
		t.Errorf("last feature %s = %g, want bias = 1", enc.Names[d-1], x[d-1])
	}
	for _, n := range enc.Names {
		if strings.HasPrefix(n, "sex") || strings.HasPrefix(n, "race") || n == "fnlwgt" {
			t.Errorf("feature %s: sex, race and fnlwgt are not features", n)
		}
	}
	// age standardized: 39 and 50 -> -1 and +1.
	if x[0] != -1 || x[d] != 1 {
		t.Errorf("standardized ages %g %g, want -1 1", x[0], x[d])
	}
	tx, _, _ := enc.Encode(trecs)
	for j, n := range enc.Names {
		if strings.HasPrefix(n, "workclass=") && tx[j] != 0 {
			t.Errorf("unseen workclass encodes %s = %g, want all zeros", n, tx[j])
		}
	}
}

// TestReadAdultErrors checks that malformed lines are named.
func TestReadAdultErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"39, State-gov, 77516\n", "adult.data:1: 3 comma-separated fields, want 15"},
		{strings.Replace(adultSample, "<=50K", "maybe", 1), "adult.data:1: income \"maybe\""},
		{strings.Replace(adultSample, "39,", "old,", 1), "adult.data:1: age \"old\""},
		{"", "no complete Adult records"},
	} {
		_, _, err := ReadAdult(strings.NewReader(tc.text), "adult.data")
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want a ParseError containing %q", err, tc.want)
		}
	}
}
