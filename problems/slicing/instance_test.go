package slicing

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeExampleRoundTrip(t *testing.T) {
	in, err := DecodeInstance([]byte(ExampleJSON))
	if err != nil {
		t.Fatal(err)
	}
	if in.Nodes != 6 || len(in.Links) != 14 || len(in.Flows) != 2 || len(in.Functions) != 2 {
		t.Fatalf("decoded %d nodes, %d links, %d flows, %d functions", in.Nodes, len(in.Links), len(in.Flows), len(in.Functions))
	}
	if got := in.Flows[0].Chain; !reflect.DeepEqual(got, []int{0, 1}) {
		t.Fatalf("flow 0 chain %v, want [0 1]", got)
	}
	data, err := in.EncodeJSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeInstance(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, back) {
		t.Fatalf("round trip changed the instance:\n%+v\n%+v", in, back)
	}
}

// TestValidateNamesTheCulprit breaks the example one way at a time and
// checks the error names the node, link, function or flow at fault.
func TestValidateNamesTheCulprit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(in *Instance)
		parts []string
	}{
		{"self-loop", func(in *Instance) { in.Links[0].To = 0 }, []string{"link 0", "self-loop"}},
		{"duplicate link", func(in *Instance) { in.Links[1] = Link{From: 0, To: 1, Cap: 1} }, []string{"link 0->1", "twice"}},
		{"zero capacity", func(in *Instance) { in.Links[2].Cap = 0 }, []string{"link 1->2", "capacity"}},
		{"host without capacity", func(in *Instance) { in.NodeCap[4] = 0 }, []string{"node 4", "firewall"}},
		{"unknown host", func(in *Instance) { in.Functions[1].Hosts = []int{2, 9} }, []string{"nat", "host 9"}},
		{"source is destination", func(in *Instance) { in.Flows[1].Dst = 3 }, []string{"flow 1", "node 3"}},
		{"negative rate", func(in *Instance) { in.Flows[0].Rate = -1 }, []string{"flow 0", "rate"}},
		{"repeated function", func(in *Instance) { in.Flows[0].Chain = []int{1, 1} }, []string{"flow 0", "nat", "twice"}},
		{"rate above source capacity", func(in *Instance) { in.Flows[0].Rate = 9 }, []string{"flow 0", "source node 0"}},
		{"function overloaded", func(in *Instance) { in.NodeCap[1], in.NodeCap[4] = 1, 1 }, []string{"firewall", "node_cap"}},
		{"disconnected", func(in *Instance) {
			in.Nodes = 7
			in.NodeCap = append(in.NodeCap, 0)
		}, []string{"node 6", "connected"}},
		{"unreachable destination", func(in *Instance) {
			// Only links into node 3 leave; nothing enters it.
			var keep []Link
			for _, l := range in.Links {
				if l.To != 3 {
					keep = append(keep, l)
				}
			}
			in.Links = keep
		}, []string{"flow 0", "node 3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := DecodeInstance([]byte(ExampleJSON))
			if err != nil {
				t.Fatal(err)
			}
			tc.edit(in)
			err = in.Validate()
			if err == nil {
				t.Fatal("Validate accepted a broken instance")
			}
			for _, p := range tc.parts {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("error %q does not mention %q", err, p)
				}
			}
		})
	}
}

func TestDecodeRejects(t *testing.T) {
	for _, tc := range []struct{ name, data, part string }{
		{"unknown key", `{"nodes": 2, "colour": 1}`, "colour"},
		{"unknown function", strings.Replace(ExampleJSON, `["firewall", "nat"]}`, `["firewall", "dpi"]}`, 1), `"dpi"`},
		{"trailing", ExampleJSON + "{}", "trailing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeInstance([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.part) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.part)
			}
		})
	}
}

