package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// manifestDir is the shipped manifest directory.
const manifestDir = ".."

func TestShippedManifests(t *testing.T) {
	m, err := Load(manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(m); err != nil {
		t.Fatal(err)
	}
	// Every manifest file is decoded: the resources and the two helpers.
	files := map[string]bool{}
	for _, o := range m.Objects {
		files[o.File] = true
	}
	for _, f := range []string{"secret-example.yaml", "fetch-results.yaml", "agents-job.yaml", "nats-services.yaml"} {
		if !files[f] {
			t.Errorf("%s was not decoded", f)
		}
	}
	if m.Resources["secret-example.yaml"] {
		t.Error("the Secret template is a kustomization resource: its example values would be applied")
	}
}

// TestScenarioIsQuickstart checks that the scenario ConfigMap holds the
// repository's scenarios/quickstart.yaml, as its comment says.
func TestScenarioIsQuickstart(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(manifestDir, "..", "..", "scenarios", "quickstart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := newIndex(m)
	if err != nil {
		t.Fatal(err)
	}
	cm, ok := ix.configMaps["consim-scenario"]
	if !ok {
		t.Fatal("no ConfigMap consim-scenario")
	}
	if got := cm.Data["quickstart.yaml"]; got != string(want) {
		t.Errorf("ConfigMap consim-scenario key quickstart.yaml differs from scenarios/quickstart.yaml; copy it again:\n%s", got)
	}
}

// copyManifests copies the manifest files of manifestDir to a new
// directory and returns it.
func copyManifests(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(manifestDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// edit replaces the one occurrence of old in file of dir by new.
func edit(t *testing.T, dir, file, old, new string) {
	t.Helper()
	p := filepath.Join(dir, file)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), old); n != 1 {
		t.Fatalf("%s: %q occurs %d times, want 1", file, old, n)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestBrokenManifests breaks the shipped manifests one way each and
// expects the error that names the break.
func TestBrokenManifests(t *testing.T) {
	type change struct{ file, old, new string }
	cases := []struct {
		name    string
		changes []change
		want    string
	}{
		{"unknown field in the agents Job",
			[]change{{"agents-job.yaml", "  completionMode: Indexed\n", "  completionMode: Indexed\n  completionz: 8\n"}},
			`agents-job.yaml: document 1 (Job): error unmarshaling JSON: while decoding JSON: json: unknown field "completionz"`},
		{"unknown field in a container",
			[]change{{"coordinator-job.yaml", "        - name: coordinator\n", "        - name: coordinator\n          restart: Always\n"}},
			`coordinator-job.yaml: document 1 (Job): error unmarshaling JSON: while decoding JSON: json: unknown field "restart"`},
		{"wrong type",
			[]change{{"nats-statefulset.yaml", "  replicas: 3\n", "  replicas: three\n"}},
			"nats-statefulset.yaml: document 1 (StatefulSet)"},
		{"duplicate field",
			[]change{{"results-pvc.yaml", "  name: consim-results\n", "  name: consim-results\n  name: other\n"}},
			"results-pvc.yaml"},
		{"unknown kind",
			[]change{{"results-pvc.yaml", "kind: PersistentVolumeClaim", "kind: PersistentVolume"}},
			"kind v1 PersistentVolume is not one this deployment uses"},
		{"unknown kustomization field",
			[]change{{"kustomization.yaml", "resources:\n", "namePrefix: x-\nresources:\n"}},
			`unknown field "namePrefix"`},
		{"missing resource",
			[]change{{"kustomization.yaml", "  - results-pvc.yaml\n", "  - results-pvc.yaml\n  - missing.yaml\n"}},
			"resource missing.yaml is not a manifest file"},
		{"completions != parallelism",
			[]change{{"agents-job.yaml", "  completions: 8\n", "  completions: 6\n"}},
			"completions 6 != parallelism 8"},
		{"completions != agents",
			[]change{{"agents-job.yaml", "  completions: 8\n  parallelism: 8\n", "  completions: 6\n  parallelism: 6\n"}},
			"completions 6 != agents 8 of the scenario"},
		{"scenario agents changed",
			[]change{{"consim-scenario.yaml", "    agents: 8\n", "    agents: 16\n"}},
			"completions 8 != agents 16 of the scenario"},
		{"--set agents in both Jobs",
			[]change{
				{"agents-job.yaml", "            - /scenarios/quickstart.yaml\n", "            - --set\n            - agents=4\n            - /scenarios/quickstart.yaml\n"},
				{"coordinator-job.yaml", "            - /scenarios/quickstart.yaml\n", "            - --set=agents=4\n            - /scenarios/quickstart.yaml\n"}},
			"completions 8 != agents 4 of the scenario"},
		{"--set only on the agents",
			[]change{{"agents-job.yaml", "            - /scenarios/quickstart.yaml\n", "            - --set\n            - rounds=100\n            - /scenarios/quickstart.yaml\n"}},
			"--set overrides differ"},
		{"not Indexed",
			[]change{{"agents-job.yaml", "  completionMode: Indexed\n", "  completionMode: NonIndexed\n"}},
			"completionMode: Indexed"},
		{"literal --id",
			[]change{{"agents-job.yaml", "            - $(JOB_COMPLETION_INDEX)\n", "            - \"3\"\n"}},
			`--id ["3"]: want exactly one --id $(JOB_COMPLETION_INDEX)`},
		{"completion index from another field",
			[]change{{"agents-job.yaml", "fieldPath: metadata.annotations['batch.kubernetes.io/job-completion-index']", "fieldPath: metadata.name"}},
			"env JOB_COMPLETION_INDEX must come from the field"},
		{"password in args",
			[]change{{"agents-job.yaml", "            - nats://nats:4222\n", "            - nats://consim:hunter2@nats:4222\n"}},
			"is a URL with a password"},
		{"hex key in args",
			[]change{{"coordinator-job.yaml", "            - --out\n", "            - --set\n            - note=0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a6978\n            - --out\n"}},
			"looks like a password or key"},
		{"password flag on nats-server",
			[]change{{"nats-statefulset.yaml", `args: ["--config", "/etc/nats-config/nats.conf"]`, `args: ["--config", "/etc/nats-config/nats.conf", "--pass", "x"]`}},
			`argument 3 "--pass" passes a secret on the command line`},
		{"run key in env",
			[]change{{"agents-job.yaml", "            - name: CONSIM_RUN_KEY_FILE\n              value: /secrets/run.key\n",
				"            - name: CONSIM_RUN_KEY_FILE\n              value: /secrets/run.key\n            - name: CONSIM_RUN_KEY\n              value: abc\n"}},
			"env CONSIM_RUN_KEY holds a literal secret"},
		{"secret value in env",
			[]change{{"coordinator-job.yaml", "              value: /secrets/run.key\n", "              value: /secrets/run.key\n            - name: NOTE\n              value: EXAMPLE-ONLY-replace-with-openssl-rand-hex-24\n"}},
			"holds the value of Secret key consim-secrets/nats.pw"},
		{"secret from env in consim",
			[]change{{"agents-job.yaml", "            - name: CONSIM_RUN_KEY_FILE\n              value: /secrets/run.key\n",
				"            - name: CONSIM_RUN_KEY_FILE\n              value: /secrets/run.key\n            - name: PW\n              valueFrom:\n                secretKeyRef: {name: consim-secrets, key: nats.pw}\n"}},
			"consim reads secrets from mounted files only"},
		{"NATS password literal",
			[]change{{"nats-config.yaml", "      password: $NATS_PASSWORD\n", "      password: s3cretpassword\n"}},
			"is not a variable the pod reads from a Secret"},
		{"no NATS authorization",
			[]change{{"nats-config.yaml", "    authorization {\n      user: consim\n      password: $NATS_PASSWORD\n    }\n", ""}},
			"must authorize clients with one user and password"},
		{"password file not mounted",
			[]change{{"agents-job.yaml", "            - name: secrets\n              mountPath: /secrets\n", "            - name: secrets\n              mountPath: /secret\n"}},
			"path /secrets/nats.pw is on no volume mount"},
		{"password file from another key",
			[]change{{"coordinator-job.yaml", "              - key: nats.pw\n                path: nats.pw\n", "              - key: run.key\n                path: nats.pw\n"}},
			"but the NATS servers read the password from Secret consim-secrets key nats.pw"},
		{"Secret key not in the template",
			[]change{{"secret-example.yaml", "  run.key: EXAMPLE", "  runkey: EXAMPLE"}},
			"the template Secret consim-secrets (secret-example.yaml, document 1) has no key run.key"},
		{"template value not marked",
			[]change{{"secret-example.yaml", "EXAMPLE-ONLY-replace-with-openssl-rand-hex-32", "changeme"}},
			"stringData.run.key is not marked EXAMPLE"},
		{"template deployed",
			[]change{{"kustomization.yaml", "  - results-pvc.yaml\n", "  - results-pvc.yaml\n  - secret-example.yaml\n"}},
			"deployed Secret consim-secrets holds the example value of key nats.pw"},
		{"no run key",
			[]change{{"coordinator-job.yaml", "            - name: CONSIM_RUN_KEY_FILE\n              value: /secrets/run.key\n", ""}},
			"no CONSIM_RUN_KEY_FILE"},
		{"wrong user",
			[]change{{"agents-job.yaml", "            - --user\n            - consim\n", "            - --user\n            - admin\n"}},
			"--user admin: the NATS config's user is consim"},
		{"URL not the client Service",
			[]change{{"coordinator-job.yaml", "            - nats://nats:4222\n", "            - nats://nats-headless:4222\n"}},
			"host nats-headless is not a Service of the NATS client port"},
		{"URL port",
			[]change{{"coordinator-job.yaml", "            - nats://nats:4222\n", "            - nats://nats:4223\n"}},
			"port 4223, but Service nats serves the NATS client port on 4222"},
		{"undeclared variable",
			[]change{{"coordinator-job.yaml", "            - $(RUN_ID)\n", "            - $(RUN)\n"}},
			"args reference $(RUN), which the container's env does not declare"},
		{"run ids differ",
			[]change{{"coordinator-job.yaml", "            - $(RUN_ID)\n", "            - r2\n"}},
			`run ids differ: "r2" and "r1"`},
		{"bad run id",
			[]change{{"consim-run.yaml", "  RUN_ID: r1\n", "  RUN_ID: r/1\n"}},
			`is "r/1": want letters, digits, _ and - only`},
		{"unknown consim flag",
			[]change{{"agents-job.yaml", "            - --password-file\n", "            - --passwd-file\n"}},
			"consim node: unknown flag --passwd-file"},
		{"scenario from the image",
			[]change{{"agents-job.yaml", "            - /scenarios/quickstart.yaml\n", "            - /opt/consim/scenarios/quickstart.yaml\n"}},
			"path /opt/consim/scenarios/quickstart.yaml is on no volume mount"},
		{"scenario key missing",
			[]change{{"consim-scenario.yaml", "  quickstart.yaml: |\n", "  quick.yaml: |\n"}},
			"ConfigMap consim-scenario has no key quickstart.yaml"},
		{"bundle on a read-only mount",
			[]change{{"coordinator-job.yaml", "            - name: results\n              mountPath: /results\n", "            - name: results\n              mountPath: /results\n              readOnly: true\n"}},
			"mounted read-only"},
		{"replicas without routes",
			[]change{{"nats-statefulset.yaml", "  replicas: 3\n", "  replicas: 4\n"}},
			"missing [nats-3.nats-headless:6222]"},
		{"route to another pod",
			[]change{{"nats-config.yaml", "nats://nats-2.nats-headless:6222", "nats://nats-5.nats-headless:6222"}},
			"missing [nats-2.nats-headless:6222], unexpected [nats-5.nats-headless:6222]"},
		{"route with a password",
			[]change{{"nats-config.yaml", "nats://nats-2.nats-headless:6222", "nats://route:pw@nats-2.nats-headless:6222"}},
			"carries a password in the config"},
		{"NATS config syntax",
			[]change{{"nats-config.yaml", "    cluster {\n", "    cluster {{\n"}},
			"nats-server refuses the config"},
		{"headless Service not headless",
			[]change{{"nats-services.yaml", "  clusterIP: None\n", ""}},
			"the Service is not headless"},
		{"probe on the client port",
			[]change{{"nats-statefulset.yaml", "          livenessProbe:\n            httpGet:\n              path: /healthz\n              port: monitor\n",
				"          livenessProbe:\n            httpGet:\n              path: /healthz\n              port: client\n"}},
			"livenessProbe port client is not the monitor port 8222"},
		{"no resource limits",
			[]change{{"agents-job.yaml", "            limits:\n              cpu: \"1\"\n              memory: 512Mi\n", ""}},
			"container agent: resources.limits.cpu is not set"},
		{"policy shuts out the agents",
			[]change{{"agents-job.yaml", "  template:\n    metadata:\n      labels:\n        app.kubernetes.io/name: consim\n", "  template:\n    metadata:\n      labels:\n        app.kubernetes.io/name: consim-agent\n"}},
			"does not admit Job consim-agents"},
		{"policy shuts out the routes",
			[]change{{"nats-networkpolicy.yaml", "        - port: 6222\n", "        - port: 6223\n"}},
			"does not admit NATS pods"},
		{"two coordinators",
			[]change{{"agents-job.yaml", "            - node\n", "            - coordinator\n"}},
			"found 1 and 0"},
		{"image entry unused",
			[]change{{"kustomization.yaml", "  - name: consim\n", "  - name: consim-old\n"}},
			"images entry consim-old names no container image"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyManifests(t)
			for _, c := range tc.changes {
				edit(t, dir, c.file, c.old, c.new)
			}
			err := Validate(dir)
			if err == nil {
				t.Fatalf("no error, want one containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error:\n%v\nwant one containing %q", err, tc.want)
			}
		})
	}
}

func TestParseCommand(t *testing.T) {
	c, err := ParseCommand(nil, []string{"node", "--nats=nats://n:4222", "--set", "a=1", "s.yaml", "--set=b=2", "--run", "r", "--id", "$(I)"})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Flag("nats"); got != "nats://n:4222" {
		t.Errorf("--nats %q", got)
	}
	if got := c.Flags["set"]; len(got) != 2 || got[0] != "a=1" || got[1] != "b=2" {
		t.Errorf("--set %q", got)
	}
	if got, _ := c.Flag("run-id"); got != "r" {
		t.Errorf("--run (deprecated) gave run-id %q", got)
	}
	if len(c.Args) != 1 || c.Args[0] != "s.yaml" {
		t.Errorf("args %q", c.Args)
	}
	for _, bad := range [][]string{
		{"run", "s.yaml"},
		{"node", "--out", "x", "s.yaml"}, // --out is the coordinator's
		{"coordinator", "--run-id"},
		{},
	} {
		if _, err := ParseCommand(nil, bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := ParseCommand([]string{"sh", "-c"}, []string{"node"}); err == nil {
		t.Error("command sh -c: no error")
	}
}

func TestScenarioAgents(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		sets     []string
		want     int
		err      bool
	}{
		{"agents: 8\n", nil, 8, false},
		{"agents: 8\n", []string{"rounds=10", "agents=3"}, 3, false},
		{"agents: 8\n", []string{"agents=x"}, 0, true},
		{"rounds: 8\n", nil, 0, true},
		{"agents: 2.5\n", nil, 0, true},
		{"agents: [1]\n", nil, 0, true},
	} {
		got, err := scenarioAgents(tc.scenario, tc.sets)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("%q %q: got %d, %v; want %d, error %v", tc.scenario, tc.sets, got, err, tc.want, tc.err)
		}
	}
}

func TestDecodeMultiDocument(t *testing.T) {
	objs, err := Decode("x.yaml", []byte("# c\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n# only a comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 || objs[0].Name() != "a" || objs[1].Name() != "b" || objs[1].Doc != 2 {
		t.Fatalf("got %v", objs)
	}
	for _, bad := range []string{
		"",
		"apiVersion: v1\nmetadata: {name: a}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n",
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\n",
	} {
		if _, err := Decode("x.yaml", []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	// The example Secret round-trips: its keys are what the Jobs mount.
	b, err := os.ReadFile(filepath.Join(manifestDir, "secret-example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		StringData map[string]string `json:"stringData"`
	}
	if err := yaml.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.StringData["nats.pw"]; !ok {
		t.Error("secret-example.yaml has no nats.pw")
	}
}
