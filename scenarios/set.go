package scenarios

import (
	"fmt"
	"maps"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Set applies one override "key.path=value", as given to --set: the key is
// the dotted YAML path (graph.p, algorithm.penalty, runtime.timeout) and
// the value is read as YAML, so it is type-checked like the file
// (graph.p=0.3, problem.box=[-1,.inf], algorithm.penalty=null to fall
// back to the preset). An unknown key is an error that lists the keys
// allowed at that level; an old key of an algorithm or problem block, one
// that names its new key. Setting graph.p clears graph.p_range and vice
// versa; a relative graph.file is anchored at the scenario's directory.
// On error s is unchanged. Set does not validate ranges; call Validate.
func (s *Scenario) Set(assignment string) error {
	key, text, ok := strings.Cut(assignment, "=")
	key = strings.TrimSpace(key)
	src := Pos{File: OverrideSource}
	if !ok || key == "" {
		return ErrorList{{Pos: src, Msg: fmt.Sprintf("%q: expected key.path=value, e.g. graph.p=0.3", assignment)}}
	}
	v, err := s.fieldAt(key)
	if err != nil {
		return err
	}
	node, err := parseValue(text)
	if err != nil {
		return ErrorList{{Pos: src, Key: key, Msg: fmt.Sprintf("value %q is not valid YAML: %v", text, err)}}
	}
	d := &decoder{file: OverrideSource, pos: make(map[string]Pos), reg: s.registry(), dir: s.src.dir}
	tmp := reflect.New(v.Type()).Elem()
	tmp.Set(v)
	d.value(node, tmp, key)
	if err := d.errs.err(); err != nil {
		return err
	}
	// Commit on a copy of the bookkeeping so that a failed settle leaves
	// s unchanged, and on private copies of the registered sections.
	next := *s
	settle(&next.Algorithm, next.registry())
	settle(&next.Problem, next.registry())
	next.src.pos = maps.Clone(s.src.pos)
	if next.src.pos == nil {
		next.src.pos = make(map[string]Pos)
	}
	nv, _ := next.fieldAt(key)
	nv.Set(tmp)
	// A new algorithm.name or problem.kind brings that entry's defaults.
	settle(&next.Algorithm, next.registry())
	settle(&next.Problem, next.registry())
	maps.Copy(next.src.pos, d.pos)
	next.settleP(d.pos, &d.errs)
	if err := d.errs.err(); err != nil {
		return err
	}
	if _, ok := d.pos["graph.file"]; ok {
		next.Graph.File = next.resolvePath(next.Graph.File)
	}
	if _, ok := d.pos["edges.replay"]; ok {
		next.Edges.Replay = next.resolvePath(next.Edges.Replay)
	}
	*s = next
	return nil
}

// fieldAt returns the settable field of s at a dotted key, or an error
// naming the first unknown element and the keys allowed there.
func (s *Scenario) fieldAt(key string) (reflect.Value, error) {
	v := reflect.ValueOf(s).Elem()
	prefix := ""
	parts := strings.Split(key, ".")
	for i, name := range parts {
		if !isSection(v.Type()) {
			return reflect.Value{}, ErrorList{{Pos: Pos{File: OverrideSource}, Key: key,
				Msg: fmt.Sprintf("%s is a value, not a section with keys", prefix)}}
		}
		f, ok := lookupField(v.Type(), name)
		if !ok {
			allowed := keyNames(v.Type())
			if r, isReg := v.Addr().Interface().(registered); isReg {
				if sv := settingsValue(r); sv.IsValid() {
					if sf, ok := lookupField(sv.Type(), name); ok {
						v = sv.FieldByIndex(sf.index)
						prefix = joinKey(prefix, name)
						continue
					}
					allowed = append(allowed, keyNames(sv.Type())...)
				}
				_, sel := r.selector()
				if err := renamedError(r, s.registry(), *sel, key, parts, i); err != nil {
					return reflect.Value{}, err
				}
			}
			return reflect.Value{}, ErrorList{{Pos: Pos{File: OverrideSource},
				Msg: unknownKeyMsg(name, prefix, allowed)}}
		}
		v = v.FieldByIndex(f.index)
		prefix = joinKey(prefix, name)
	}
	return v, nil
}

// parseValue reads the right-hand side of an override as one YAML node;
// an empty value is null.
func parseValue(text string) (*yaml.Node, error) {
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(text), &root); err != nil {
		return nil, err
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}, nil
	}
	return root.Content[0], nil
}
