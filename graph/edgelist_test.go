package graph

import (
	"reflect"
	"strings"
	"testing"
)

func TestReadEdgeList(t *testing.T) {
	in := `# a 4-cycle with one weak chord
0 1
1 2 0.5   # trailing comment

3 2 0.25
  0	3
0 2 1
`
	g, err := ReadEdgeList(strings.NewReader(in), 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []Edge{{0, 1, 1}, {0, 2, 1}, {0, 3, 1}, {1, 2, 0.5}, {2, 3, 0.25}}
	if !reflect.DeepEqual(g.Edges, want) {
		t.Fatalf("edges %v, want %v", g.Edges, want)
	}
}

func TestReadEdgeListErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want []string
	}{
		{"fields", "0 1\n0 1 0.5 7\n", 3, []string{"line 2", "got 4"}},
		{"one field", "# c\n\n2\n", 3, []string{"line 3", "got 1"}},
		{"not int", "0 x\n", 3, []string{"line 1", `"x"`, "not an integer"}},
		{"range", "0 1\n1 3\n", 3, []string{"line 2", "agent id 3", "[0, 3)"}},
		{"negative", "-1 2\n", 3, []string{"line 1", "agent id -1"}},
		{"self loop", "1 1\n", 3, []string{"line 1", "self loop"}},
		{"bad p", "0 1 abc\n", 3, []string{"line 1", `"abc"`, "not a number"}},
		{"p zero", "0 1\n0 2 0\n", 3, []string{"line 2", "(0, 1]"}},
		{"p>1", "0 1 1.5\n", 3, []string{"line 1", "1.5"}},
		{"duplicate", "0 1\n1 2\n1 0 0.5\n", 3, []string{"line 3", "{0,1}", "line 1"}},
		{"n", "0 1\n", 0, []string{"at least 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := ReadEdgeList(strings.NewReader(tc.in), tc.n)
			if err == nil || g != nil {
				t.Fatalf("got (%v, %v), want an error", g, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
