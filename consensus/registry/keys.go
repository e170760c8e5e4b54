package registry

import (
	"reflect"
	"strings"
)

// Key is one key of a block's struct: its name in the scenario and the
// index path of its field (reflect.Value.FieldByIndex).
type Key struct {
	Name  string
	Index []int
}

// Keys lists the keys of struct type t in declaration order: every
// exported field but those tagged `yaml:"-"`, under the name of its yaml
// tag (the field's name in lower case without one); the keys of an
// embedded struct tagged `yaml:",inline"` are keys of t, at its place.
func Keys(t reflect.Type) []Key {
	var ks []Key
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && opts == "inline" && f.Type.Kind() == reflect.Struct {
			for _, in := range Keys(f.Type) {
				ks = append(ks, Key{Name: in.Name, Index: append([]int{i}, in.Index...)})
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		ks = append(ks, Key{Name: name, Index: []int{i}})
	}
	return ks
}
