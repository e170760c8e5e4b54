package golden

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/consensus/dadmm"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/consensus/problem"
	"github.com/consim/consim/graph"
)

// The golden bits below were recorded from the code as it stood when they
// were added (amd64, GOAMD64=v1); the D-ADMM entries again after commit
// d66d110 (an agent without a live edge keeps x_i and a_i). They pin today's behaviour: a
// change to them is a change to every run's bits, so it must be deliberate
// and announced, never a routine test update. On a mismatch the test
// prints the bits it got in the table's syntax.

const (
	nAgents = 4
	dim     = 5
	rounds  = 50
	seed    = 20240611
)

// topology returns G(4, 0.9) conditioned on connectivity with presence
// probabilities uniform on [0.5, 0.9), both drawn from the run seed.
func topology(t *testing.T) *graph.Graph {
	t.Helper()
	g, err := graph.ErdosRenyi(nAgents, 0.9, seed)
	if err != nil {
		t.Fatal(err)
	}
	g, err = g.WithRandomP(0.5, 0.9, seed)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// locals returns the agents' local objectives of a generated problem.
func locals(t *testing.T, kind string) []problem.Local {
	t.Helper()
	spec := problem.Spec{Kind: kind, Dim: dim, SamplesPerAgent: 16, Batch: 3, Noise: 0.1, Reg: 0.05, Heterogeneity: 0.5}
	if kind == problem.KindNonconvex {
		spec.Scale, spec.Outliers = 1, 0.1
	}
	fs := make([]problem.Local, nAgents)
	for i := range fs {
		f, err := problem.NewLocal(spec, nAgents, seed, i)
		if err != nil {
			t.Fatal(err)
		}
		fs[i] = f
	}
	return fs
}

// start returns agent i's initial point, from graph.StreamInit.
func start(i int) []float64 {
	rng := graph.StreamInit.Rand(seed, 0, uint64(i))
	x := make([]float64, dim)
	for k := range x {
		x[k] = 2*rng.Float64() - 1
	}
	return x
}

// run drives the agents for rounds rounds in lockstep, with a symmetric
// message loss of 1/10 from graph.StreamLoss, and returns their final
// iterates, concatenated by agent.
func run(t *testing.T, agents []consensus.Agent, x func(i int) []float64) []float64 {
	t.Helper()
	drop := func(r, ph, from, to int) bool {
		return graph.StreamLoss.Phase(ph).Uniform(seed, uint64(r), uint64(min(from, to)), uint64(max(from, to))) < 0.1
	}
	d, err := lockstep.New(agents, lockstep.WithDrop(drop))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Run(0, rounds); err != nil {
		t.Fatal(err)
	}
	var out []float64
	for i := range agents {
		out = append(out, x(i)...)
	}
	return out
}

// almRun runs 4 ALM agents (stochastic gradients, three edge draws per
// round, the edge safeguard) on kind with fixed parameters.
func almRun(t *testing.T, kind string) []float64 {
	return almRunWith(t, kind, func([]problem.Local, *graph.Graph) alm.Params {
		return alm.Params{Eta: 0.3, Tau: 0.05, Rho: 0.5, Mu: 0.2, Beta: 0.2, My: 50}
	})
}

// almPractical runs ALM with the practical preset, whose parameters come
// from L_f (the agents' Gram spectra) and the Laplacian spectra of the
// graph (alm.ConstantsFor).
func almPractical(t *testing.T, kind string) []float64 {
	return almRunWith(t, kind, func(fs []problem.Local, g *graph.Graph) alm.Params {
		c, err := alm.ConstantsFor(g, fs)
		if err != nil {
			t.Fatal(err)
		}
		return alm.Practical(c, rounds)
	})
}

func almRunWith(t *testing.T, kind string, params func([]problem.Local, *graph.Graph) alm.Params) []float64 {
	g := topology(t)
	proc := graph.Bernoulli{G: g, Seed: seed}
	fs := locals(t, kind)
	cfg := alm.Config{
		Params:    params(fs, g),
		Safeguard: alm.SafeguardEdge,
		Seed:      seed,
		Rounds:    rounds,
	}
	agents := make([]*alm.Agent, nAgents)
	as := make([]consensus.Agent, nAgents)
	for i := range agents {
		a, err := alm.NewAgent(cfg, i, g, proc, fs[i], problem.Box{Lo: -3, Hi: 3}, start(i))
		if err != nil {
			t.Fatal(err)
		}
		agents[i], as[i] = a, a
	}
	return run(t, as, func(i int) []float64 { return append(agents[i].X(), agents[i].Z()...) })
}

// dadmmRun runs 4 linearized D-ADMM agents (stochastic gradients, fixed
// tau) on kind.
func dadmmRun(t *testing.T, kind string) []float64 { return dadmmRunWith(t, kind, 0.3) }

// dadmmDefaultTau runs D-ADMM with the default steps tau_i = N/L_i, from
// the agents' Gram spectra.
func dadmmDefaultTau(t *testing.T, kind string) []float64 { return dadmmRunWith(t, kind, 0) }

func dadmmRunWith(t *testing.T, kind string, tau float64) []float64 {
	g := topology(t)
	proc := graph.Bernoulli{G: g, Seed: seed}.Specialize()
	cfg := dadmm.Config{Method: dadmm.MethodLinearized, C: 0.7, Tau: tau, Seed: seed}
	fs := locals(t, kind)
	agents := make([]*dadmm.Agent, nAgents)
	as := make([]consensus.Agent, nAgents)
	for i := range agents {
		a, err := dadmm.NewAgent(cfg, i, g, proc, fs[i], start(i))
		if err != nil {
			t.Fatal(err)
		}
		agents[i], as[i] = a, a
	}
	return run(t, as, func(i int) []float64 { return append(agents[i].X(), agents[i].Dual()...) })
}

// golden holds the recorded bits of each run: per agent, x_i then z_i
// (ALM) or x_i then a_i (D-ADMM).
var golden = map[string][]uint64{
	"alm/least_squares": {
		0x3fc0f953f1d120a4, 0xbfa14c0a7d885a14, 0xbfd13dec52ed943a, 0xbfc11fca004deda7,
		0x3fcbfc8af51737fd, 0x3fc0b39dd0e4d4a7, 0x3fb76fc49a987dce, 0xbf7e9aedecc67470,
		0x3f909b81080c660f, 0x3fd43cbf99004338, 0x3fe0c41b0db5e02c, 0xbfc29fb2d483d870,
		0x3fc534eb517dfc52, 0x3fc5fd839dfaae37, 0x3fe0170e0f98304a, 0x3fdef9b95df0a619,
		0xbfab68ed563c864c, 0x3f95a8a74271df8a, 0x3fb94e620e11b7b2, 0x3fdf7ab1e93298e7,
		0x3fd12170d8ccd001, 0x3fc2ebc0984e48a2, 0xbfce900df22258f0, 0xbfb8e5c5a7c225dd,
		0x3fd3a47134063262, 0x3fd9644f8aa95d99, 0x3fb4b63f884d9087, 0xbfd384f7d9d87014,
		0xbfbeb208c239806a, 0x3fd8587b9708f428, 0x3fd6f82273f7295d, 0x3fbab096d8b02086,
		0xbf9a9f8b2e9b6117, 0x3fab454a6e250fb8, 0x3fdc05d469481e40, 0x3fc8ebb913c88887,
		0xbfa1d5e30c334ff0, 0xbfc2f2e57a5a998c, 0xbfb320326a30213c, 0x3fd3351f15a30a65,
	},
	"alm/nonconvex_regression": {
		0xbfb030e2e8ab1250, 0xbfa74fd78b133cc0, 0xbfd894e3137a01f5, 0xbfd188f6414f5a5a,
		0x3fce9dd03c5a24e7, 0xbfb0836c0359a726, 0x3fb2f69d36c983ed, 0xbfbc822b59f5eba9,
		0xbfb8e85a1790835b, 0x3fd5922ec20f5c62, 0x3fd60dbce611d2d8, 0xbfc74190fa93daa9,
		0x3fa6b60d475e2124, 0x3f9e6ea50e568405, 0x3fe15cea912789e8, 0x3fd48b6d82fc611b,
		0xbfb6aaf2c47a4f86, 0xbfb746b30104bb66, 0xbfa30b3a8efbd4f8, 0x3fe14f22478d2d4b,
		0x3fac14e0ae3f440a, 0x3fbf6ed609a40f95, 0xbfda5ba3808cef4c, 0xbfcdd6072af0ef32,
		0x3fd761976c30947d, 0x3fc9f7d5bd642f5a, 0x3fabe604eb2570a0, 0xbfdd730b99c02165,
		0xbfcf8f23ed0504fa, 0x3fdc03b0755fe83a, 0x3fc3beb7df4851aa, 0x3fb8c45e984bddca,
		0xbfc65714327193f7, 0xbfb3f59660afc01f, 0x3fdd7595c0afd6f1, 0x3f86ad8cba3d0698,
		0xbfa8ac20bfc84ea6, 0xbfd263c6ae3bb6ca, 0xbfc9efd57b79243e, 0x3fd40eda9690f423,
	},
	"dadmm/least_squares": {
		0x3fec4092eb97d7df, 0x3fb56da625cf317a, 0x3fc8b079bfaca6b5, 0x3fd6686150fcb6d2,
		0x3fd366d1a735d7ca, 0x3fb5a3ecc232a646, 0x3f9e164478d1bc0e, 0xbfacf34acc53d493,
		0x3fb5fd457e0ff152, 0x3faee8c5ba9858cc, 0x3fed72e3854918c1, 0x3fb91ef6cbf5cbc9,
		0x3fc480f19fc42721, 0x3fd4f95a2bb618f2, 0x3fd3071e7473982e, 0x3fa563fc8e8b891a,
		0xbf8d79ddbc24b08a, 0x3f937aff73ba08a2, 0x3f5c91987550cce0, 0xbfa235af94414593,
		0x3fed9a3df92cb898, 0x3fb8505d4eb0704b, 0x3fc5fb20b04af77f, 0x3fd49bfe695ea385,
		0x3fd36d595ac2a258, 0xbfb17b097f9befe7, 0x3f9aa5ade1a2ca4c, 0xbf68c1bb1e5b1152,
		0xbf89edd48226b194, 0xbfa3462e1ffffdd7, 0x3fee031451fcd9d1, 0x3fb6563273df3baf,
		0x3fc68bb357ed8163, 0x3fd56bb03b5198aa, 0x3fd334360c75658c, 0xbfadb5c313b8f5e1,
		0xbfa4ff81be31177c, 0x3fa4c1e6c45c8116, 0xbfb331d14fa05e5c, 0x3f8a4c5fe6a3aa23,
	},
	"dadmm/nonconvex_regression": {
		0x3fd9ef8bd2e34d80, 0x3f9ad1ac1478eca8, 0xbfbe78c4d83086a2, 0x3f95ec4dff914533,
		0x3fd93fe69bd33d06, 0x3f539531532b947e, 0xbf96199c1d4066ee, 0xbfa271447f98dfb2,
		0x3f624f8ac8979dad, 0x3f89e8c846d7ba21, 0x3fdaaaeeae1347ce, 0x3f974d1dc9adb72c,
		0xbfc21e06768ebcbe, 0x3f902b6ae10d7023, 0x3fd8d15439a71363, 0xbf86453ac9ee2d45,
		0x3fa6e9483a0ffaa2, 0x3f989adc548a0ab5, 0x3f8cff9297fdff7d, 0xbf7438f21afcc3ea,
		0x3fda0243ba7c76fd, 0x3f9d72b8212040e8, 0xbfbe464618454fb2, 0x3f91dc693275a9aa,
		0x3fd9cb5aacc9257c, 0x3f76cc2903b4fe46, 0xbf5fb20f65208380, 0x3f94fc1087aebeb7,
		0xbf72ffd72a01fe81, 0xbf92016818862fd0, 0x3fda5054354f6e8d, 0x3fa517b38df2c503,
		0xbfbef695ef7df096, 0x3f9a49ff4067a2f7, 0x3fd91f6e605ad7a4, 0x3f70d9003b5c76a5,
		0xbf95bdd3608d85a6, 0xbf8168c7ba0e13ea, 0xbf881389b522e730, 0x3f843680f7b307f2,
	},
	"alm-practical/least_squares": {
		0x3fd730e1e86475ab, 0xbf7e4482588260ec, 0xbfbdf8a8543d0aa3, 0x3f9ffe842e6480f3,
		0x3fd87339b6e38be8, 0x3fd70a0c74c184ec, 0x3f89ef3b0e114194, 0xbfc155ff3457f800,
		0x3f929bab60db7739, 0x3fd865f884a77503, 0x3fd40bf2b42bac14, 0x3f9780e5d594556b,
		0xbfba61e1ca882336, 0xbfa45c8e3fe8494a, 0x3fd5bc913252b0a7, 0x3fd248c61460eb0f,
		0x3f7771adcee7055d, 0xbfb9ad6a77165d84, 0xbfa5d32225b11b3e, 0x3fd67b4c2c62921f,
		0x3fd16697feff4d3d, 0x3f552c84483d3158, 0xbfa0ea9418d363f5, 0x3f9bb529f0ba26a3,
		0x3fd555d6e31a34e6, 0x3fcf83482be13365, 0x3f92a198ff8f14f8, 0xbfb406a5e374420d,
		0xbf82e7cb7db27590, 0x3fd624492cffef4a, 0x3fd670bf05bfa162, 0x3fa0a5084e8c5b88,
		0xbfa332c38a097f60, 0x3fa265655ea0afed, 0x3fd96abbc41d2bff, 0x3fd45b62e5dbc8f3,
		0x3fa1a7686e9cb0f6, 0xbfae0bb5f778ec09, 0x3f90fb29ad2100e0, 0x3fd8ecdb4447b547,
	},
	"dadmm-default-tau/nonconvex_regression": {
		0x3fe23d6432826e11, 0x3fbc2689b1c72630, 0x3fbbfca7e4a1fbbb, 0x3fcbbf6aba49dd52,
		0x3fbaed9b4097fbca, 0xbf1e74a8caff8680, 0xbfaa48697fb77cee, 0x3f6e50d927398cf8,
		0xbf939af9e9fc41cc, 0x3fa959a54b11471a, 0x3fe3001fe6ad814c, 0x3fa6e0ba95cfb8ee,
		0x3fb11be1ceb57ec0, 0x3fc5a74eb75fcc64, 0x3fc31b9caf0d179b, 0xbf9bf7d43e90bd35,
		0x3fad783675152a54, 0xbf91de04b8b496b9, 0x3f73ab37fcaa5f46, 0xbfa1bc92bad96723,
		0x3fe28f32567e1b3c, 0x3faba1759456e19f, 0x3fbb6de7eb04c5c1, 0x3fc9a6fd0b3ef162,
		0x3fc407dd12858f2c, 0xbf8297147086f66a, 0x3f9930aeff79a0fe, 0x3f9813150aa98708,
		0xbf9949b4af3ce74d, 0xbf6f61b54ba91b0e, 0x3fe1f6406d5a0335, 0x3fbe29ee4c29c83d,
		0x3fbd7a86e9e64c24, 0x3fc56038d5a61d8e, 0x3fc211647c3d0cdd, 0x3fa2b0e98fcf9bf6,
		0xbf9f9048ea34fbd3, 0xbf83fe56edb843cc, 0x3fa3fcf04d0748aa, 0xbf869bdcedf5394f,
	},
	"alm/logistic": {
		0xbfa7794bdb123ff8, 0xbfa5ca1ea5bd1e4e, 0xbfd67caffd7bfc00, 0xbfd1699d6b551392,
		0x3fd05465dcfd1de8, 0xbfa9d819e196ab06, 0x3fb46cac8d2e6f1f, 0xbfb64371f9510fa0,
		0xbfb8d849195be419, 0x3fd69bcb218bdbac, 0x3fd5c638974be212, 0xbfc693aabad8aec9,
		0x3fb0fb07af3e61d1, 0x3fa21cf98c745e50, 0x3fe1f7ec3cd31c73, 0x3fd46386b61f7bd7,
		0xbfb61790045a4e34, 0xbfb0e04259465e44, 0xbfa084f4211a9d48, 0x3fe1ba32027a68d1,
		0x3fb38a4165072905, 0x3fbfdbeece766192, 0xbfd7fc900b9fa25a, 0xbfcda60caf12281f,
		0x3fd788d1607bd0ac, 0x3fcb8228fa64a5da, 0x3fae145b0944a474, 0xbfdb35e759cb46bd,
		0xbfcefa15a9721cc0, 0x3fdc1605eda38589, 0x3fc57bcf6f60039f, 0x3fb908831a45309a,
		0xbfc2069ea9dfe337, 0xbfb24f3eb75e8cdc, 0x3fdec7405f912ea8, 0x3f9874d124cf13dc,
		0xbfa6e275fadc323e, 0xbfd05ac59ebac6b0, 0xbfc90cfb473f9b8a, 0x3fd50c086b031786,
	},
	"dadmm-default-tau/logistic": {
		0x3fe46f50af67ff2d, 0x3fc0e17a980373be, 0x3fca32eeea0bab13, 0x3fc7c8181c9e9f44,
		0x3fd6f771364192c0, 0x3f8599127982db55, 0xbfa94b35d8071b9f, 0x3fa47cfb559c8f7e,
		0x3fb7d79b8eb98445, 0xbfaec2939367b9b0, 0x3fe48ed87e1a2296, 0x3fc03aa0cef841d2,
		0x3fd07bc176cb3bf2, 0x3fcb76c5e5e2e9a9, 0x3fd2c7770db4da90, 0xbf85f434377fcaf0,
		0xbf8418a55aeef5e8, 0x3f90003d43683149, 0xbf623fff44cd4700, 0x3fa45d8624cd2679,
		0x3fe460cd34d5dccf, 0x3fbc3762f201a6f5, 0x3fd1ac880f6374b2, 0x3fcff1564a78eaf8,
		0x3fd1bb01ccbbd580, 0x3f871c55be77fdad, 0xbf8ce11b05c7f26c, 0xbf94e87e2d03fcea,
		0xbf9f7b554622b53d, 0xbf76c130b8902194, 0x3fe4dea1ba68fec4, 0x3f87ac1624136020,
		0x3fd3ca80d3eb60e5, 0x3fd2bbd95a8ed998, 0x3fd0f519b3acc100, 0xbf86c134007b0e28,
		0x3fb2c4d2f81a6ad9, 0xbfa208dae0cea9ad, 0xbfaecd8c8614d973, 0x3f9a7a670b592f08,
	},
}

func TestGoldenRuns(t *testing.T) {
	tests := []struct {
		name string
		run  func(*testing.T, string) []float64
		kind string
	}{
		{"alm/least_squares", almRun, problem.KindLeastSquares},
		{"alm/nonconvex_regression", almRun, problem.KindNonconvex},
		{"dadmm/least_squares", dadmmRun, problem.KindLeastSquares},
		{"dadmm/nonconvex_regression", dadmmRun, problem.KindNonconvex},
		{"alm-practical/least_squares", almPractical, problem.KindLeastSquares},
		{"dadmm-default-tau/nonconvex_regression", dadmmDefaultTau, problem.KindNonconvex},
		{"alm/logistic", almRun, problem.KindLogistic},
		{"dadmm-default-tau/logistic", dadmmDefaultTau, problem.KindLogistic},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.run(t, tc.kind)
			for _, v := range got {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("non-finite iterate %v", got)
				}
			}
			want := golden[tc.name]
			bad := len(got) != len(want)
			for k := 0; !bad && k < len(got); k++ {
				bad = math.Float64bits(got[k]) != want[k]
			}
			if bad {
				t.Errorf("final iterate bits differ from the recorded ones; got\n%s", format(tc.name, got))
			}
		})
	}
}

// format prints bits as an entry of the golden table.
func format(name string, v []float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\t%q: {\n", name)
	for k, x := range v {
		if k%4 == 0 {
			b.WriteString("\t\t")
		}
		fmt.Fprintf(&b, "%#016x,", math.Float64bits(x))
		if k%4 == 3 || k == len(v)-1 {
			b.WriteString("\n")
		} else {
			b.WriteString(" ")
		}
	}
	b.WriteString("\t},\n")
	return b.String()
}
