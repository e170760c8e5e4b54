package catalog_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/consim/consim/catalog"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/consensus/registry/registrytest"
	"github.com/consim/consim/scenarios"
)

// problemExamples set the required keys of the problem blocks that have
// some, so that the idiom test starts from a valid block.
var problemExamples = map[string]string{
	"least_squares":        "{kind: least_squares, dim: 2}",
	"logistic":             "{kind: logistic, dim: 2, reg: 0.1}",
	"nonconvex_regression": "{kind: nonconvex_regression, dim: 2}",
	"portfolio":            "{kind: portfolio, assets: 4, periods: 30, cov: 2, mu: 0.05}",
}

// problemBlock returns a valid block of problem kind: its defaults, or
// those of problemExamples decoded from a scenario.
func problemBlock(t *testing.T, reg *registry.Registry, kind string) registry.Params {
	t.Helper()
	src, ok := problemExamples[kind]
	if !ok {
		p, _ := reg.Problem(kind)
		return p.New()
	}
	s, err := scenarios.ParseWith(reg, []byte("problem: "+src+"\n"), kind+".yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s.Problem.Params
}

// problemsAwaitingMove are the problem blocks that still share package
// problems (or an algorithm's package) with other blocks under names of
// their own; they take the name Params when each family moves to a
// package of its own under problems/. Their structure is checked like
// every other block's.
var problemsAwaitingMove = map[string]bool{
	"least_squares": true, "logistic": true, "nonconvex_regression": true, "portfolio": true,
}

// TestOneParameterIdiom: every shipped algorithm's and problem's block
// follows the registry's one idiom (registrytest.CheckParams: flat keys,
// no params: or settings: sub-block, every key documented, Validate
// returning a registry.FieldErrors that names each key given a bad value)
// and is a type named Params (or <Name>Params beside another block of its
// package).
func TestOneParameterIdiom(t *testing.T) {
	reg := catalog.Default()
	for _, name := range reg.Algorithms() {
		a, _ := reg.Algorithm(name)
		if err := registrytest.CheckParams(a.New()); err != nil {
			t.Errorf("algorithm %s (%T):\n%v", name, a.New(), err)
		}
		if err := registrytest.CheckName(a.New()); err != nil {
			t.Errorf("algorithm %s: %v", name, err)
		}
	}
	for _, kind := range reg.Problems() {
		p := problemBlock(t, reg, kind)
		if err := registrytest.CheckParams(p); err != nil {
			t.Errorf("problem %s (%T):\n%v", kind, p, err)
		}
		if err := registrytest.CheckName(p); err != nil && !problemsAwaitingMove[kind] {
			t.Errorf("problem %s: %v", kind, err)
		}
	}
}

// TestEveryKeyErrorsAtItsLine: for every key of every shipped algorithm
// that can hold a bad value, a scenario setting it on a line of its own
// gets an error at that line, keyed by the key (the scenarios loader maps
// the keys of every block to their lines).
func TestEveryKeyErrorsAtItsLine(t *testing.T) {
	reg := catalog.Default()
	const head = "agents: 4\ngraph: {topology: ring}\nproblem: {kind: least_squares, dim: 2}\nrounds: 10\nalgorithm:\n"
	const line = 7 // head's 5 lines, then name
	for _, name := range reg.Algorithms() {
		a, _ := reg.Algorithm(name)
		for _, key := range registrytest.Keys(a.New()) {
			bad, ok := badYAML(a.New(), key)
			if !ok {
				continue
			}
			src := head + "  name: " + name + "\n" + nested(key, bad)
			s, err := scenarios.Parse([]byte(src), "x.yaml")
			if err != nil {
				t.Errorf("%s.%s: %v", name, key, err)
				continue
			}
			err = s.Validate()
			want := fmt.Sprintf("x.yaml:%d:", line+strings.Count(key, "."))
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "algorithm."+key+":") {
				t.Errorf("%s with %s = %s: error %v, want one at %s keyed algorithm.%s", name, key, bad, err, want, key)
			}
		}
	}
}

// TestOldKeysNameTheirNewKeys: every old key of every entry's Renamed
// table, written in a scenario file or given to --set, is an error naming
// the new key at the old key's line; each new key is a key of the block
// and no old key still is one.
func TestOldKeysNameTheirNewKeys(t *testing.T) {
	reg := catalog.Default()
	type entry struct {
		section, sel, name string
		renamed            map[string]string
		keys               []string
	}
	var entries []entry
	for _, name := range reg.Algorithms() {
		a, _ := reg.Algorithm(name)
		entries = append(entries, entry{"algorithm", "name", name, a.Renamed, registrytest.Keys(a.New())})
	}
	for _, kind := range reg.Problems() {
		p, _ := reg.Problem(kind)
		entries = append(entries, entry{"problem", "kind", kind, p.Renamed, registrytest.Keys(p.New())})
	}
	var n int
	for _, e := range entries {
		for old, nk := range e.renamed {
			n++
			if slices.Contains(e.keys, old) {
				t.Errorf("%s %s: old key %s is still a key of the block", e.section, e.name, old)
			}
			if !slices.ContainsFunc(e.keys, func(k string) bool { return k == nk || strings.HasPrefix(k, nk+".") }) {
				t.Errorf("%s %s: old key %s names %s, which is not a key of the block (keys: %s)", e.section, e.name, old, nk, strings.Join(e.keys, ", "))
			}
			other := "algorithm: {name: exchange}\n"
			if e.section == "algorithm" {
				other = "problem: {kind: least_squares, dim: 2}\n"
			}
			src := "agents: 4\ngraph: {topology: ring}\nrounds: 10\n" + other + e.section + ":\n  " + e.sel + ": " + e.name + "\n" + nested(old, "1")
			_, err := scenarios.Parse([]byte(src), "old.yaml")
			want := fmt.Sprintf("old.yaml:%d:%d: %s.%s: renamed to %s.%s", 7+strings.Count(old, "."), 3+2*strings.Count(old, "."), e.section, old, e.section, nk)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s %s, old key %s in a file: error %v\nwant %q", e.section, e.name, old, err, want)
			}
			s, err := scenarios.Parse([]byte(strings.TrimSuffix(src, nested(old, "1"))), "old.yaml")
			if err != nil {
				t.Fatal(err)
			}
			err = s.Set(e.section + "." + old + "=1")
			want = fmt.Sprintf("--set: %s.%s: renamed to %s.%s", e.section, old, e.section, nk)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s %s, old key %s in --set: error %v\nwant %q", e.section, e.name, old, err, want)
			}
		}
	}
	if n == 0 {
		t.Fatal("no old keys in any Renamed table")
	}
}

// nested writes the dotted key at the indentation of a block's key with
// value v: "a.b" as "  a:\n    b: v\n".
func nested(key, v string) string {
	var b strings.Builder
	parts := strings.Split(key, ".")
	for i, p := range parts {
		b.WriteString(strings.Repeat("  ", i+1) + p + ":")
		if i == len(parts)-1 {
			b.WriteString(" " + v)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// badYAML is a value of key of block p that no key of its type allows,
// written as YAML: .nan for a number, a large negative integer for an
// integer, an unknown word for a word. Booleans and paths have none.
func badYAML(p registry.Params, key string) (string, bool) {
	switch kind := registrytest.Kind(p, key); kind {
	case "float64":
		return ".nan", true
	case "int":
		return "-2147483648", true
	case "string":
		return "not-a-value", true
	case "interval":
		return "[.nan, .nan]", true
	}
	return "", false
}
