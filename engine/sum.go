package engine

import "fmt"

// Sum accumulates a reduce, sum_j r_j over the members j of a group, in
// the order the terms are given, which every driver makes ascending in j:
// the first term present is copied and each later one added component by
// component, so the bits of the sum depend only on the terms and their
// order. A missing term contributes zero and is counted. The zero Sum is
// empty; its buffer is reused after Reset.
type Sum struct {
	v       []float64
	terms   int
	missing int
}

// Reset empties s, keeping its buffer.
func (s *Sum) Reset() { s.v, s.terms, s.missing = s.v[:0], 0, 0 }

// Add adds the next term r. A term whose length differs from the first
// one's is not added; the error says "reduces <len(r)> values, an earlier
// agent of its group reduced <n>", for the caller to prefix with the
// agent.
func (s *Sum) Add(r []float64) error {
	if s.terms == 0 {
		s.v = append(s.v[:0], r...)
		s.terms = 1
		return nil
	}
	if len(r) != len(s.v) {
		return fmt.Errorf("reduces %d values, an earlier agent of its group reduced %d", len(r), len(s.v))
	}
	for k, x := range r {
		s.v[k] += x
	}
	s.terms++
	return nil
}

// Miss counts a missing term.
func (s *Sum) Miss() { s.missing++ }

// Terms is the number of terms added.
func (s *Sum) Terms() int { return s.terms }

// Missing is the number of terms counted missing.
func (s *Sum) Missing() int { return s.missing }

// Value is the sum, nil before the first term. It is s's buffer: it
// changes with the next Add or Reset.
func (s *Sum) Value() []float64 {
	if s.terms == 0 {
		return nil
	}
	return s.v
}
