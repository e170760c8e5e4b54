// Package scenarios owns the scenario file: its schema, the strict YAML
// loader, the documented defaults, command-line overrides (--set
// key.path=value), validation of ranges, enums and cross-field rules, and
// the scenario files shipped with consim (*.yaml in this directory).
//
// A scenario is read in three steps:
//
//	s, err := scenarios.Load("quickstart.yaml") // syntax, unknown keys, types
//	err = s.Set("graph.p=0.3")                  // zero or more overrides
//	err = s.Validate()                          // ranges, enums, cross-field rules
//
// or in one call with LoadWith. Load and Set only check the shape of the
// input (known keys, value types), so an override may repair a value that
// is out of range in the file; Validate checks everything else. Checks that
// need the built graph (connectivity of the expected graph) belong to the
// caller that builds it.
//
// Every error is an *Error naming the file (or "--set"), the line and
// column, the dotted key and the allowed values; errors.Is(err, ErrInvalid)
// holds for all of them, and errors.As(err, &e) with e an *Error finds the
// first. Parse, Set and Validate each report every problem they find, as an
// ErrorList, rather than stopping at the first; only a YAML syntax error
// stops Parse at once, since nothing after it can be read. Load returns a
// single *Error when the file cannot be read.
//
// scenarios imports no other consim package; cmd/consim imports it.
package scenarios
