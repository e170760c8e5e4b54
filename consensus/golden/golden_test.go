package golden

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/consensus/choco"
	"github.com/consim/consim/consensus/compress"
	"github.com/consim/consim/consensus/dadmm"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/problems/regression"
)

// The golden bits below were recorded from the code as it stood when they
// were added (amd64, GOAMD64=v1); the D-ADMM entries again after commit
// d66d110 (an agent without a live edge keeps x_i and a_i); the ALM
// entries again when its edge duals got a single writer (the owner sends
// y_ij in a second phase; a lost message no longer drops the y term), which
// changes the bits of runs with loss only. They pin today's behaviour: a
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
func locals(t *testing.T, kind string) []objective.Local {
	t.Helper()
	spec := regression.Params{Kind: kind, Dim: dim, SamplesPerAgent: 16, Batch: 3, Noise: 0.1, Reg: 0.05, Heterogeneity: 0.5, Box: regression.Unbounded}
	if kind == objective.KindNonconvex {
		spec.Scale, spec.Outliers = 1, 0.1
	}
	fs := make([]objective.Local, nAgents)
	for i := range fs {
		f, err := regression.NewLocal(spec, nAgents, seed, i)
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
	return almRunWith(t, kind, func([]objective.Local, *graph.Graph) alm.Steps {
		return alm.Steps{Eta: 0.3, Tau: 0.05, Rho: 0.5, Mu: 0.2, Beta: 0.2, My: 50}
	})
}

// almPractical runs ALM with the practical preset, whose parameters come
// from L_f (the agents' Gram spectra) and the Laplacian spectra of the
// graph (alm.ConstantsFor).
func almPractical(t *testing.T, kind string) []float64 {
	return almRunWith(t, kind, func(fs []objective.Local, g *graph.Graph) alm.Steps {
		c, err := alm.ConstantsFor(g, fs)
		if err != nil {
			t.Fatal(err)
		}
		return alm.Practical(c, rounds)
	})
}

func almRunWith(t *testing.T, kind string, params func([]objective.Local, *graph.Graph) alm.Steps) []float64 {
	g := topology(t)
	proc := graph.Bernoulli{G: g, Seed: seed}
	fs := locals(t, kind)
	cfg := alm.Config{
		Steps:     params(fs, g),
		Safeguard: alm.SafeguardEdge,
		Seed:      seed,
		Rounds:    rounds,
	}
	agents := make([]*alm.Agent, nAgents)
	as := make([]consensus.Agent, nAgents)
	for i := range agents {
		a, err := alm.NewAgent(cfg, i, g, proc, fs[i], objective.Box{Lo: -3, Hi: 3}, start(i))
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

// chocoRun runs 4 CHOCO-SGD agents (stochastic gradients) on kind with
// compression spec: rand_k and qsgd draw from graph.StreamCompress, and the
// lost messages reset the neighbours' copies with whole xhat messages.
func chocoRun(spec compress.Spec) func(*testing.T, string) []float64 {
	return func(t *testing.T, kind string) []float64 {
		g := topology(t)
		proc := graph.Bernoulli{G: g, Seed: seed}
		fs := locals(t, kind)
		p := choco.Params{Step: 0.1, GossipParams: choco.GossipParams{Gamma: 0.3, Compression: spec, Seed: seed}}
		agents := make([]*choco.Agent, nAgents)
		as := make([]consensus.Agent, nAgents)
		for i := range agents {
			a, err := choco.NewAgent(p, i, g, proc, fs[i], start(i))
			if err != nil {
				t.Fatal(err)
			}
			agents[i], as[i] = a, a
		}
		return run(t, as, func(i int) []float64 { return agents[i].Report().X })
	}
}

// golden holds the recorded bits of each run: per agent, x_i then z_i
// (ALM), x_i then a_i (D-ADMM) or x_i (CHOCO-SGD).
var golden = map[string][]uint64{
	"alm/least_squares": {
		0x3fc98d8e5c148ec0, 0xbfc1f7279eb6cf8a, 0xbfdc71d144a608d5, 0xbfce88ac3b9807c2,
		0x3fc91e4cabd7f500, 0x3fc2a38b8964b180, 0x3fa13ba7b9e0de5b, 0xbfbde9bc3a54d13e,
		0xbfa7ec3599cd37e2, 0x3fd26283d18213ea, 0x3fdbcf4f15483ceb, 0xbfc13d8cb1d50a6b,
		0x3fc4b5595be8135b, 0x3fc1cf51d7623140, 0x3fdcab4d35a9fce3, 0x3fdcf6ce93992172,
		0xbfb5008daa8cb0ee, 0x3fa1416098a529be, 0x3fb61d3c710ee4ee, 0x3fdddb52382ebb9d,
		0x3fcc5fadbb85d69c, 0x3fc17e434e81464c, 0xbfc7386e6d3993d0, 0xbfb23d2dbacd7bc2,
		0x3fd2b2ed2a698720, 0x3fd75ed1579ecb58, 0x3fb448da2f6a0397, 0xbfd5285b3984e42c,
		0xbfc2ad046b842085, 0x3fd6b65b4767d926, 0x3fdba32f39b387cb, 0x3fc92b381bd73417,
		0x3fa3e3783135cca6, 0x3fbfa1222cdce8cc, 0x3fe06c220c64319b, 0x3fcf9c9dcfa65f9c,
		0x3fa2a24921f98b58, 0xbfb4a212115ee678, 0xbf8d1c56a6134120, 0x3fd747ca0c8af45b,
	},
	"alm/nonconvex_regression": {
		0x3f91db40308f6801, 0xbfc397d5b6816dd0, 0xbfe26b52b5d05055, 0xbfd8eb049dcc1f1d,
		0x3fcc4cdbb98f6248, 0xbfabf7cc90e83b24, 0x3f8666c64f662490, 0xbfccefcfff56b3ca,
		0xbfc61a0cf55dfcac, 0x3fd35306f2a1371a, 0x3fcf921a2c02f26b, 0xbfc570541d9ce877,
		0x3fa3077368f86d42, 0x3f803ca6d6556724, 0x3fdee8865655ebd8, 0x3fd26b43ba8b7532,
		0xbfbe2f60fa51b502, 0xbfb3e1500132c7b4, 0xbfa55371080c2ddb, 0x3fe07521a154d6b9,
		0x3f798941e5044228, 0x3fbc57871df655b7, 0xbfd6805f7fc72504, 0xbfcab4fdfe8a5adf,
		0x3fd607139035ddca, 0x3fc604235e821ffc, 0x3faa241470632676, 0xbfdf5ab8b23fb9a6,
		0xbfd157443b4c2f00, 0x3fda5c49291b11e6, 0x3fcc1dc1b8b15f50, 0x3fc76743ebed130f,
		0xbfb983987de01948, 0xbf752ed739575b38, 0x3fe15cafcffe7879, 0x3fb0c07c981c57bd,
		0x3f9a2cb256bc1a36, 0xbfcb9a87e01ae382, 0xbfc17974a15e70b2, 0x3fd8a0ce717c1ccc,
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
		0x3fd6da91ff97b349, 0xbf972cfa45733ba0, 0xbfc03d21c1de4ba2, 0x3f937259b36e0193,
		0x3fd7e3040f6fcc29, 0x3fd7084b61340756, 0x3f7be177d632020d, 0xbfc1b948bdf3e870,
		0x3f8d6a692b043833, 0x3fd8414156f49b7e, 0x3fd403e65be60163, 0x3f99231da6ef2efe,
		0xbfba9aba5f2e183e, 0xbfa4478f52eafdd7, 0x3fd5b74a18f050ff, 0x3fd218bba996a774,
		0x3f7deeebcfcf1f25, 0xbfba86bdc3d033f8, 0xbfa69c09b093aca4, 0x3fd655f8ad896544,
		0x3fd166a0d08d6846, 0xbf4b109b8f5a3785, 0xbfa107b4a051d61e, 0x3f9b07e267b905ca,
		0x3fd54a2510255eb2, 0x3fcf69c68036c4f4, 0x3f905d3b201fada8, 0xbfb399e86d526b87,
		0xbf81eaf0f36c7b2b, 0x3fd6182013aeb461, 0x3fd6cb59a66acdcb, 0x3fa79dcbe5e65679,
		0xbf9d33024db14108, 0x3fa82addfb49e078, 0x3fd9ef83ef4c5b98, 0x3fd494d295e21289,
		0x3fa3dc8cdb0e62f9, 0xbfacabca0346ed70, 0x3f944e3326f1499e, 0x3fd925c3f45748c1,
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
		0x3fa121c8e0e3dcfa, 0xbfc3459a3cabe270, 0xbfe139c75ce9bf8a, 0xbfd8ba6bbe698478,
		0x3fcdc18180c331ed, 0xbfa46a21ba2a2db8, 0x3f9295ff0616f012, 0xbfc9a30a7e820d82,
		0xbfc6044e13e9182e, 0x3fd45f78ca05ed8f, 0x3fcf856ca2946838, 0xbfc4fea006d86a79,
		0x3fae39d9c7cfdbb8, 0x3f88c2eceefa3145, 0x3fe016b61c8fb16f, 0x3fd252737f3633f7,
		0xbfbdfd31348b6547, 0xbfab4f5a5c5fec8d, 0xbfa37b28894fb669, 0x3fe0e145adab8446,
		0x3f9c6edd1b3f4268, 0x3fbca6fda00ba423, 0xbfd41d30e6c1d822, 0xbfca7918ab17eabb,
		0x3fd63f294fdab79e, 0x3fc7a906541f7cac, 0x3fac9672b03605fa, 0xbfdd10ae7f1dc15c,
		0xbfd113d0ec5d8ec3, 0x3fda659dc4e6c5eb, 0x3fcdda1ee0593160, 0x3fc802b5a39cc666,
		0xbfb1bf449a467240, 0x3f02c1ca19b27800, 0x3fe211a122f1dc12, 0x3fb3e9b11bb88d76,
		0x3f9e29c565f3e8fa, 0xbfc7a44a8c93ed3e, 0xbfc09825fedbff17, 0x3fd994466232ac5c,
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
	"choco-qsgd3/logistic": {
		0x3fe2e2535fff2ef8, 0x3f951396fd40b257, 0x3fc89f6a285bf1a3, 0x3fc9dbd116db0107,
		0x3fd04940bfcfa7b5, 0x3fe45f5e3a8915af, 0xbf9a89b14f8272bf, 0x3fca087e635ebfbd,
		0x3fc59e4f1e6e3182, 0x3fd05bde4fbffecc, 0x3fe2a510fcb9b260, 0x3f75063de3792261,
		0x3fcc37089db8d942, 0x3fc79ca81df49309, 0x3fcc52cfe838f132, 0x3fe2315b4fe34f15,
		0xbf9f6d5282ed9cea, 0x3fcfab02f08b9a29, 0x3fc86cb6ae1a3438, 0x3fce3bd096faab4f,
	},
	"choco-rand40/least_squares": {
		0x3ff53968f3d84006, 0x3fb568113532a992, 0x3fde545c68aa1fcd, 0x3fe5e1d7aa1fad58,
		0x3fba37d230a134ad, 0x3ff59b031fcdc01c, 0x3fadcf9e274360eb, 0x3fdfd3dcc8eb08cd,
		0x3fe14e0fba96087d, 0x3faffbc36a520379, 0x3ff4c2a19f8197f7, 0x3fb7b383df9dc005,
		0x3fde7ddf51c6f8dc, 0x3fe1f53189f7be39, 0x3fb170dc0d4165c7, 0x3ff431f20df19ae6,
		0x3fa01ab0ff6279ba, 0x3fe052c7a641c745, 0x3fe1a931bacf06da, 0x3fb19feabf5d36e1,
	},
}

func TestGoldenRuns(t *testing.T) {
	tests := []struct {
		name string
		run  func(*testing.T, string) []float64
		kind string
	}{
		{"alm/least_squares", almRun, objective.KindLeastSquares},
		{"alm/nonconvex_regression", almRun, objective.KindNonconvex},
		{"dadmm/least_squares", dadmmRun, objective.KindLeastSquares},
		{"dadmm/nonconvex_regression", dadmmRun, objective.KindNonconvex},
		{"alm-practical/least_squares", almPractical, objective.KindLeastSquares},
		{"dadmm-default-tau/nonconvex_regression", dadmmDefaultTau, objective.KindNonconvex},
		{"alm/logistic", almRun, objective.KindLogistic},
		{"dadmm-default-tau/logistic", dadmmDefaultTau, objective.KindLogistic},
		{"choco-qsgd3/logistic", chocoRun(compress.Spec{Operator: compress.NameQSGD, Bits: 3}), objective.KindLogistic},
		{"choco-rand40/least_squares", chocoRun(compress.Spec{Operator: compress.NameRandK, Fraction: 0.4}), objective.KindLeastSquares},
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
