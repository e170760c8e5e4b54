package graph

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ReadEdgeList reads a graph on agents 0..n-1 from a text edge list, one
// edge per line as "i j" (p_ij = 1) or "i j p" with p in (0, 1]. Fields are
// separated by white space; '#' starts a comment that runs to the end of
// the line; blank lines are skipped. Errors name the line number and what
// was wrong with it.
func ReadEdgeList(r io.Reader, n int) (*Graph, error) {
	if n < 1 {
		return nil, fmt.Errorf("graph: edge list: number of agents %d: must be at least 1", n)
	}
	var edges []Edge
	first := make(map[[2]int]int) // pair -> line of its first appearance
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if c := strings.IndexByte(text, '#'); c >= 0 {
			text = text[:c]
		}
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		e, err := parseEdge(fields, n)
		if err != nil {
			return nil, fmt.Errorf("graph: edge list line %d: %w", line, err)
		}
		key := [2]int{e.I, e.J}
		if prev, dup := first[key]; dup {
			return nil, fmt.Errorf("graph: edge list line %d: edge {%d,%d} already listed on line %d", line, e.I, e.J, prev)
		}
		first[key] = line
		edges = append(edges, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("graph: edge list after line %d: %w", line, err)
	}
	return build("edge list", n, edges)
}

// parseEdge parses the fields "i j [p]" of one edge-list line.
func parseEdge(fields []string, n int) (Edge, error) {
	if len(fields) != 2 && len(fields) != 3 {
		return Edge{}, fmt.Errorf("want 2 or 3 fields \"i j [p]\", got %d", len(fields))
	}
	var ids [2]int
	for k := range ids {
		id, err := strconv.Atoi(fields[k])
		if err != nil {
			return Edge{}, fmt.Errorf("agent id %q is not an integer", fields[k])
		}
		if id < 0 || id >= n {
			return Edge{}, fmt.Errorf("agent id %d out of range [0, %d)", id, n)
		}
		ids[k] = id
	}
	if ids[0] == ids[1] {
		return Edge{}, fmt.Errorf("self loop at agent %d", ids[0])
	}
	p := 1.0
	if len(fields) == 3 {
		v, err := strconv.ParseFloat(fields[2], 64)
		if err != nil {
			return Edge{}, fmt.Errorf("presence probability %q is not a number", fields[2])
		}
		if !(v > 0 && v <= 1) {
			return Edge{}, fmt.Errorf("presence probability %v must be in (0, 1]", v)
		}
		p = v
	}
	i, j := ids[0], ids[1]
	if i > j {
		i, j = j, i
	}
	return Edge{I: i, J: j, P: p}, nil
}
