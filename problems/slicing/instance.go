package slicing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// Link is the directed physical link (From, To) with capacity Cap = C_ij
// in rate units.
type Link struct {
	From int     `json:"from"`
	To   int     `json:"to"`
	Cap  float64 `json:"cap"`
}

// Function is a service function f and its function nodes V_f.
type Function struct {
	Name string `json:"name"`
	// Hosts is V_f, the nodes that can run f, ascending.
	Hosts []int `json:"hosts"`
}

// Flow is flow k: source S(k), destination D(k), rate lambda(k) and the
// ordered service function chain F(k), as indices into
// Instance.Functions.
type Flow struct {
	Src   int     `json:"src"`
	Dst   int     `json:"dst"`
	Rate  float64 `json:"rate"`
	Chain []int   `json:"chain"`
}

// Instance is a network slicing problem: a directed network of Nodes
// nodes with Links, the Functions and their hosts, the node capacities
// NodeCap (mu_i; a node that hosts some function needs NodeCap > 0) and
// the Flows.
type Instance struct {
	Nodes     int
	Links     []Link
	Functions []Function
	NodeCap   []float64
	Flows     []Flow
}

// fileInstance is the file form of an Instance: chains name functions.
type fileInstance struct {
	Nodes     int        `json:"nodes"`
	Links     []Link     `json:"links"`
	Functions []Function `json:"functions"`
	NodeCap   []float64  `json:"node_cap"`
	Flows     []fileFlow `json:"flows"`
}

type fileFlow struct {
	Src   int      `json:"src"`
	Dst   int      `json:"dst"`
	Rate  float64  `json:"rate"`
	Chain []string `json:"chain"`
}

// ExampleJSON is a documented instance file: 6 nodes, a bidirectional
// ring with one chord, two functions with two hosts each, two flows. Keys:
//
//	nodes     number of nodes, ids 0..nodes-1
//	links     directed links {from, to, cap}; cap = C_ij > 0 in rate units
//	functions {name, hosts}; hosts = V_f, the nodes that can run f
//	node_cap  mu_i per node (length nodes); > 0 at every host
//	flows     {src, dst, rate, chain}; rate = lambda(k) > 0; chain = F(k),
//	          function names in processing order, no repeats
//
// Unknown keys are errors. YAML users convert to JSON first (YAML is a
// superset of this JSON form).
const ExampleJSON = `{
  "nodes": 6,
  "links": [
    {"from": 0, "to": 1, "cap": 4}, {"from": 1, "to": 0, "cap": 4},
    {"from": 1, "to": 2, "cap": 4}, {"from": 2, "to": 1, "cap": 4},
    {"from": 2, "to": 3, "cap": 4}, {"from": 3, "to": 2, "cap": 4},
    {"from": 3, "to": 4, "cap": 4}, {"from": 4, "to": 3, "cap": 4},
    {"from": 4, "to": 5, "cap": 4}, {"from": 5, "to": 4, "cap": 4},
    {"from": 5, "to": 0, "cap": 4}, {"from": 0, "to": 5, "cap": 4},
    {"from": 1, "to": 4, "cap": 4}, {"from": 4, "to": 1, "cap": 4}
  ],
  "functions": [
    {"name": "firewall", "hosts": [1, 4]},
    {"name": "nat", "hosts": [2, 5]}
  ],
  "node_cap": [0, 3, 3, 0, 3, 3],
  "flows": [
    {"src": 0, "dst": 3, "rate": 2, "chain": ["firewall", "nat"]},
    {"src": 3, "dst": 0, "rate": 1, "chain": ["firewall", "nat"]}
  ]
}`

