package scenarios

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/consim/consim/consensus/registry"
)

// field is one YAML key of a schema struct.
type field struct {
	name  string // YAML key
	index []int  // struct field index path (reflect.Value.FieldByIndex)
}

// fieldsOf lists the YAML keys of struct type t in declaration order, as
// registry.Keys names them (the keys of an embedded struct tagged
// `yaml:",inline"` are keys of t).
func fieldsOf(t reflect.Type) []field {
	var fs []field
	for _, k := range registry.Keys(t) {
		fs = append(fs, field{name: k.Name, index: k.Index})
	}
	return fs
}

// lookupField finds the YAML key name in struct type t.
func lookupField(t reflect.Type, name string) (field, bool) {
	for _, f := range fieldsOf(t) {
		if f.name == name {
			return f, true
		}
	}
	return field{}, false
}

// keyNames lists the YAML keys of struct type t.
func keyNames(t reflect.Type) []string {
	fs := fieldsOf(t)
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return names
}

// isSection reports whether t is a mapping of keys (a schema struct)
// rather than a value.
func isSection(t reflect.Type) bool { return t.Kind() == reflect.Struct }

// leafKeys lists the dotted keys of every value under struct type t.
func leafKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for _, f := range fieldsOf(t) {
		ft := t.FieldByIndex(f.index).Type
		k := joinKey(prefix, f.name)
		if isSection(ft) {
			keys = append(keys, leafKeys(ft, k)...)
			continue
		}
		keys = append(keys, k)
	}
	return keys
}

// joinKey appends name to a dotted key prefix.
func joinKey(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// parentKey drops the last element of a dotted key.
func parentKey(key string) string {
	i := strings.LastIndexByte(key, '.')
	if i < 0 {
		return ""
	}
	return key[:i]
}

// unknownKeyMsg explains that name is not a key of section prefix.
func unknownKeyMsg(name, prefix string, allowed []string) string {
	at := "at top level"
	if prefix != "" {
		at = "in " + prefix
	}
	hint := ""
	if s := closest(name, allowed); s != "" {
		hint = fmt.Sprintf("did you mean %q? ", s)
	}
	return fmt.Sprintf("unknown key %q %s (%sallowed: %s)", name, at, hint, strings.Join(allowed, ", "))
}

// closest returns the allowed word nearest to name in edit distance when
// it is a likely typo (one edit away, or two for words of eight or more
// letters), else "".
func closest(name string, allowed []string) string {
	best, bestD := "", 3
	for _, a := range allowed {
		limit := 1
		if len(a) >= 8 {
			limit = 2
		}
		if d := editDistance(name, a); d <= limit && d < bestD {
			best, bestD = a, d
		}
	}
	return best
}

// editDistance is the Damerau-Levenshtein (optimal string alignment)
// distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
