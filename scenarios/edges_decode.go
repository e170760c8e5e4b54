package scenarios

import (
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// Decoding of the list-valued keys of the edges section. Each element is
// recorded under key[k] (edges.cuts[0], edges.cuts[0].edges[1]) so that
// validation points at its line.

// decodeYAML reads a sequence of cut mappings.
func (cs *Cuts) decodeYAML(d *decoder, n *yaml.Node, key string) {
	*cs = nil
	elems := sequence(d, n, key, "a sequence of {edges, from, to}")
	for k, en := range elems {
		var c Cut
		d.value(en, reflect.ValueOf(&c).Elem(), elemKey(key, k))
		*cs = append(*cs, c)
	}
}

// decodeYAML reads a sequence of partition mappings.
func (ps *Partitions) decodeYAML(d *decoder, n *yaml.Node, key string) {
	*ps = nil
	elems := sequence(d, n, key, "a sequence of {groups, from, to}")
	for k, en := range elems {
		var p Partition
		d.value(en, reflect.ValueOf(&p).Elem(), elemKey(key, k))
		*ps = append(*ps, p)
	}
}

// decodeYAML reads a sequence of pairs [i, j].
func (ps *EdgePairs) decodeYAML(d *decoder, n *yaml.Node, key string) {
	*ps = nil
	for k, en := range sequence(d, n, key, "a sequence of pairs [i, j]") {
		ek := elemKey(key, k)
		ids := intSequence(d, en, ek, "a pair [i, j] of agent ids")
		if ids == nil {
			continue
		}
		if len(ids) != 2 {
			d.errs.add(d.at(en), ek, "expected a pair [i, j] of agent ids, got %d values", len(ids))
			continue
		}
		*ps = append(*ps, [2]int{ids[0], ids[1]})
	}
}

// decodeYAML reads a sequence of groups, each a sequence of agent ids.
func (gs *AgentGroups) decodeYAML(d *decoder, n *yaml.Node, key string) {
	*gs = nil
	for k, en := range sequence(d, n, key, "a sequence of groups [i, j, ...]") {
		if ids := intSequence(d, en, elemKey(key, k), "a group [i, j, ...] of agent ids"); ids != nil {
			*gs = append(*gs, ids)
		}
	}
}

// sequence returns the elements of a sequence node (none for null),
// reporting any other node as an error that says what is expected.
func sequence(d *decoder, n *yaml.Node, key, want string) []*yaml.Node {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.errs.add(d.at(n), key, "expected %s, got %s", want, describe(n))
		return nil
	}
	return n.Content
}

// intSequence decodes a non-empty sequence of integers, or reports it and
// returns nil.
func intSequence(d *decoder, n *yaml.Node, key, want string) []int {
	d.pos[key] = d.at(n)
	elems := sequence(d, n, key, want)
	if len(elems) == 0 {
		if n.Kind == yaml.SequenceNode {
			d.errs.add(d.at(n), key, "expected %s, got an empty sequence", want)
		}
		return nil
	}
	ids := make([]int, len(elems))
	before := len(d.errs.list)
	for k, en := range elems {
		d.scalar(en, reflect.ValueOf(&ids[k]).Elem(), elemKey(key, k))
	}
	if len(d.errs.list) != before {
		return nil
	}
	return ids
}

// elemKey is the key of element k of the list at key.
func elemKey(key string, k int) string { return fmt.Sprintf("%s[%d]", key, k) }
