package graph

// EdgeLayout is the layout of a payload that agent i sends, the same to
// every neighbour, carrying one part per incident edge in ascending order
// of the neighbour m: owned values for an edge i owns (i < m, i writes
// it) and 1 value for an edge it reads. It returns the offset of edge
// {i, j}'s part (-1 if j is not a neighbour of i) and the payload's
// length.
func (g *Graph) EdgeLayout(i, j, owned int) (off, size int) {
	off = -1
	for _, m := range g.Neighbors(i) {
		if m == j {
			off = size
		}
		if i < m {
			size += owned
		} else {
			size++
		}
	}
	return off, size
}
