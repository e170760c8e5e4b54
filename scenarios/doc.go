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
// # Algorithms and problems
//
// algorithm.name selects a registered algorithm and problem.kind a
// registered problem (`consim list`; package catalog ships them). The
// other keys of either block are the entry's own, decoded strictly into
// its parameter struct: one flat block of keys, the same concept under
// the same key in every algorithm (step, dual_step, penalty, prox_weight,
// smoothing, schedule, mixing, batch, preset; docs/parameters.md). A key
// the chosen entry does not have is an error naming the key and the
// entry, and a key it had before its keys were renamed (algorithm.params.eta,
// dgd's alpha) is an error naming the new key. Validate checks, before
// anything is built, that the problem offers what the algorithm needs.
//
// For a portfolio, the periods x assets reward matrix is drawn from the
// run seed and split into contiguous blocks of periods, one per agent
// (portfolio.Split). Agent i minimizes P_i = F_i + (mu/2)||x||^2 of
// its block, and the coordinator measures f = (1/N) sum_i P_i, the
// sharded objective, whose optimum Setup.Problem solves exactly; with one
// agent it is the portfolio problem of the whole matrix.
//
// # Dropouts and the ADMM duals
//
// An ADMM agent skips every edge that is absent from the round's draw or
// whose message missed the phase deadline: it adds nothing to the dual
// a_i and does not enter the primal step. When both endpoints miss the
// same edge, its two dual increments c (x_i - x_j) and c (x_j - x_i) are
// both skipped, so sum_i a_i stays 0 and a consensual fixed point is still
// optimal; the duals simply accumulate over fewer rounds. When only one
// endpoint hears the other (asymmetric loss), one increment is left over,
// sum_i a_i drifts from 0, and the run converges, if at all, to a biased
// point. The ALM's duals follow the rules of consensus/alm.
//
// scenarios imports graph, node (the runtime's fault options) and the
// consensus packages it builds agents and problems from; it must not import
// coordinator or cmd. cmd/consim imports it.
package scenarios
