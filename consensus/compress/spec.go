package compress

import (
	"fmt"
	"strings"
)

// Operator names of Spec.Operator.
const (
	NameTopK  = "top_k"
	NameRandK = "rand_k"
	NameQSGD  = "qsgd"
	NameNone  = "none"
)

// Names lists the operator names.
var Names = []string{NameTopK, NameRandK, NameQSGD, NameNone}

// Defaults of Spec's operator parameters, used when they are 0.
const (
	DefaultFraction = 0.1
	DefaultBits     = 4
)

// Spec selects an operator in a scenario's algorithm block
// (compression: {operator: top_k, fraction: 0.1}, {operator: qsgd, bits:
// 4}, ...). A parameter left 0 takes its default; one that the operator
// does not use must be left out.
type Spec struct {
	// Operator is one of Names.
	Operator string `yaml:"operator" doc:"compression operator Q: top_k|rand_k|qsgd|none"`
	// Fraction is the share f of entries top_k and rand_k keep: k =
	// Keep(f, n); 0 means DefaultFraction.
	Fraction float64 `yaml:"fraction,omitempty" doc:"top_k, rand_k: share of entries kept, in (0, 1] (0: 0.1); k = max(1, round(f n))"`
	// Bits is b, the level width of qsgd (s = 2^b - 1 levels); 0 means
	// DefaultBits.
	Bits int `yaml:"bits,omitempty" doc:"qsgd: bits per level b in 1..16 (0: 4); s = 2^b-1 levels, plus a sign bit per entry"`
}

// Check calls add once for every key of s (as written inside the block:
// operator, fraction, bits) whose value is not allowed, with a message
// that says what is.
func (s Spec) Check(add func(key, msg string)) {
	switch s.Operator {
	case NameTopK, NameRandK:
		if !(s.Fraction >= 0 && s.Fraction <= 1) {
			add("fraction", fmt.Sprintf("%s needs a fraction in (0, 1], got %v", s.Operator, s.Fraction))
		}
		if s.Bits != 0 {
			add("bits", fmt.Sprintf("only applies to %s: leave it out for %s", NameQSGD, s.Operator))
		}
	case NameQSGD:
		if s.Bits < 0 || s.Bits > MaxBits {
			add("bits", fmt.Sprintf("%s needs bits in 1..%d, got %d", NameQSGD, MaxBits, s.Bits))
		}
		if s.Fraction != 0 {
			add("fraction", fmt.Sprintf("only applies to %s and %s: leave it out for %s", NameTopK, NameRandK, NameQSGD))
		}
	case NameNone:
		if s.Fraction != 0 || s.Bits != 0 {
			add("operator", fmt.Sprintf("%s takes no fraction or bits", NameNone))
		}
	default:
		add("operator", fmt.Sprintf("%q is not one of %s", s.Operator, strings.Join(Names, ", ")))
	}
}

// Validate returns the first problem Check finds, as "key: message", or
// nil.
func (s Spec) Validate() error {
	var err error
	s.Check(func(key, msg string) {
		if err == nil {
			err = fmt.Errorf("%s: %s", key, msg)
		}
	})
	return err
}

// New returns a new operator of s, which must be valid.
func (s Spec) New() (Operator, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("compress: %w", err)
	}
	f, b := s.Fraction, s.Bits
	if f == 0 {
		f = DefaultFraction
	}
	if b == 0 {
		b = DefaultBits
	}
	switch s.Operator {
	case NameTopK:
		return &TopK{Fraction: f}, nil
	case NameRandK:
		return &RandK{Fraction: f}, nil
	case NameQSGD:
		return QSGD{Bits: b}, nil
	}
	return Identity{}, nil
}
