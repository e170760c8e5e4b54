package slicing

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// dotRateTol is the link rate below which a link counts as unused in the
// picture.
const dotRateTol = 1e-6

// WriteDOT writes the slice at w (Model order) as a Graphviz digraph to
// wr. Every node is drawn (function nodes as boxes), labelled with its id
// and the chain positions it runs, "f(k)" for x_i(k,m) >= 1 - BinaryTol
// and "f(k)=0.42" for a fractional x_i(k,m) > BinaryTol; source and
// destination nodes list "S(k)" and "D(k)". A link that carries total rate
// r_ij = sum_k lambda(k) sum_s u_ij(k,s) > 1e-6 is solid, labelled
// "r/C_ij" and drawn red when r_ij >= C_ij (1 - 1e-6) (a tight link);
// unused links are dotted grey.
func WriteDOT(wr io.Writer, md *Model, w []float64) error {
	if len(w) != md.N {
		return fmt.Errorf("slicing: dot: point has %d values, model %d", len(w), md.N)
	}
	in := md.Inst
	labels := make([][]string, in.Nodes)
	for k, fl := range in.Flows {
		labels[fl.Src] = append(labels[fl.Src], fmt.Sprintf("S(%d)", k))
		labels[fl.Dst] = append(labels[fl.Dst], fmt.Sprintf("D(%d)", k))
		for m, f := range fl.Chain {
			for h, c := range md.Groups[md.Group(k, m+1)] {
				i := md.GroupHosts[md.Group(k, m+1)][h]
				switch x := w[c]; {
				case x >= 1-BinaryTol:
					labels[i] = append(labels[i], fmt.Sprintf("%s(%d)", in.Functions[f].Name, k))
				case x > BinaryTol:
					labels[i] = append(labels[i], fmt.Sprintf("%s(%d)=%.2f", in.Functions[f].Name, k, x))
				}
			}
		}
	}
	host := make([]bool, in.Nodes)
	for _, fn := range in.Functions {
		for _, i := range fn.Hosts {
			host[i] = true
		}
	}
	b := bufio.NewWriter(wr)
	fmt.Fprintln(b, "digraph slice {")
	fmt.Fprintln(b, "  node [fontsize=10];")
	fmt.Fprintln(b, "  edge [fontsize=8];")
	for i := 0; i < in.Nodes; i++ {
		shape := "ellipse"
		if host[i] {
			shape = "box"
		}
		label := fmt.Sprint(i)
		if len(labels[i]) > 0 {
			label += `\n` + strings.Join(labels[i], `\n`)
		}
		fmt.Fprintf(b, "  n%d [shape=%s, label=%q];\n", i, shape, label)
	}
	for i := 0; i < in.Nodes; i++ {
		for a, e := range md.OutLink[i] {
			var r float64
			for k, fl := range in.Flows {
				for s := 0; s <= len(fl.Chain); s++ {
					r += fl.Rate * w[md.U(i, a, k, s)]
				}
			}
			c := in.Links[e].Cap
			switch {
			case r <= dotRateTol:
				fmt.Fprintf(b, "  n%d -> n%d [style=dotted, color=grey];\n", i, md.Out[i][a])
			case r >= c*(1-1e-6):
				fmt.Fprintf(b, "  n%d -> n%d [color=red, penwidth=2, label=\"%.3g/%.3g\"];\n", i, md.Out[i][a], r, c)
			default:
				fmt.Fprintf(b, "  n%d -> n%d [penwidth=1.5, label=\"%.3g/%.3g\"];\n", i, md.Out[i][a], r, c)
			}
		}
	}
	fmt.Fprintln(b, "}")
	return b.Flush()
}
