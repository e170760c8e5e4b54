package scenarios

import (
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/consim/consim/consensus/registry"
)

// A registered section is a block of the scenario whose keys, after the
// one that selects an entry of the registry (algorithm.name,
// problem.kind), belong to that entry's own parameter struct. The
// scenarios package knows no algorithm or problem by name: it decodes,
// sets, validates and renders those keys through the registry.
type registered interface {
	// selector is the key that chooses the entry, and its value.
	selector() (key string, value *string)
	// section is the block's key in the scenario.
	section() string
	// settings is the entry's parameter struct, nil before one is chosen.
	settings() *registry.Params
	// settingsFor is the entry name the settings were made for.
	settingsFor() *string
	// entry returns the registered entry called name (ok false when there
	// is none) and the names registered.
	entry(reg *registry.Registry, name string) (e entry, names []string, ok bool)
}

// entry is what the scenario uses of a registered algorithm or problem:
// its defaults and its old keys.
type entry struct {
	new     func() registry.Params
	renamed map[string]string
}

func (a *Algorithm) selector() (string, *string) { return "name", &a.Name }
func (a *Algorithm) section() string             { return "algorithm" }
func (a *Algorithm) settings() *registry.Params  { return &a.Params }
func (a *Algorithm) settingsFor() *string        { return &a.of }
func (a *Algorithm) entry(reg *registry.Registry, name string) (entry, []string, bool) {
	e, ok := reg.Algorithm(name)
	return entry{e.New, e.Renamed}, reg.Algorithms(), ok
}

func (p *Problem) selector() (string, *string) { return "kind", &p.Kind }
func (p *Problem) section() string             { return "problem" }
func (p *Problem) settings() *registry.Params  { return &p.Params }
func (p *Problem) settingsFor() *string        { return &p.of }
func (p *Problem) entry(reg *registry.Registry, name string) (entry, []string, bool) {
	e, ok := reg.Problem(name)
	return entry{e.New, e.Renamed}, reg.Problems(), ok
}

// lookup returns a new parameter struct with the defaults of the entry of
// r called name, and the names registered.
func lookup(r registered, reg *registry.Registry, name string) (registry.Params, []string, bool) {
	e, names, ok := r.entry(reg, name)
	if !ok {
		return nil, names, false
	}
	return e.new(), names, true
}

// renamedOf returns the old keys of the entry of r called name with their
// new keys.
func renamedOf(r registered, reg *registry.Registry, name string) map[string]string {
	e, _, _ := r.entry(reg, name)
	return e.renamed
}

// settle makes the settings of r those of its selected entry: new
// defaults when the selection changed (an unknown or empty selection
// leaves none), a private copy otherwise, so that changing them never
// touches a scenario r was copied from.
func settle(r registered, reg *registry.Registry) {
	_, name := r.selector()
	set, of := r.settings(), r.settingsFor()
	if *name == *of && *set != nil {
		*set = cloneParams(*set)
		return
	}
	*set, *of = nil, *name
	if *name == "" {
		return
	}
	if p, _, ok := lookup(r, reg, *name); ok {
		*set = p
	}
}

// cloneParams returns a shallow copy of the struct p points to.
func cloneParams(p registry.Params) registry.Params {
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return p
	}
	c := reflect.New(v.Elem().Type())
	c.Elem().Set(v.Elem())
	return c.Interface().(registry.Params)
}

// settingsValue is the struct the settings of r point to, or an invalid
// Value when there are none.
func settingsValue(r registered) reflect.Value {
	p := *r.settings()
	if p == nil {
		return reflect.Value{}
	}
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	return v.Elem()
}

// decodeRegistered decodes the mapping n into r: the selector first (so
// that the other keys are read into the right struct), then the fixed
// keys of r's own struct and the entry's keys.
func (d *decoder) decodeRegistered(r registered, n *yaml.Node, key string) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return
	}
	own := reflect.ValueOf(r).Elem()
	if n.Kind != yaml.MappingNode {
		d.errs.add(d.at(n), key, "expected a mapping with keys %s, got %s", strings.Join(keyNames(own.Type()), ", "), describe(n))
		return
	}
	selKey, sel := r.selector()
	for i := 0; i+1 < len(n.Content); i += 2 {
		if kn := n.Content[i]; kn.Kind == yaml.ScalarNode && kn.Value == selKey {
			f, _ := lookupField(own.Type(), selKey)
			d.value(n.Content[i+1], own.FieldByIndex(f.index), joinKey(key, selKey))
		}
	}
	if *sel != "" {
		if _, names, ok := lookup(r, d.reg, *sel); !ok {
			d.errs.add(d.posOf(joinKey(key, selKey)), joinKey(key, selKey), "%s", unknownValueMsg(*sel, names))
			return
		}
	}
	settle(r, d.reg)
	sv := settingsValue(r)
	d.keys(n, key, func(kn, vn *yaml.Node) {
		name := kn.Value
		if name == selKey {
			return
		}
		if f, ok := lookupField(own.Type(), name); ok {
			d.value(vn, own.FieldByIndex(f.index), joinKey(key, name))
			return
		}
		if !sv.IsValid() {
			d.errs.add(d.at(kn), joinKey(key, name), "set %s.%s first: the other keys of %s depend on it", key, selKey, key)
			return
		}
		f, ok := lookupField(sv.Type(), name)
		if !ok && d.renamedKeys(renamedOf(r, d.reg, *sel), key, name, kn, vn) {
			return
		}
		if !ok {
			allowed := append(keyNames(own.Type()), keyNames(sv.Type())...)
			d.errs.add(d.at(kn), "", "%s (for %s %s)", unknownKeyMsg(name, key, allowed), selKey, *sel)
			return
		}
		d.value(vn, sv.FieldByIndex(f.index), joinKey(key, name))
	})
}

