package main

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// consimJob is a Job whose container runs consim node or coordinator.
type consimJob struct {
	obj       Object
	job       *batchv1.Job
	spec      *corev1.PodSpec
	container *corev1.Container
	cmd       *Command
	// runID is the resolved --run-id; scenario the source of the scenario
	// file and scenarioText its content; runKey the Secret key of
	// CONSIM_RUN_KEY_FILE.
	runID        string
	scenario     fileSource
	scenarioText string
	runKey       secretKey
}

// findConsimJobs returns the deployed Jobs that run consim, with their
// parsed command lines.
func (ix *index) findConsimJobs() (coord, agents []*consimJob, errs []error) {
	for _, o := range ix.jobs {
		job := o.Obj.(*batchv1.Job)
		spec := &job.Spec.Template.Spec
		var found []*corev1.Container
		for k := range spec.Containers {
			if isConsim(&spec.Containers[k]) {
				found = append(found, &spec.Containers[k])
			}
		}
		if len(found) != 1 {
			errs = append(errs, fmt.Errorf("%s: want one container running consim node or coordinator, found %d", o, len(found)))
			continue
		}
		c := found[0]
		cmd, err := ParseCommand(c.Command, c.Args)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: container %s: %w", o, c.Name, err))
			continue
		}
		j := &consimJob{obj: o, job: job, spec: spec, container: c, cmd: cmd}
		if cmd.Sub == "coordinator" {
			coord = append(coord, j)
		} else {
			agents = append(agents, j)
		}
	}
	return coord, agents, errs
}

// checkJobs checks the coordinator and agents Jobs against each other and
// against the NATS cluster n.
func (ix *index) checkJobs(n *natsCluster) []error {
	coords, agentJobs, errs := ix.findConsimJobs()
	if len(coords) != 1 || len(agentJobs) != 1 {
		return append(errs, fmt.Errorf("want one Job running consim coordinator and one running consim node, found %d and %d", len(coords), len(agentJobs)))
	}
	coord, agents := coords[0], agentJobs[0]
	for _, j := range []*consimJob{coord, agents} {
		errs = append(errs, prefix(j.obj.String()+": container "+j.container.Name, ix.checkConsimContainer(j, n))...)
	}
	errs = append(errs, prefix(coord.obj.String(), ix.checkCoordinator(coord))...)
	errs = append(errs, prefix(agents.obj.String(), ix.checkAgents(agents))...)

	// The two Jobs must join the same run with the same scenario.
	pair := fmt.Sprintf("%s and %s", coord.obj, agents.obj)
	if coord.runID != "" && agents.runID != "" && coord.runID != agents.runID {
		errs = append(errs, fmt.Errorf("%s: run ids differ: %q and %q", pair, coord.runID, agents.runID))
	}
	if coord.scenario.name != "" && agents.scenario.name != "" && coord.scenario != agents.scenario {
		errs = append(errs, fmt.Errorf("%s: scenarios differ: %s and %s", pair, coord.scenario, agents.scenario))
	}
	if !slices.Equal(coord.cmd.Flags["set"], agents.cmd.Flags["set"]) {
		errs = append(errs, fmt.Errorf("%s: --set overrides differ: %q and %q; every agent and the coordinator must be given the same", pair, coord.cmd.Flags["set"], agents.cmd.Flags["set"]))
	}
	if coord.runKey.name != "" && agents.runKey.name != "" && coord.runKey != agents.runKey {
		errs = append(errs, fmt.Errorf("%s: run keys differ: %s and %s", pair, coord.runKey, agents.runKey))
	}
	if coord.container.Image != agents.container.Image {
		errs = append(errs, fmt.Errorf("%s: images differ: %s and %s", pair, coord.container.Image, agents.container.Image))
	}
	return append(errs, ix.checkTemplates()...)
}

