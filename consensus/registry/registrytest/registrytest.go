// Package registrytest checks that a block of parameters follows the one
// idiom of consim's registry (see package registry): a struct named Params
// whose exported fields are the block's keys, flat (an embedded struct
// tagged `yaml:",inline"` adds its keys to the block's), each documented, with
// a Validate that returns registry.FieldErrors keyed by those keys. The
// tests of the shipped catalog run it over every registered algorithm and
// problem; a user's package may run it over its own blocks.
//
// registrytest imports registry only; nothing but tests should import it.
package registrytest

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/consim/consim/consensus/registry"
)

// Forbidden are the key and field names of the other idiom: a sub-block
// holding the block's values.
var forbidden = []string{"params", "settings"}

// CheckName reports an error unless p's struct type is called Params, or
// ends in Params when its package registers more than one block (e.g.
// CompositionParams).
func CheckName(p registry.Params) error {
	t, err := structType(p)
	if err != nil {
		return err
	}
	if !strings.HasSuffix(t.Name(), "Params") {
		return fmt.Errorf("block type %s: name it Params (or <Name>Params beside another block of its package)", t)
	}
	return nil
}

// CheckParams reports every way p departs from the idiom, joined:
//   - p is not a non-nil pointer to a struct;
//   - a field is called Params or Settings, or a key params or settings
//     (the sub-block of the other idiom), at any depth;
//   - a key has no doc tag;
//   - p does not validate (p is the block's defaults, or for a block with
//     required keys the defaults with those keys set: it must);
//   - for a key that can hold a bad value (a number set to NaN or to
//     math.MinInt32, a word set to an unknown one, an interval set to
//     [NaN, NaN]), Validate does not return a registry.FieldErrors naming
//     that key.
//
// Booleans, paths (registry.Path) and optional sub-blocks (pointers to
// structs, checked by their own Validate when present) have no bad value
// and are not tried. CheckParams does not change p.
func CheckParams(p registry.Params) error {
	t, err := structType(p)
	if err != nil {
		return err
	}
	var errs []error
	keys := leaves(t, nil, "", &errs)
	if err := p.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("the block given does not validate: %w", err))
	}
	for _, k := range keys {
		if err := rejectsBad(p, k); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Keys lists the dotted keys of block p in declaration order (nil when p
// is not a pointer to a struct).
func Keys(p registry.Params) []string {
	t, err := structType(p)
	if err != nil {
		return nil
	}
	var errs []error
	var keys []string
	for _, k := range leaves(t, nil, "", &errs) {
		keys = append(keys, k.key)
	}
	return keys
}

// Kind names the type of the value of key of block p, as a scenario writes
// it: "float64", "int", "string", "bool", "path", "interval", or "" for a
// key p does not have or a sub-block (a pointer to a struct). Optional
// values (pointers) have the kind of what they point to.
func Kind(p registry.Params, key string) string {
	t, err := structType(p)
	if err != nil {
		return ""
	}
	var errs []error
	for _, k := range leaves(t, nil, "", &errs) {
		if k.key != key {
			continue
		}
		ft := k.field.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft == reflect.TypeFor[registry.Path]():
			return "path"
		case ft == reflect.TypeFor[registry.Interval]():
			return "interval"
		case ft.Kind() == reflect.Struct:
			return ""
		}
		return ft.Kind().String()
	}
	return ""
}

func structType(p registry.Params) (reflect.Type, error) {
	v := reflect.ValueOf(p)
	if !v.IsValid() || v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("block %T: want a non-nil pointer to a struct", p)
	}
	return v.Type().Elem(), nil
}

// leaf is one key of a block: its dotted name and field index path.
type leaf struct {
	key   string
	index []int
	field reflect.StructField
}

// leaves lists the keys of struct type t (recursing into struct-valued
// fields) and appends the idiom's structural errors to errs.
func leaves(t reflect.Type, index []int, prefix string, errs *[]error) []leaf {
	var out []leaf
	for _, k := range registry.Keys(t) {
		f := t.FieldByIndex(k.Index)
		key := k.Name
		if prefix != "" {
			key = prefix + "." + k.Name
		}
		for _, bad := range forbidden {
			if strings.EqualFold(f.Name, bad) || k.Name == bad {
				*errs = append(*errs, fmt.Errorf("key %s (field %s): the block's keys belong in the block itself, not in a %s sub-block", key, f.Name, bad))
			}
		}
		idx := append(append([]int(nil), index...), k.Index...)
		if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeFor[registry.Interval]() {
			out = append(out, leaves(f.Type, idx, key, errs)...)
			continue
		}
		if f.Tag.Get("doc") == "" {
			*errs = append(*errs, fmt.Errorf("key %s: no doc tag (its meaning and allowed range)", key))
		}
		out = append(out, leaf{key: key, index: idx, field: f})
	}
	return out
}

// rejectsBad sets key k of a copy of p to a bad value and checks that
// Validate names k in a FieldErrors.
func rejectsBad(p registry.Params, k leaf) error {
	c := reflect.New(reflect.TypeOf(p).Elem())
	c.Elem().Set(reflect.ValueOf(p).Elem())
	f := c.Elem().FieldByIndex(k.index)
	bad, ok := badValue(f.Type())
	if !ok {
		return nil
	}
	f.Set(bad)
	err := c.Interface().(registry.Params).Validate()
	if err == nil {
		return fmt.Errorf("key %s = %s: Validate accepts it", k.key, show(bad))
	}
	var fes registry.FieldErrors
	if !errors.As(err, &fes) {
		return fmt.Errorf("key %s = %s: Validate returns %T (%v), want a registry.FieldErrors naming the key", k.key, show(bad), err, err)
	}
	for _, fe := range fes {
		if fe.Key == k.key {
			return nil
		}
	}
	return fmt.Errorf("key %s = %s: Validate's errors do not name the key: %v", k.key, show(bad), err)
}

// badValue returns a value of type t that no key of that type allows, and
// false for a type without one.
func badValue(t reflect.Type) (reflect.Value, bool) {
	v := reflect.New(t).Elem()
	switch {
	case t == reflect.TypeFor[registry.Path]():
		return v, false
	case t == reflect.TypeFor[registry.Interval]():
		v.Set(reflect.ValueOf(registry.Interval{math.NaN(), math.NaN()}))
		return v, true
	case t.Kind() == reflect.Pointer && t.Elem().Kind() != reflect.Struct:
		e, ok := badValue(t.Elem())
		if !ok {
			return v, false
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(e)
		return p, true
	}
	switch t.Kind() {
	case reflect.Float64:
		v.SetFloat(math.NaN())
	case reflect.Int:
		v.SetInt(math.MinInt32)
	case reflect.String:
		v.SetString("not-a-value")
	default:
		return v, false
	}
	return v, true
}

func show(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	return fmt.Sprint(v.Interface())
}