// renamedKeys reports whether the key name of section (its key node kn,
// its value vn) is one the entry had before its keys were renamed, as
// the entry's table ren says, and adds an error naming the new key for
// each old key written under it: name itself, or every key of the
// mapping vn (e.g. each key of a params: sub-block), at its own line.
func (d *decoder) renamedKeys(ren map[string]string, section, name string, kn, vn *yaml.Node) bool {
	newKey, isOld := ren[name]
	sub := vn.Kind == yaml.MappingNode && hasPrefix(ren, name+".")
	if !isOld && !sub {
		return false
	}
	switch {
	case sub && len(vn.Content) > 0:
	case isOld:
		d.errs.add(d.at(kn), joinKey(section, name), "renamed to %s", joinKey(section, newKey))
		return true
	default:
		d.errs.add(d.at(kn), joinKey(section, name), "unknown key (%s has no %s: block any more; its keys are written in %s itself)", section, name, section)
		return true
	}
	for i := 0; i+1 < len(vn.Content); i += 2 {
		ck, cv := vn.Content[i], vn.Content[i+1]
		if ck.Kind != yaml.ScalarNode {
			continue
		}
		if d.renamedKeys(ren, section, name+"."+ck.Value, ck, cv) {
			continue
		}
		why := fmt.Sprintf("%s has no %s: block any more; its keys are written in %s itself", section, name, section)
		if isOld {
			why = fmt.Sprintf("%s is now %s", joinKey(section, name), joinKey(section, newKey))
		}
		d.errs.add(d.at(ck), joinKey(section, name+"."+ck.Value), "unknown key (%s)", why)
	}
	return true
}

// hasPrefix reports whether a key of ren starts with prefix.
func hasPrefix(ren map[string]string, prefix string) bool {
	for k := range ren {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// renamedError is the error of an override whose dotted key, from its
// element at index i on, is an old key of the entry of r (Set).
func renamedError(r registered, reg *registry.Registry, name string, key string, parts []string, i int) error {
	ren := renamedOf(r, reg, name)
	for j := len(parts); j > i; j-- {
		old := strings.Join(parts[i:j], ".")
		if nk, ok := ren[old]; ok {
			newKey := joinKey(r.section(), nk)
			if j < len(parts) {
				newKey = joinKey(newKey, strings.Join(parts[j:], "."))
			}
			return ErrorList{{Pos: Pos{File: OverrideSource}, Key: key, Msg: "renamed to " + newKey}}
		}
	}
	return nil
}

// posOf is where key was written, or the decoder's file.
func (d *decoder) posOf(key string) Pos {
	if p, ok := d.pos[key]; ok {
		return p
	}
	return Pos{File: d.file}
}

// unknownValueMsg says that v is not one of the registered names.
func unknownValueMsg(v string, names []string) string {
	msg := fmt.Sprintf("%q is not one of %s", v, strings.Join(names, ", "))
	if c := closest(v, names); c != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", c)
	}
	return msg
}

// marshalRegistered renders r as a mapping: the selector, r's other own
// keys, then the entry's keys in their struct order.
func marshalRegistered(r registered) (any, error) {
	own := reflect.ValueOf(r).Elem()
	node := &yaml.Node{Kind: yaml.MappingNode}
	for _, f := range fieldsOf(own.Type()) {
		var vn yaml.Node
		if err := vn.Encode(own.FieldByIndex(f.index).Interface()); err != nil {
			return nil, err
		}
		node.Content = append(node.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: f.name}, &vn)
	}
	if sv := settingsValue(r); sv.IsValid() {
		var sn yaml.Node
		if err := sn.Encode(sv.Interface()); err != nil {
			return nil, err
		}
		if sn.Kind == yaml.MappingNode {
			node.Content = append(node.Content, sn.Content...)
		}
	}
	return node, nil
}

// MarshalYAML renders the algorithm block: name and the algorithm's keys.
func (a Algorithm) MarshalYAML() (any, error) { return marshalRegistered(&a) }

// MarshalYAML renders the problem block: kind, init and the kind's keys.
func (p Problem) MarshalYAML() (any, error) { return marshalRegistered(&p) }

func (a *Algorithm) decodeYAML(d *decoder, n *yaml.Node, key string) { d.decodeRegistered(a, n, key) }
func (p *Problem) decodeYAML(d *decoder, n *yaml.Node, key string)   { d.decodeRegistered(p, n, key) }
