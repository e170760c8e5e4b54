package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// natsCluster is what the consim pods need to know of the NATS cluster.
type natsCluster struct {
	obj       Object
	sts       *appsv1.StatefulSet
	podLabels map[string]string
	// user is the client user of the config's authorization, and password
	// the Secret key its password comes from.
	user     string
	password secretKey
	// clientPort, clusterPort and monitorPort are the server's ports.
	clientPort, clusterPort, monitorPort int
	// clientServices maps each Service that selects the servers to its
	// port that targets the client port.
	clientServices map[string]int
	headless       string
}

// checkNATS checks the NATS StatefulSet: its config (parsed by
// nats-server itself) comes from a ConfigMap, requires a user whose
// password is a variable the pod reads from a Secret, routes to exactly
// the StatefulSet's pods through its headless Service, and serves the
// ports its Services and probes use. It returns the cluster's facts when
// they could be established.
func (ix *index) checkNATS() (*natsCluster, error) {
	if len(ix.statefulSets) != 1 {
		return nil, fmt.Errorf("want one StatefulSet (the NATS cluster), found %d", len(ix.statefulSets))
	}
	o := ix.statefulSets[0]
	sts := o.Obj.(*appsv1.StatefulSet)
	fail := func(format string, a ...any) (*natsCluster, error) {
		return nil, fmt.Errorf("%s: %s", o, fmt.Sprintf(format, a...))
	}
	spec := &sts.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		return fail("want one container (nats-server), found %d", len(spec.Containers))
	}
	c := &spec.Containers[0]
	n := &natsCluster{obj: o, sts: sts, podLabels: sts.Spec.Template.Labels, clientServices: map[string]int{}}
	if !selects(sts.Spec.Selector, n.podLabels) {
		return fail("spec.selector does not match the pod template's labels %v", n.podLabels)
	}
	replicas := 1
	if sts.Spec.Replicas != nil {
		replicas = int(*sts.Spec.Replicas)
	}
	if replicas < 1 {
		return fail("replicas %d: want at least 1", replicas)
	}

	// The config file: --config PATH (or -c) on a ConfigMap.
	cmdline := append(append([]string(nil), c.Command...), c.Args...)
	var confPath string
	for k, a := range cmdline {
		if (a == "--config" || a == "-c") && k+1 < len(cmdline) {
			confPath = cmdline[k+1]
		} else if v, ok := strings.CutPrefix(a, "--config="); ok {
			confPath = v
		}
	}
	if confPath == "" {
		return fail("container %s: no --config FILE", c.Name)
	}
	src, err := resolvePath(spec, c, confPath)
	if err != nil {
		return fail("container %s: --config: %v", c.Name, err)
	}
	if src.kind != "ConfigMap" {
		return fail("container %s: --config %s is on %s, not a ConfigMap", c.Name, confPath, src)
	}
	cm, ok := ix.configMaps[src.name]
	if !ok {
		return fail("container %s: --config %s: ConfigMap %s is not deployed", c.Name, confPath, src.name)
	}
	conf, ok := cm.Data[src.key]
	if !ok {
		return fail("container %s: --config %s: ConfigMap %s has no key %s", c.Name, confPath, src.name, src.key)
	}
	opts, sentinels, err := ix.parseNATSConfig(sts, c, conf)
	if err != nil {
		return fail("ConfigMap %s key %s: %v", src.name, src.key, err)
	}

	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }

	// Client authorization: one user, its password a Secret variable.
	switch {
	case opts.Username == "" || len(opts.Users) > 0 || len(opts.Nkeys) > 0:
		bad("the NATS config must authorize clients with one user and password (authorization { user: U, password: $VAR }); consim pods use it")
	default:
		n.user = opts.Username
		key, ok := sentinels[opts.Password]
		if !ok {
			bad("the authorization password of user %s is not a variable the pod reads from a Secret (password: $NATS_PASSWORD, with NATS_PASSWORD from secretKeyRef)", opts.Username)
		} else {
			n.password = key
			if err := ix.checkSecretKey(key); err != nil {
				bad("NATS password: %v", err)
			}
		}
	}

	// Ports: the config's against the container's.
	n.clientPort, n.clusterPort, n.monitorPort = opts.Port, opts.Cluster.Port, opts.HTTPPort
	for _, p := range []struct {
		what string
		port int
	}{{"client", opts.Port}, {"cluster", opts.Cluster.Port}, {"monitor (http_port)", opts.HTTPPort}} {
		found := false
		for _, cp := range c.Ports {
			found = found || int(cp.ContainerPort) == p.port
		}
		if p.port <= 0 || !found {
			bad("the config's %s port %d is not a port of container %s", p.what, p.port, c.Name)
		}
	}

	// Probes on the monitoring port's /healthz.
	for _, pr := range []struct {
		what  string
		probe *corev1.Probe
	}{{"readinessProbe", c.ReadinessProbe}, {"livenessProbe", c.LivenessProbe}} {
		switch {
		case pr.probe == nil || pr.probe.HTTPGet == nil:
			bad("container %s: %s must be an httpGet of /healthz on the monitor port %d", c.Name, pr.what, n.monitorPort)
		case !strings.HasPrefix(pr.probe.HTTPGet.Path, "/healthz"):
			bad("container %s: %s path %q: want /healthz", c.Name, pr.what, pr.probe.HTTPGet.Path)
		default:
			if p, ok := containerPort(c, pr.probe.HTTPGet.Port); !ok || p != n.monitorPort {
				bad("container %s: %s port %s is not the monitor port %d", c.Name, pr.what, pr.probe.HTTPGet.Port.String(), n.monitorPort)
			}
		}
	}

	// The headless Service that names the pods, and the routes to them.
	n.headless = sts.Spec.ServiceName
	hs, ok := ix.services[n.headless]
	switch {
	case !ok:
		bad("serviceName %s: no such Service is deployed", n.headless)
	case hs.Spec.ClusterIP != corev1.ClusterIPNone:
		bad("serviceName %s: the Service is not headless (clusterIP: None)", n.headless)
	case !hs.Spec.PublishNotReadyAddresses:
		bad("serviceName %s: publishNotReadyAddresses must be true, so that the routes resolve before the servers are ready", n.headless)
	case !selectorMatches(hs.Spec.Selector, n.podLabels):
		bad("serviceName %s: its selector %v does not select the pods %v", n.headless, hs.Spec.Selector, n.podLabels)
	}
	want := map[string]bool{}
	for i := range replicas {
		want[fmt.Sprintf("%s-%d.%s:%d", sts.Name, i, n.headless, n.clusterPort)] = true
	}
	got := map[string]bool{}
	for _, r := range opts.Routes {
		if r.User != nil {
			if _, ok := r.User.Password(); ok {
				bad("route %s carries a password in the config", r.Redacted())
			}
		}
		host := r.Hostname()
		if h, ok := strings.CutSuffix(host, ".svc.cluster.local"); ok {
			host = h
		} else {
			host = strings.TrimSuffix(host, ".svc")
		}
		parts := strings.Split(host, ".")
		if len(parts) == 3 { // pod.service.namespace
			host = parts[0] + "." + parts[1]
		}
		got[host+":"+r.Port()] = true
	}
	if missing, extra := diff(want, got); len(missing)+len(extra) > 0 {
		bad("cluster routes must name the %d pods of StatefulSet %s through %s on port %d: missing %v, unexpected %v",
			replicas, sts.Name, n.headless, n.clusterPort, missing, extra)
	}

	// Client Services: not headless, selecting the servers, with a port
	// on the client port.
	names := make([]string, 0, len(ix.services))
	for name := range ix.services {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		svc := ix.services[name]
		if svc.Spec.ClusterIP == corev1.ClusterIPNone || !selectorMatches(svc.Spec.Selector, n.podLabels) {
			continue
		}
		for _, sp := range svc.Spec.Ports {
			if p, ok := containerPort(c, sp.TargetPort); (ok && p == n.clientPort) || (sp.TargetPort.IntValue() == 0 && sp.TargetPort.StrVal == "" && int(sp.Port) == n.clientPort) {
				n.clientServices[name] = int(sp.Port)
			}
		}
	}
	if len(n.clientServices) == 0 {
		bad("no Service exposes the NATS client port %d of the pods %v", n.clientPort, n.podLabels)
	}
	if err := errors.Join(errs...); err != nil {
		return n, fmt.Errorf("%s: %w", o, err)
	}
	return n, nil
}

