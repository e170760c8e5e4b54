package scenarios

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/consim/consim/consensus/registry"
)

var (
	durationType = reflect.TypeFor[Duration]()
	intervalType = reflect.TypeFor[Interval]()
	pathType     = reflect.TypeFor[registry.Path]()
)

// decoder writes a YAML node tree into schema structs, checking every key
// and type and recording where each key's value was written.
type decoder struct {
	file  string // Pos.File of everything decoded
	lines bool   // node lines refer to file (false for --set values)
	pos   map[string]Pos
	errs  errorsCollector
	// reg resolves the registered sections (algorithm, problem).
	reg *registry.Registry
	// dir anchors relative registry.Path values (the scenario file's
	// directory); empty leaves them as written.
	dir string
}

func (d *decoder) at(n *yaml.Node) Pos {
	if !d.lines {
		return Pos{File: d.file}
	}
	return Pos{File: d.file, Line: n.Line, Column: n.Column}
}

// value decodes n into v, the value of dotted key. On error v may be left
// partly written; callers decode into a copy when that matters.
func (d *decoder) value(n *yaml.Node, v reflect.Value, key string) {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	d.pos[key] = d.at(n)
	switch t := v.Type(); {
	case t == durationType:
		dur, err := parseDuration(n)
		if err != nil {
			d.errs.add(d.at(n), key, "%v", err)
			return
		}
		v.Set(reflect.ValueOf(dur))
	case t == intervalType:
		d.interval(n, v, key)
	case t == pathType:
		d.scalar(n, v, key)
		if p := v.String(); p != "" && !filepath.IsAbs(p) && d.dir != "" {
			abs, err := filepath.Abs(filepath.Join(d.dir, p))
			if err != nil {
				abs = filepath.Join(d.dir, p)
			}
			v.SetString(abs)
		}
	case reflect.PointerTo(t).Implements(yamlSelfDecoderType):
		v.Addr().Interface().(yamlSelfDecoder).decodeYAML(d, n, key)
	case t.Kind() == reflect.Struct:
		d.section(n, v, key)
	case t.Kind() == reflect.Pointer:
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
			v.SetZero()
			return
		}
		nv := reflect.New(t.Elem())
		before := len(d.errs.list)
		d.value(n, nv.Elem(), key)
		if len(d.errs.list) == before {
			v.Set(nv)
		}
	default:
		d.scalar(n, v, key)
	}
}

// section decodes a mapping into the struct v, rejecting unknown and
// repeated keys. A null node is an empty mapping.
func (d *decoder) section(n *yaml.Node, v reflect.Value, key string) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errs.add(d.at(n), key, "expected a mapping with keys %s, got %s",
			strings.Join(keyNames(v.Type()), ", "), describe(n))
		return
	}
	d.keys(n, key, func(kn, vn *yaml.Node) {
		f, ok := lookupField(v.Type(), kn.Value)
		if !ok {
			d.errs.add(d.at(kn), "", "%s", unknownKeyMsg(kn.Value, key, keyNames(v.Type())))
			return
		}
		d.value(vn, v.FieldByIndex(f.index), joinKey(key, kn.Value))
	})
}

// keys calls fn with every key of the mapping n (the value of dotted key)
// and its value, in order, but for keys that are not plain names and keys
// written again, which are errors.
func (d *decoder) keys(n *yaml.Node, key string, fn func(kn, vn *yaml.Node)) {
	seen := make(map[string]int)
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Kind != yaml.ScalarNode {
			d.errs.add(d.at(kn), key, "keys must be plain names, got %s", describe(kn))
			continue
		}
		if line, dup := seen[kn.Value]; dup {
			d.errs.add(d.at(kn), joinKey(key, kn.Value), "repeated key (first set at line %d)", line)
			continue
		}
		seen[kn.Value] = kn.Line
		fn(kn, vn)
	}
}

// interval decodes a two-element sequence [lo, hi].
func (d *decoder) interval(n *yaml.Node, v reflect.Value, key string) {
	if n.Kind != yaml.SequenceNode || len(n.Content) != 2 {
		d.errs.add(d.at(n), key, "expected a sequence [lo, hi] of two numbers, got %s", describe(n))
		return
	}
	var iv Interval
	for i, en := range n.Content {
		f, err := toFloat(en)
		if err != nil {
			d.errs.add(d.at(en), key, "element %d: %v", i+1, err)
			return
		}
		iv[i] = f
	}
	v.Set(reflect.ValueOf(iv))
}

// scalar decodes a string, bool, integer or float, insisting on the YAML
// type: 2.5 is not an integer and "0.5" (quoted) is not a number.
func (d *decoder) scalar(n *yaml.Node, v reflect.Value, key string) {
	var err error
	switch v.Kind() {
	case reflect.String:
		switch {
		case n.Kind != yaml.ScalarNode:
			err = fmt.Errorf("expected a string, got %s", describe(n))
		case n.ShortTag() == "!!null":
			v.SetString("")
		default:
			v.SetString(n.Value)
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			err = fmt.Errorf("expected true or false, got %s", describe(n))
			break
		}
		var b bool
		if err = n.Decode(&b); err == nil {
			v.SetBool(b)
		}
	case reflect.Int:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
			err = fmt.Errorf("expected an integer, got %s", describe(n))
			break
		}
		var i int64
		if n.Decode(&i) != nil || v.OverflowInt(i) {
			err = fmt.Errorf("integer %s is out of range", n.Value)
			break
		}
		v.SetInt(i)
	case reflect.Uint64:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
			err = fmt.Errorf("expected a non-negative integer, got %s", describe(n))
			break
		}
		var u uint64
		if n.Decode(&u) != nil {
			err = fmt.Errorf("expected a non-negative integer below 2^64, got %s", n.Value)
			break
		}
		v.SetUint(u)
	case reflect.Float64:
		var f float64
		if f, err = toFloat(n); err == nil {
			v.SetFloat(f)
		}
	default:
		err = fmt.Errorf("unsupported schema type %s", v.Type())
	}
	if err != nil {
		d.errs.add(d.at(n), key, "%v", err)
	}
}

// toFloat reads an integer or float scalar, including .inf, -.inf and .nan.
func toFloat(n *yaml.Node) (float64, error) {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode {
		return 0, fmt.Errorf("expected a number, got %s", describe(n))
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return 0, fmt.Errorf("expected a number, got %s", n.Value)
		}
		return f, nil
	}
	return 0, fmt.Errorf("expected a number, got %s", describe(n))
}

// describe names a node's type and value for an error message.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return fmt.Sprintf("a sequence of %d", len(n.Content))
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "no value"
		case "!!str":
			return "string " + strconv.Quote(n.Value)
		case "!!bool":
			return "boolean " + n.Value
		}
		return n.Value
	}
	return "an unreadable value"
}
