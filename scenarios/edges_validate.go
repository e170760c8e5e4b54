package scenarios

import (
	"os"

	"github.com/consim/consim/consensus/registry"
)

// Validation of the edge-process keys beyond edges.model. Whether a cut
// edge is an edge of the graph is checked by Build, which has the graph.

// gilbertElliott checks edges.gilbert_elliott: required with model
// gilbert_elliott (p_gb in [0, 1], p_bg in (0, 1], p_good in (0, 1],
// p_bad in [0, 1]) and left out otherwise.
func (v *validator) gilbertElliott() {
	ge := v.s.Edges.GilbertElliott
	const key = "edges.gilbert_elliott"
	if v.s.Edges.Model != EdgeModelGilbertElliott {
		if ge != (GilbertElliott{}) {
			v.fail(key, "only used with edges.model %s, not %s", EdgeModelGilbertElliott, v.s.Edges.Model)
		}
		return
	}
	if v.required(key+".p_gb", ge.PGB == 0, "for model gilbert_elliott, the good -> bad probability in [0, 1]") &&
		!(ge.PGB >= 0 && ge.PGB <= 1) {
		v.fail(key+".p_gb", "%s is outside [0, 1]", registry.Num(ge.PGB))
	}
	if v.required(key+".p_bg", ge.PBG == 0, "for model gilbert_elliott, the bad -> good probability in (0, 1]; mean burst 1/p_bg rounds") {
		v.inUnit(key+".p_bg", ge.PBG)
	}
	if ge.PGood != nil {
		v.inUnit(key+".p_good", *ge.PGood)
	}
	if !(ge.PBad >= 0 && ge.PBad <= 1) {
		v.fail(key+".p_bad", "%s is outside [0, 1]", registry.Num(ge.PBad))
	}
}

// schedule checks edges.cuts and edges.partitions: agent ids in
// [0, agents), pairs of distinct agents, disjoint groups, and rounds with
// 0 <= from < to (to left out: never heals).
func (v *validator) schedule() {
	n := v.s.Agents
	for c, cut := range v.s.Edges.Cuts {
		key := elemKey("edges.cuts", c)
		v.roundRange(key, cut.From, cut.To)
		if len(cut.Edges) == 0 {
			v.fail(key+".edges", "missing or empty (required: a sequence of pairs [i, j] of the graph)")
		}
		for k, e := range cut.Edges {
			ek := elemKey(key+".edges", k)
			if e[0] == e[1] {
				v.fail(ek, "[%d, %d] is a self loop, not an edge", e[0], e[1])
			}
			v.agentIDs(ek, e[:], n)
		}
	}
	for p, part := range v.s.Edges.Partitions {
		key := elemKey("edges.partitions", p)
		v.roundRange(key, part.From, part.To)
		if len(part.Groups) == 0 {
			v.fail(key+".groups", "missing or empty (required: a sequence of groups [i, j, ...] of agent ids)")
		}
		seen := make(map[int]int)
		for gi, group := range part.Groups {
			gk := elemKey(key+".groups", gi)
			v.agentIDs(gk, group, n)
			for _, i := range group {
				if prev, dup := seen[i]; dup {
					v.fail(gk, "agent %d is already in group %d (groups must be disjoint)", i, prev)
					continue
				}
				seen[i] = gi
			}
		}
	}
}

// roundRange checks from >= 0 and, when to is written, to > from.
func (v *validator) roundRange(key string, from, to int) {
	if from < 0 {
		v.fail(key+".from", "must be a round >= 0, got %d", from)
	}
	if _, written := v.s.src.pos[key+".to"]; (written || to != 0) && to <= from {
		v.fail(key+".to", "%d must be greater than from = %d (leave to out for a fault that never heals)", to, from)
	}
}

// agentIDs checks that every id lies in [0, n).
func (v *validator) agentIDs(key string, ids []int, n int) {
	for _, i := range ids {
		if n > 0 && (i < 0 || i >= n) {
			v.fail(key, "agent %d is outside [0, %d) (agents = %d)", i, n, n)
		}
	}
}

// replay checks that edges.replay, when set, is a readable file. Its
// contents are checked against the graph by Build.
func (v *validator) replay() {
	if p := v.s.Edges.Replay; p != "" {
		if _, err := os.Stat(p); err != nil {
			v.fail("edges.replay", "cannot read edge recording: %v", err)
		}
	}
}