// TestLPInfeasible shrinks capacities until no routing fits: Validate's
// necessary conditions pass, the LP (both forms) reports ErrInfeasible.
func TestLPInfeasible(t *testing.T) {
	in, err := DecodeInstance([]byte(ExampleJSON))
	if err != nil {
		t.Fatal(err)
	}
	for e := range in.Links {
		in.Links[e].Cap = 1.5 // flow 0 (rate 2) must split over both links out of node 0...
	}
	in.Flows[0].Rate = 2.9 // ... and cannot: 2.9 > 1.5 + 1.5 minus what flow 1 needs into node 0
	in.Flows[1].Rate = 1.2
	if err := in.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	md, err := NewModel(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SolveLP(md); !errors.Is(err, ErrInfeasible) {
		t.Errorf("SolveLP: %v, want ErrInfeasible", err)
	}
	if _, err := PathLP(md); !errors.Is(err, ErrInfeasible) {
		t.Errorf("PathLP: %v, want ErrInfeasible", err)
	}
}

func TestGenerateDeterministicAndValid(t *testing.T) {
	a, err := Generate(Medium, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(Medium, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different instances")
	}
	c, err := Generate(Medium, 8)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a, c) {
		t.Fatal("different seeds, same instance")
	}
	for _, fl := range a.Flows {
		if l := len(fl.Chain); l < 2 || l > 4 {
			t.Fatalf("chain length %d outside [2, 4]", l)
		}
	}
	if a.Nodes != 30 || len(a.Flows) != 10 {
		t.Fatalf("%d nodes, %d flows", a.Nodes, len(a.Flows))
	}
}

// TestLPForms checks the arc-form LP (dense simplex) against the path
// form (column generation) on random small instances, checks that the
// arc solution is feasible, that its objective is g at its point, that
// some capacity binds, and that the binary optimum is no better than
// the LP and is itself a feasible binary point.
func TestLPForms(t *testing.T) {
	opt := GenOptions{Nodes: 10, Flows: 3, MinChain: 2, MaxChain: 2}
	tight := 0
	for seed := uint64(1); seed <= 6; seed++ {
		in, err := Generate(opt, seed)
		if err != nil {
			t.Fatal(err)
		}
		md, err := NewModel(in)
		if err != nil {
			t.Fatal(err)
		}
		arc, err := SolveLP(md)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		path, err := PathLP(md)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if math.Abs(arc.Objective-path) > 1e-7*arc.Objective {
			t.Errorf("seed %d: arc LP %v, path LP %v", seed, arc.Objective, path)
		}
		ms, err := Evaluate(md, arc.W)
		if err != nil {
			t.Fatal(err)
		}
		if ms.Violation > 1e-8 || math.Abs(ms.Objective-arc.Objective) > 1e-9*arc.Objective {
			t.Errorf("seed %d: LP point violation %v, g %v vs objective %v", seed, ms.Violation, ms.Objective, arc.Objective)
		}
		if bindsSome(md, arc.W) {
			tight++
		}
		if seed > 1 {
			continue // enumeration is the slow part: one instance
		}
		bin, err := BinaryOptimum(md, 1000)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if bin.Objective < arc.Objective-1e-9 {
			t.Errorf("seed %d: binary optimum %v below the LP bound %v", seed, bin.Objective, arc.Objective)
		}
		bm, _ := Evaluate(md, bin.W)
		if !bm.Binary || bm.Violation > 1e-8 {
			t.Errorf("seed %d: binary optimum point: binary %v violation %v", seed, bm.Binary, bm.Violation)
		}
		pf, err := PathFixed(md, bin.Place)
		if err != nil || math.Abs(pf-bin.Objective) > 1e-7*bin.Objective {
			t.Errorf("seed %d: PathFixed of the optimal placement %v (%v), SolveFixed %v", seed, pf, err, bin.Objective)
		}
	}
	if tight < 4 {
		t.Errorf("only %d of 6 generated instances have a binding capacity at the LP optimum", tight)
	}
}

// bindsSome reports whether a link or node capacity is tight at w.
func bindsSome(md *Model, w []float64) bool {
	in := md.Inst
	for i := 0; i < in.Nodes; i++ {
		for a, e := range md.OutLink[i] {
			var load float64
			for k, fl := range in.Flows {
				for s := 0; s <= len(fl.Chain); s++ {
					load += fl.Rate * w[md.U(i, a, k, s)]
				}
			}
			if load >= in.Links[e].Cap*(1-1e-7) {
				return true
			}
		}
		if md.NodeSlack(i) >= 0 && md.nodeLoad(w, i) >= in.NodeCap[i]*(1-1e-7) {
			return true
		}
	}
	return false
}

func TestWriteDOT(t *testing.T) {
	in, err := DecodeInstance([]byte(ExampleJSON))
	if err != nil {
		t.Fatal(err)
	}
	md, err := NewModel(in)
	if err != nil {
		t.Fatal(err)
	}
	bin, err := BinaryOptimum(md, 100)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteDOT(&buf, md, bin.W); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"digraph slice {", `n1 [shape=box`, `firewall(0)`, `nat(1)`, `S(0)`, `D(1)`, "n0 -> n1", "style=dotted"} {
		if !strings.Contains(out, want) {
			t.Errorf("DOT output lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasSuffix(out, "}\n") {
		t.Errorf("DOT output is not closed")
	}
}
