package graph

import (
	"fmt"
	"math"
	"strings"
)

// Stats summarises a graph: size, degrees, distances, presence
// probabilities and the Laplacian spectra that set the ALM's constants.
type Stats struct {
	N, Edges               int
	MinDegree, MaxDegree   int
	MeanDegree             float64 // 2|E| / N
	Diameter               int     // -1 if not connected
	Connected              bool
	MeanP, MinP, MaxP      float64 // over edges; 0 without edges
	Lambda2, LambdaMax     float64 // of L_1 (unit weights)
	Lambda2P, LambdaMaxP   float64 // of L_p = E[W^T W]
	Lambda2P2, LambdaMaxP2 float64 // of L_{p^2} = E[W]^T E[W]
	NormA                  float64 // ||E[W]||_2 = sqrt(LambdaMaxP2)
	SigmaMinPlus           float64 // sqrt(Lambda2P2)
	SpectralGap            float64 // Lambda2P2 / LambdaMaxP2 = (sigma_min+ / ||E[W]||)^2; 0 without edges
}

// Stats computes the summary of g; it fails only if an eigendecomposition
// does not converge.
func (g *Graph) Stats() (Stats, error) {
	s := Stats{
		N:          g.N,
		Edges:      len(g.Edges),
		MinDegree:  g.MinDegree(),
		MaxDegree:  g.MaxDegree(),
		MeanDegree: 2 * float64(len(g.Edges)) / float64(g.N),
		Diameter:   g.Diameter(),
		Connected:  g.Connected(),
	}
	if len(g.Edges) > 0 {
		s.MinP, s.MaxP = g.Edges[0].P, g.Edges[0].P
		for _, e := range g.Edges {
			s.MeanP += e.P
			s.MinP = min(s.MinP, e.P)
			s.MaxP = max(s.MaxP, e.P)
		}
		s.MeanP /= float64(len(g.Edges))
	}
	for _, sp := range []struct {
		w       Weight
		l2, lmx *float64
		name    string
	}{
		{Unit, &s.Lambda2, &s.LambdaMax, "L_1"},
		{ByP, &s.Lambda2P, &s.LambdaMaxP, "L_p"},
		{ByP2, &s.Lambda2P2, &s.LambdaMaxP2, "L_{p^2}"},
	} {
		ev, err := g.Spectrum(sp.w)
		if err != nil {
			return Stats{}, fmt.Errorf("graph: stats: spectrum of %s: %w", sp.name, err)
		}
		if len(ev) > 1 {
			*sp.l2 = clampZero(ev[1])
		}
		*sp.lmx = clampZero(ev[len(ev)-1])
	}
	s.NormA = math.Sqrt(s.LambdaMaxP2)
	s.SigmaMinPlus = math.Sqrt(s.Lambda2P2)
	if s.LambdaMaxP2 > 0 {
		s.SpectralGap = s.Lambda2P2 / s.LambdaMaxP2
	}
	return s, nil
}

// String formats the summary as aligned "name  value" lines.
func (s Stats) String() string {
	var b strings.Builder
	row := func(name, format string, v ...any) {
		fmt.Fprintf(&b, "%-28s "+format+"\n", append([]any{name}, v...)...)
	}
	row("agents N", "%d", s.N)
	row("edges |E|", "%d", s.Edges)
	row("degree min/mean/max", "%d / %.3g / %d", s.MinDegree, s.MeanDegree, s.MaxDegree)
	row("connected", "%t", s.Connected)
	row("diameter", "%d", s.Diameter)
	row("p_ij min/mean/max", "%.4g / %.4g / %.4g", s.MinP, s.MeanP, s.MaxP)
	row("lambda_2, lambda_max (L_1)", "%.6g, %.6g", s.Lambda2, s.LambdaMax)
	row("lambda_2, lambda_max (L_p)", "%.6g, %.6g", s.Lambda2P, s.LambdaMaxP)
	row("lambda_2, lambda_max (L_p2)", "%.6g, %.6g", s.Lambda2P2, s.LambdaMaxP2)
	row("||E[W]||_2", "%.6g", s.NormA)
	row("sigma_min+(E[W])", "%.6g", s.SigmaMinPlus)
	row("spectral gap (L_p2)", "%.6g", s.SpectralGap)
	return b.String()
}