// checkConsimContainer checks what the coordinator and the agents share:
// the NATS URL is a client Service of n without credentials, the user is
// n's, the password file and the run key file are mounted Secret keys
// (the password the very key the servers read), TLS files come from
// Secrets, every $(VAR) is declared, the run id is valid and the scenario
// is a ConfigMap key.
func (ix *index) checkConsimContainer(j *consimJob, n *natsCluster) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	c, cmd := j.container, j.cmd

	// $(VAR) references must be declared, else they are passed verbatim.
	for _, a := range c.Args {
		for _, v := range varRefs(a) {
			if envVar(c, v) == nil {
				bad("args reference $(%s), which the container's env does not declare (Kubernetes would pass it verbatim)", v)
			}
		}
	}
	flagOrEnv := func(flag, env string) (string, string, bool) {
		if v, ok := cmd.Flag(flag); ok {
			return v, "--" + flag, true
		}
		if v, ok := literalEnv(c, env); ok {
			return v, env, true
		}
		return "", "", false
	}

	// NATS URL.
	if raw, where, ok := flagOrEnv("nats", envNATSURL); !ok {
		bad("no --nats URL (or %s)", envNATSURL)
	} else if u, err := url.Parse(raw); err != nil {
		bad("%s %q: %v", where, raw, err)
	} else {
		host := strings.Split(u.Hostname(), ".")[0]
		port, _ := strconv.Atoi(u.Port())
		svcPort, isSvc := n.clientServices[host]
		switch {
		case u.Scheme != "nats" && u.Scheme != "tls":
			bad("%s %s: scheme %q, want nats or tls", where, raw, u.Scheme)
		case u.User != nil:
			bad("%s %s: credentials in the URL; use --user and --password-file", where, u.Redacted())
		case !isSvc:
			bad("%s %s: host %s is not a Service of the NATS client port (%v)", where, raw, u.Hostname(), keys(n.clientServices))
		case port != svcPort:
			bad("%s %s: port %s, but Service %s serves the NATS client port on %d", where, raw, u.Port(), host, svcPort)
		}
	}

	// User and password.
	if user, where, ok := flagOrEnv("user", envNATSUser); !ok {
		bad("no --user (or %s): the NATS servers require user %s", envNATSUser, n.user)
	} else if user != n.user {
		bad("%s %s: the NATS config's user is %s", where, user, n.user)
	}
	if p, where, ok := flagOrEnv("password-file", envPasswordFile); !ok {
		bad("no --password-file (or %s)", envPasswordFile)
	} else if key, err := secretFile(j.spec, c, p); err != nil {
		bad("%s: %v", where, err)
	} else if key != n.password {
		bad("%s %s is %s, but the NATS servers read the password from %s", where, p, key, n.password)
	} else if err := ix.checkSecretKey(key); err != nil {
		bad("%s: %v", where, err)
	}
	for _, f := range []string{"tls-ca", "tls-cert", "tls-key", "creds", "nkey"} {
		if p, ok := cmd.Flag(f); ok {
			if key, err := secretFile(j.spec, c, p); err != nil {
				bad("--%s: %v", f, err)
			} else if err := ix.checkSecretKey(key); err != nil {
				bad("--%s: %v", f, err)
			}
		}
	}

	// Run key.
	if p, ok := literalEnv(c, envRunKeyFile); !ok {
		bad("no %s: without a run key frames are authenticated by a key derived from the run id, which anyone can compute", envRunKeyFile)
	} else if key, err := secretFile(j.spec, c, p); err != nil {
		bad("%s: %v", envRunKeyFile, err)
	} else if err := ix.checkSecretKey(key); err != nil {
		bad("%s: %v", envRunKeyFile, err)
	} else {
		j.runKey = key
	}

	// Run id.
	if raw, ok := cmd.Flag("run-id"); !ok {
		bad("no --run-id")
	} else if id, err := ix.resolveVars(c, raw); err != nil {
		bad("--run-id %s: %v", raw, err)
	} else if !runIDRE.MatchString(id) {
		bad("--run-id %s is %q: want letters, digits, _ and - only", raw, id)
	} else {
		j.runID = id
	}

	// Scenario file.
	if len(cmd.Args) != 1 {
		bad("want one argument, the scenario file; got %q", cmd.Args)
	} else if src, err := resolvePath(j.spec, c, cmd.Args[0]); err != nil {
		bad("scenario: %v", err)
	} else if src.kind != "ConfigMap" {
		bad("scenario %s is on %s: want a ConfigMap key, which the coordinator and every agent share", cmd.Args[0], src)
	} else if cm, ok := ix.configMaps[src.name]; !ok {
		bad("scenario %s: ConfigMap %s is not deployed", cmd.Args[0], src.name)
	} else if text, ok := cm.Data[src.key]; !ok {
		bad("scenario %s: ConfigMap %s has no key %s", cmd.Args[0], src.name, src.key)
	} else {
		j.scenario, j.scenarioText = src, text
	}
	return errs
}

// checkCoordinator checks the coordinator Job: one pod at a time, not
// Indexed, and its bundle on a writable volume.
func (ix *index) checkCoordinator(j *consimJob) []error {
	var errs []error
	s := j.job.Spec
	if s.CompletionMode != nil && *s.CompletionMode == batchv1.IndexedCompletion {
		errs = append(errs, errors.New("the coordinator Job must not be Indexed"))
	}
	if (s.Completions != nil && *s.Completions != 1) || (s.Parallelism != nil && *s.Parallelism != 1) {
		errs = append(errs, fmt.Errorf("completions %s and parallelism %s: a run has one coordinator (want 1 or unset)", ptr(s.Completions), ptr(s.Parallelism)))
	}
	out, ok := j.cmd.Flag("out")
	if !ok {
		return append(errs, errors.New("no --out DIR: the bundle must go to a volume that outlives the container"))
	}
	src, err := resolvePath(j.spec, j.container, out)
	switch {
	case err != nil:
		errs = append(errs, fmt.Errorf("--out: %w", err))
	case src.kind != "PersistentVolumeClaim" && src.kind != "emptyDir":
		errs = append(errs, fmt.Errorf("--out %s is on %s: want a PersistentVolumeClaim or an emptyDir", out, src))
	case src.readOnly:
		errs = append(errs, fmt.Errorf("--out %s is on %s, mounted read-only", out, src))
	case src.kind == "PersistentVolumeClaim":
		if _, ok := ix.pvcs[src.name]; !ok {
			errs = append(errs, fmt.Errorf("--out %s: PersistentVolumeClaim %s is not deployed", out, src.name))
		}
	}
	return errs
}