// selectorMatches reports whether a Service selector selects lbls.
func selectorMatches(sel, lbls map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if lbls[k] != v {
			return false
		}
	}
	return true
}

// diff returns the keys of want missing from got and those of got not
// in want, sorted.
func diff(want, got map[string]bool) (missing, extra []string) {
	for k := range want {
		if !got[k] {
			missing = append(missing, k)
		}
	}
	for k := range got {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return missing, extra
}

// parseNATSConfig parses conf with nats-server's own parser, in the
// environment container c of sts would see: literal variables as given,
// the pod name as pod 0's, ConfigMap keys from the deployed ConfigMaps,
// and each Secret key as a distinct sentinel. It returns the options and
// the Secret key of each sentinel, so that a value the server reads can be
// traced to the Secret it came from.
func (ix *index) parseNATSConfig(sts *appsv1.StatefulSet, c *corev1.Container, conf string) (*server.Options, map[string]secretKey, error) {
	sentinels := map[string]secretKey{}
	env := map[string]string{}
	for k, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = e.Value
		case e.ValueFrom.SecretKeyRef != nil:
			s := "sentinel" + strconv.Itoa(k) + "x" + strconv.Itoa(len(sentinels))
			sentinels[s] = secretKey{e.ValueFrom.SecretKeyRef.Name, e.ValueFrom.SecretKeyRef.Key}
			env[e.Name] = s
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.name":
			env[e.Name] = sts.Name + "-0"
		case e.ValueFrom.ConfigMapKeyRef != nil:
			r := e.ValueFrom.ConfigMapKeyRef
			if cm, ok := ix.configMaps[r.Name]; ok {
				env[e.Name] = cm.Data[r.Key]
			}
		default:
			env[e.Name] = "x"
		}
	}
	dir, err := os.MkdirTemp("", "validate-nats-")
	if err != nil {
		return nil, nil, fmt.Errorf("parse NATS config: %w", err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "nats.conf")
	if err := os.WriteFile(file, []byte(conf), 0o600); err != nil {
		return nil, nil, fmt.Errorf("parse NATS config: %w", err)
	}
	restore := setEnv(env)
	defer restore()
	opts, err := server.ProcessConfigFile(file)
	if err != nil {
		return nil, nil, fmt.Errorf("nats-server refuses the config: %s", strings.ReplaceAll(err.Error(), file, "nats.conf"))
	}
	return opts, sentinels, nil
}

// setEnv sets the variables of env in the process environment and
// returns a function restoring the previous values.
func setEnv(env map[string]string) (restore func()) {
	type prev struct {
		v  string
		ok bool
	}
	old := map[string]prev{}
	for k, v := range env {
		pv, ok := os.LookupEnv(k)
		old[k] = prev{pv, ok}
		os.Setenv(k, v)
	}
	return func() {
		for k, p := range old {
			if p.ok {
				os.Setenv(k, p.v)
			} else {
				os.Unsetenv(k)
			}
		}
	}
}
