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

// The golden bits below were recorded once, from the code as it stood when
// they were added (amd64, GOAMD64=v1). They pin today's behaviour: a
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
		0x3fea0f99a1dbf96f, 0x3fabe6227c2e3a70, 0x3fcf5a5489610a58, 0x3fd60ec89eca26da,
		0x3fc82acc455f1eb8, 0x3fba5108dddde494, 0x3fa1af1a3e32829a, 0xbfb0c27a48a80436,
		0x3fb9a4e06e818ad4, 0x3fb2806a626d24d2, 0x3fecdc41e59ad151, 0x3fb25b80c9084782,
		0x3fcdddd71c3223d3, 0x3fd41d9cb54a8cbe, 0x3fc9a6523b88cc55, 0x3f8e00514da452f8,
		0xbf904674ce11cc7b, 0x3f90ac18d99fadfa, 0xbf914964f212fd9d, 0xbfa8bfee5479d10e,
		0x3febb16613beeb88, 0x3fb0314ba3076c4f, 0x3fccda88471cbb30, 0x3fd4c172d181e87f,
		0x3fc95ebf5a26ade0, 0xbfb404eaebf0d29a, 0x3f97c09af7bce02b, 0xbf7d18a35b087588,
		0xbf90a98b2c883a25, 0xbfa8c7b8f1376efd, 0x3febc5fd44480a93, 0x3fad6351f8eccc28,
		0x3fcc9b18abc4c72b, 0x3fd54006870bf364, 0x3fc803727956ea4b, 0xbfa4185037433866,
		0xbfa56c2d53080c3a, 0x3facd1fc8fe13fb5, 0xbfb1282466dabce2, 0x3f990da501adec56,
	},
	"dadmm/nonconvex_regression": {
		0x3fd13760df3eccda, 0x3f9357c477aab63e, 0xbfc08547fc633978, 0xbf99069a5e15aa40,
		0x3fd0c742c071e051, 0x3f9409e7eb00bd68, 0xbf89dbf42b02aeae, 0xbfa95db200231f69,
		0xbf857203fa4fb18a, 0x3f9821ddc15c3271, 0x3fd3fd56702267a1, 0x3f91a9d66623f4ec,
		0xbfc34d3e81fc3de2, 0xbfa11f34a184355d, 0x3fd0509ac6bd640e, 0xbfa897038fc3d8a1,
		0x3fa4557fde6bc5ff, 0x3fa423294009c7af, 0x3fa28e4a3d776bb5, 0xbf92470fa19a1898,
		0x3fd1a192950b920b, 0x3f97bb8d5fa5c799, 0xbfc09de3174c5de7, 0xbf9e42cfae793a3e,
		0x3fd191e1e3b3db71, 0x3f72e47aa42409a3, 0xbf838d57b5c36144, 0x3f97ab6a1053c57d,
		0xbf84ea0624ac1418, 0xbf9836caae2c5afb, 0x3fd1912f3b934f5a, 0x3fa117e23730be28,
		0xbfc0e61357e57763, 0xbf96ecd5f117980a, 0x3fd0aa865c2e4f44, 0x3f986b008b7df1ea,
		0xbf91f659cc74836f, 0xbf8a6cb120422ccc, 0xbf8fdd1ed6e1e844, 0x3f925bfc8e6a40e9,
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
		0xc02cfc8b7e9e45da, 0xc0576c401174e63e, 0xc063fc725efdddc2, 0xc0430fab4b902ac0,
		0x405db2be4223603b, 0x40389f070016e5d2, 0x4062e4a995bab3f8, 0x40701412f02b23ea,
		0x404ec0f815e5ec64, 0xc067e1b183e8ef06, 0x4065ecceb9c60a5c, 0x40908ebd2d83b9e9,
		0x409c2de021290d31, 0x407ae66344a110a2, 0xc094ebf96b15ab1c, 0xc0366997ff961bf6,
		0xc06103de7a955ad0, 0xc06cf6d15797d51c, 0xc04ba537d6c233ce, 0x4065817ce8c2633c,
		0x3ffbfb5c70453084, 0x4017e2a7da9659ac, 0x40237c5a88950c54, 0x400377238770bb14,
		0xc01cc3140e47f8f0, 0xbfe927ab9681b710, 0xc012bddb197a3eb8, 0xc01ff96b6f142620,
		0xbffe8ccb9067c210, 0x4017c0d142b9fc70, 0x3ff06d9937e8e56c, 0x4004c1f294980a30,
		0x400f763c366520e0, 0x3ff1d3ea99bac4a0, 0xc0073b8a7472ca90, 0xbff6c31a3ccbc248,
		0xc024adc425987364, 0xc0318c496a2e8c80, 0xc0113acf1503d430, 0x402a22e1110bbe64,
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
		0x4170892791cff3a0, 0xc14747ebf13b21ed, 0x417b3f47f1608259, 0x415e67f03ae56e4d,
		0x4162cdb03a697098, 0xc17959fe96418cbc, 0x4151d8a8d7c34853, 0xc184e30428f36c8f,
		0xc1674ee922e67cbe, 0xc16cd405db459023, 0xc1c3d1a9f487348f, 0x419be737dd67c5e7,
		0xc1d0541d34acdfb9, 0xc1b238badd5654c7, 0xc1b6897290ed6b76, 0x4176a718ef890b17,
		0xc14fe48ecfd805cf, 0x4182a9c9abe33ae2, 0x4164d3b1abfdf320, 0x4169c25d50659502,
		0xc12f8fd08184a858, 0x41063761a76687f4, 0xc13a00bcd02422d0, 0xc11d049311afd468,
		0xc121f1d9627a5760, 0xc11684f818ca2240, 0x40efb4a4867b0500, 0xc1228db285756520,
		0xc104b455a32775b0, 0xc1099b9915a5a910, 0xc14773385cc52298, 0x412082012dab7ecc,
		0xc15351fd4c721cd0, 0xc1358f64cba0b39a, 0xc13aaa866a28e968, 0x414867cc38dd5188,
		0xc1212e55c721dbc4, 0x41541b8a39303a03, 0x413670466ba93b9e, 0x413bc0b779b48e1e,
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
