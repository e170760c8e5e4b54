package tsp

// MeanUnits are the constants of the hyper-cleaning comparison expressed
// for a lower level normalized as a mean over the m training samples, the
// normalization of the authors' (Shen and Chen's) code, on which the
// paper's tau = 0.01 and the baselines' schedules are stated. The problem
// itself keeps the paper's sum (g_sum = m g_mean); the experiment's
// Convert (experiments/tsp) and the scenario key units: mean give the
// equivalent constants for it.
type MeanUnits struct {
	Alpha, Beta float64 // x and y steps (all methods)
	Eta         float64 // z / theta / omega / y_hat steps (all methods)
	Gamma       float64 // Moreau parameter (TSP, MEHA)
	Tau         float64 // TSP's dual step
	Mu, Theta   float64 // TSP's damping and averaging
	Omega, P    float64 // TSP's anchor smoothing and proximal weight
	Delta       float64 // TSP's slack
	PBGDGamma   float64 // V-PBGD's final penalty gamma_max (ramp from 0)
	PBGDRamp    float64 // fraction of the rounds over which V-PBGD ramps gamma
	PBGDInner   int     // V-PBGD's inner steps T
	BOMEInner   int     // BOME's inner steps T
	BOMEEta     float64 // BOME's eta in phi_k = eta ||grad q||^2
	MEHAC       float64 // MEHA's c in c_k = c (k+1)^power
	MEHAPower   float64 // MEHA's power
}

// DefaultMeanUnits are the constants of the hyper-cleaning comparison
// (experiments/tsp) and the registered algorithm's defaults. The paper
// gives tau = 0.01 and p = 1 and says all methods share step sizes and start
// points without giving them; the rest is chosen here: alpha = 1 (the
// largest with alpha p < 2, so that the proximal x step is stable), beta =
// 0.1 and V-PBGD's gamma_max = 0.2 with T = 1 (the defaults of Shen and
// Chen's hyper-cleaning code), eta = 0.05, gamma = 1, omega = 0.5,
// mu = theta = 1 (full gradients need no averaging), delta = 0, BOME's
// T = 5 and eta = 0.5, MEHA's c_k = 0.02 (k+1)^0.3.
func DefaultMeanUnits() MeanUnits {
	return MeanUnits{
		Alpha: 1, Beta: 0.1, Eta: 0.05, Gamma: 1, Tau: 0.01, Mu: 1, Theta: 1, Omega: 0.5, P: 1, Delta: 0,
		PBGDGamma: 0.2, PBGDRamp: 0.75, PBGDInner: 1, BOMEInner: 5, BOMEEta: 0.5, MEHAC: 0.02, MEHAPower: 0.3,
	}
}