// DecodeInstance decodes and validates an instance from its JSON file
// form (see ExampleJSON). The caller reads the file.
func DecodeInstance(data []byte) (*Instance, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var fi fileInstance
	if err := dec.Decode(&fi); err != nil {
		return nil, fmt.Errorf("slicing: decode instance: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("slicing: decode instance: trailing data after the instance object")
	}
	inst := &Instance{Nodes: fi.Nodes, Links: fi.Links, Functions: fi.Functions, NodeCap: fi.NodeCap}
	byName := make(map[string]int, len(fi.Functions))
	for f, fn := range fi.Functions {
		if fn.Name == "" {
			return nil, fmt.Errorf("slicing: decode instance: function %d has no name", f)
		}
		if _, dup := byName[fn.Name]; dup {
			return nil, fmt.Errorf("slicing: decode instance: function name %q is used twice", fn.Name)
		}
		byName[fn.Name] = f
	}
	for k, fl := range fi.Flows {
		chain := make([]int, len(fl.Chain))
		for m, name := range fl.Chain {
			f, ok := byName[name]
			if !ok {
				return nil, fmt.Errorf("slicing: decode instance: flow %d: chain position %d names unknown function %q", k, m, name)
			}
			chain[m] = f
		}
		inst.Flows = append(inst.Flows, Flow{Src: fl.Src, Dst: fl.Dst, Rate: fl.Rate, Chain: chain})
	}
	if err := inst.Validate(); err != nil {
		return nil, err
	}
	return inst, nil
}

// EncodeJSON returns the file form of the instance (chains by name),
// which DecodeInstance reads back.
func (in *Instance) EncodeJSON() ([]byte, error) {
	fi := fileInstance{Nodes: in.Nodes, Links: in.Links, Functions: in.Functions, NodeCap: in.NodeCap}
	for _, fl := range in.Flows {
		ff := fileFlow{Src: fl.Src, Dst: fl.Dst, Rate: fl.Rate}
		for _, f := range fl.Chain {
			ff.Chain = append(ff.Chain, in.Functions[f].Name)
		}
		fi.Flows = append(fi.Flows, ff)
	}
	return json.MarshalIndent(fi, "", "  ")
}

// Validate checks that the instance is consistent and passes the
// necessary conditions for feasibility, and names the node, link,
// function or flow at fault:
//
//   - at least 2 nodes; links between distinct existing nodes, at most one
//     per direction, with finite capacity > 0; the network weakly connected;
//   - every function has a name (unique) and a non-empty ascending set of
//     existing hosts, each with NodeCap > 0; NodeCap has one finite value
//     >= 0 per node;
//   - every flow has distinct existing endpoints, a finite rate > 0 and a
//     non-empty chain of existing functions without repeats;
//   - every flow can be served: some host sequence of its chain is
//     reachable hop by hop from S(k) to D(k); its rate fits the out-capacity
//     of S(k) and the in-capacity of D(k); and every function's hosts have
//     the capacity for the total rate of the flows that need it.
//
// Passing Validate does not prove the LP feasible (capacities are shared
// across flows); SolveLP reports the remaining cases.
func (in *Instance) Validate() error {
	if in.Nodes < 2 {
		return fmt.Errorf("slicing: instance has %d nodes, need at least 2", in.Nodes)
	}
	if len(in.NodeCap) != in.Nodes {
		return fmt.Errorf("slicing: node_cap has %d values for %d nodes", len(in.NodeCap), in.Nodes)
	}
	for i, c := range in.NodeCap {
		if !(c >= 0) || math.IsInf(c, 0) {
			return fmt.Errorf("slicing: node %d: node_cap %v must be finite and >= 0", i, c)
		}
	}
	seen := make(map[[2]int]bool, len(in.Links))
	outCap := make([]float64, in.Nodes)
	inCap := make([]float64, in.Nodes)
	for e, l := range in.Links {
		if l.From < 0 || l.From >= in.Nodes || l.To < 0 || l.To >= in.Nodes {
			return fmt.Errorf("slicing: link %d (%d->%d): endpoint outside [0, %d)", e, l.From, l.To, in.Nodes)
		}
		if l.From == l.To {
			return fmt.Errorf("slicing: link %d (%d->%d) is a self-loop", e, l.From, l.To)
		}
		if seen[[2]int{l.From, l.To}] {
			return fmt.Errorf("slicing: link %d->%d is listed twice", l.From, l.To)
		}
		seen[[2]int{l.From, l.To}] = true
		if !(l.Cap > 0) || math.IsInf(l.Cap, 0) {
			return fmt.Errorf("slicing: link %d->%d: capacity %v must be finite and > 0", l.From, l.To, l.Cap)
		}
		outCap[l.From] += l.Cap
		inCap[l.To] += l.Cap
	}
	if i := in.weaklyConnected(); i >= 0 {
		return fmt.Errorf("slicing: node %d is not connected to node 0 (the network must be weakly connected)", i)
	}
	names := make(map[string]bool, len(in.Functions))
	for f, fn := range in.Functions {
		if fn.Name == "" {
			return fmt.Errorf("slicing: function %d has no name", f)
		}
		if names[fn.Name] {
			return fmt.Errorf("slicing: function name %q is used twice", fn.Name)
		}
		names[fn.Name] = true
		if len(fn.Hosts) == 0 {
			return fmt.Errorf("slicing: function %q has no host", fn.Name)
		}
		for h, i := range fn.Hosts {
			if i < 0 || i >= in.Nodes {
				return fmt.Errorf("slicing: function %q: host %d outside [0, %d)", fn.Name, i, in.Nodes)
			}
			if h > 0 && i <= fn.Hosts[h-1] {
				return fmt.Errorf("slicing: function %q: hosts must be strictly ascending (node %d)", fn.Name, i)
			}
			if !(in.NodeCap[i] > 0) {
				return fmt.Errorf("slicing: node %d hosts function %q but has node_cap %v", i, fn.Name, in.NodeCap[i])
			}
		}
	}
	if len(in.Flows) == 0 {
		return fmt.Errorf("slicing: instance has no flow")
	}
	demand := make([]float64, len(in.Functions))
	for k, fl := range in.Flows {
		if fl.Src < 0 || fl.Src >= in.Nodes || fl.Dst < 0 || fl.Dst >= in.Nodes {
			return fmt.Errorf("slicing: flow %d: endpoint outside [0, %d)", k, in.Nodes)
		}
		if fl.Src == fl.Dst {
			return fmt.Errorf("slicing: flow %d: source and destination are both node %d", k, fl.Src)
		}
		if !(fl.Rate > 0) || math.IsInf(fl.Rate, 0) {
			return fmt.Errorf("slicing: flow %d: rate %v must be finite and > 0", k, fl.Rate)
		}
		if len(fl.Chain) == 0 {
			return fmt.Errorf("slicing: flow %d has an empty function chain", k)
		}
		for m, f := range fl.Chain {
			if f < 0 || f >= len(in.Functions) {
				return fmt.Errorf("slicing: flow %d: chain position %d: function %d does not exist", k, m, f)
			}
			if slices.Contains(fl.Chain[:m], f) {
				return fmt.Errorf("slicing: flow %d: function %q appears twice in its chain", k, in.Functions[f].Name)
			}
			demand[f] += fl.Rate
		}
		if fl.Rate > outCap[fl.Src]*(1+1e-12) {
			return fmt.Errorf("slicing: flow %d: rate %v exceeds the out-capacity %v of its source node %d", k, fl.Rate, outCap[fl.Src], fl.Src)
		}
		if fl.Rate > inCap[fl.Dst]*(1+1e-12) {
			return fmt.Errorf("slicing: flow %d: rate %v exceeds the in-capacity %v of its destination node %d", k, fl.Rate, inCap[fl.Dst], fl.Dst)
		}
		if m, ok := in.servable(k); !ok {
			return fmt.Errorf("slicing: flow %d: no route from node %d through the hosts of its chain to node %d (stuck before chain position %d)", k, fl.Src, fl.Dst, m)
		}
	}
	for f, fn := range in.Functions {
		var c float64
		for _, i := range fn.Hosts {
			c += in.NodeCap[i]
		}
		if demand[f] > c*(1+1e-12) {
			return fmt.Errorf("slicing: function %q: flows need rate %v but its hosts have node_cap %v in total", fn.Name, demand[f], c)
		}
	}
	return nil
}

// servable reports whether flow k has a host sequence reachable hop by
// hop; if not, it returns the chain position (l+1 for the destination)
// at which the layered search found no reachable node.
func (in *Instance) servable(k int) (int, bool) {
	fl := in.Flows[k]
	adj := make([][]int, in.Nodes)
	for _, l := range in.Links {
		adj[l.From] = append(adj[l.From], l.To)
	}
	cur := []int{fl.Src}
	for m := 0; m <= len(fl.Chain); m++ {
		reach := make([]bool, in.Nodes)
		queue := append([]int(nil), cur...)
		for _, i := range cur {
			reach[i] = true
		}
		for len(queue) > 0 {
			i := queue[0]
			queue = queue[1:]
			for _, j := range adj[i] {
				if !reach[j] {
					reach[j] = true
					queue = append(queue, j)
				}
			}
		}
		var next []int
		if m == len(fl.Chain) {
			if reach[fl.Dst] {
				return 0, true
			}
			return m + 1, false
		}
		for _, i := range in.Functions[fl.Chain[m]].Hosts {
			if reach[i] {
				next = append(next, i)
			}
		}
		if len(next) == 0 {
			return m + 1, false
		}
		cur = next
	}
	return 0, true
}

// weaklyConnected returns -1 if the network is weakly connected, else a
// node that node 0 cannot reach ignoring link directions.
func (in *Instance) weaklyConnected() int {
	adj := make([][]int, in.Nodes)
	for _, l := range in.Links {
		adj[l.From] = append(adj[l.From], l.To)
		adj[l.To] = append(adj[l.To], l.From)
	}
	seen := make([]bool, in.Nodes)
	seen[0] = true
	stack := []int{0}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, j := range adj[i] {
			if !seen[j] {
				seen[j] = true
				stack = append(stack, j)
			}
		}
	}
	for i, ok := range seen {
		if !ok {
			return i
		}
	}
	return -1
}