// checkAgents checks the agents Job: Indexed, completions == parallelism
// == the scenario's agents (after --set), and --id the completion index.
func (ix *index) checkAgents(j *consimJob) []error {
	var errs []error
	s := j.job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		errs = append(errs, errors.New("the agents Job must have completionMode: Indexed (completion index = agent id)"))
	}
	switch {
	case s.Completions == nil || s.Parallelism == nil:
		errs = append(errs, fmt.Errorf("completions %s and parallelism %s must both be set to the number of agents", ptr(s.Completions), ptr(s.Parallelism)))
	case *s.Completions != *s.Parallelism:
		errs = append(errs, fmt.Errorf("completions %d != parallelism %d: every agent must run at once", *s.Completions, *s.Parallelism))
	}
	if j.scenarioText != "" && s.Completions != nil {
		n, err := scenarioAgents(j.scenarioText, j.cmd.Flags["set"])
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", j.scenario, err))
		case int(*s.Completions) != n:
			errs = append(errs, fmt.Errorf("completions %d != agents %d of the scenario (%s, after --set): one pod per agent", *s.Completions, n, j.scenario))
		}
	}
	ids := j.cmd.Flags["id"]
	want := "$(" + completionIndexEnv + ")"
	if len(ids) != 1 || ids[0] != want {
		errs = append(errs, fmt.Errorf("--id %q: want exactly one --id %s", ids, want))
	}
	if e := envVar(j.container, completionIndexEnv); e != nil {
		if e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != completionIndexPath {
			errs = append(errs, fmt.Errorf("env %s must come from the field %s", completionIndexEnv, completionIndexPath))
		}
	}
	return errs
}

// ptr formats an optional count.
func ptr(p *int32) string {
	if p == nil {
		return "unset"
	}
	return strconv.Itoa(int(*p))
}

// keys returns the keys of m.
func keys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// checkPolicies checks that the NetworkPolicies selecting the NATS pods
// admit the consim Jobs' pods on the client and monitor ports and the NATS
// pods on the cluster port.
func (ix *index) checkPolicies(n *natsCluster) []error {
	var errs []error
	coords, agents, _ := ix.findConsimJobs()
	type peer struct {
		what   string
		labels map[string]string
		port   int
	}
	var peers []peer
	for _, j := range append(coords, agents...) {
		l := j.job.Spec.Template.Labels
		peers = append(peers, peer{j.obj.String() + " pods", l, n.clientPort}, peer{j.obj.String() + " pods", l, n.monitorPort})
	}
	peers = append(peers, peer{"NATS pods", n.podLabels, n.clusterPort})
	c := &n.sts.Spec.Template.Spec.Containers[0]
	for _, p := range ix.policies {
		if !selects(&p.Spec.PodSelector, n.podLabels) || !slices.Contains(policyTypes(p.Spec.PolicyTypes), "Ingress") {
			continue
		}
		for _, pe := range peers {
			if !admits(p.Spec.Ingress, c, pe.labels, pe.port) {
				errs = append(errs, fmt.Errorf("NetworkPolicy %s: does not admit %s (labels %v) to port %d of the NATS pods", p.Name, pe.what, pe.labels, pe.port))
			}
		}
	}
	return errs
}

// policyTypes returns a policy's types, Ingress when unset.
func policyTypes(t []networkingv1.PolicyType) []string {
	if len(t) == 0 {
		return []string{"Ingress"}
	}
	out := make([]string, len(t))
	for k, x := range t {
		out[k] = string(x)
	}
	return out
}

// admits reports whether one of rules lets pods with labels lbls (in the
// policy's namespace) reach port of container c.
func admits(rules []networkingv1.NetworkPolicyIngressRule, c *corev1.Container, lbls map[string]string, port int) bool {
	for _, r := range rules {
		peerOK := len(r.From) == 0
		for _, f := range r.From {
			if f.IPBlock == nil && f.NamespaceSelector == nil && f.PodSelector != nil &&
				(len(f.PodSelector.MatchLabels)+len(f.PodSelector.MatchExpressions) == 0 || selects(f.PodSelector, lbls)) {
				peerOK = true
			}
		}
		portOK := len(r.Ports) == 0
		for _, p := range r.Ports {
			if p.Port == nil {
				portOK = true
				continue
			}
			if x, ok := containerPort(c, *p.Port); ok && (x == port || (p.EndPort != nil && p.Port.Type == intstr.Int && port >= x && port <= int(*p.EndPort))) {
				portOK = true
			}
		}
		if peerOK && portOK {
			return true
		}
	}
	return false
}
