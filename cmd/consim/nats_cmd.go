package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/spf13/cobra"

	"github.com/consim/consim/node"
)

// natsCmd serves a standalone NATS server until interrupted: the bus of a
// run whose agents and coordinator run on several hosts.
func (a *app) natsCmd() *cobra.Command {
	var addr string
	var port int
	var opts natsServeOptions
	cmd := &cobra.Command{
		Use:   "nats",
		Short: "serve a standalone NATS server, the bus of a multi-host run",
		Long: `Nats serves a NATS server on --addr:--port until interrupted (Ctrl-C or
SIGTERM) and prints its client URL: the bus of a run whose agents
('consim node') and coordinator ('consim coordinator') run on several
hosts. Give that URL to them with --nats or CONSIM_NATS_URL.

With --users (files written by 'consim nats users') the server admits
only the run's users, each by its nkey and each allowed to publish only
what its role sends: agent i its own subjects, the coordinator the
controls. A host holding agent 3's key cannot publish as agent 5. With
--user and --password-file instead, one user may publish on every
subject, and the frame MACs alone tell agents apart.

With --jetstream the server keeps each run's statuses in a stream while
its coordinator ('consim coordinator --jetstream') is down, so that a
coordinator restarted with --resume finishes the run. The streams are in
memory; --store is JetStream's own directory (default: a temporary one,
removed when the server stops).`,
		Example: `  consim nats --port 0   # loopback, a free port
  consim nats users --run-id r1 --agents 8 --dir creds
  consim nats --addr 0.0.0.0 --port 4222 --users creds/users.json \
      --tls-cert server.pem --tls-key server-key.pem
  consim nats --port 4222 --jetstream   # coordinators may be restarted (--resume)`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	cmd.AddCommand(a.natsUsersCmd())
	cmd.Flags().StringArrayVar(&opts.users, "users", nil, "users `file` of a run (consim nats users): admit only its users, each with its role's permissions (repeatable, one per run)")
	mustComplete(cmd, "users", cobra.FixedCompletions(nil, cobra.ShellCompDirectiveDefault))
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1", "interface to listen on (0.0.0.0 for every interface, to serve other hosts: needs --users, or --user and --password-file, or --tls-ca, or --insecure)")
	cmd.Flags().StringVar(&opts.user, "user", "", "the one `user` clients authenticate as, allowed every subject (its password from --password-file); see --users for a user per agent")
	cmd.Flags().StringVar(&opts.passwordFile, "password-file", "", "`file` holding the user's password")
	cmd.Flags().BoolVar(&opts.insecure, "insecure", false, "serve other hosts without authentication (anyone who reaches the port may connect)")
	addTLSFlags(cmd, &opts.tls, "CA `file` (PEM): require client certificates it signed", "server certificate `file` (PEM)", "server key `file` (PEM)")
	cmd.Flags().IntVar(&port, "port", 4222, "TCP port to listen on; 0 picks a free one")
	cmd.Flags().BoolVar(&opts.jetstream, "jetstream", false, "enable JetStream: runs' statuses are kept while their coordinator is down (consim coordinator --jetstream, --resume)")
	cmd.Flags().StringVar(&opts.store, "store", "", "JetStream's store `DIR` (with --jetstream; default a temporary directory, removed on exit)")
	mustComplete(cmd, "addr", cobra.NoFileCompletions)
	mustComplete(cmd, "port", cobra.NoFileCompletions)
	cmd.RunE = a.runE(func(*cobra.Command, []string) error {
		if port < 0 || port > 65535 {
			return usagef("--port %d: want 0..65535", port)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return serveNATS(ctx, addr, port, opts, a.stdout)
	})
	return cmd
}

// natsServeOptions are the security options of `consim nats`.
type natsServeOptions struct {
	users              []string // users files, one per run
	user, passwordFile string
	insecure           bool
	tls                node.TLSFiles
	jetstream          bool
	store              string
}

// serveNATS runs a NATS server on addr:port (port 0: a free one) until
// ctx ends, after printing its client URL to stdout.
func serveNATS(ctx context.Context, addr string, port int, o natsServeOptions, stdout io.Writer) error {
	if port == 0 {
		port = server.RANDOM_PORT
	}
	so := node.NATSServerOptions{Name: "consim", Host: addr, Port: port, Insecure: o.insecure, TLS: o.tls}
	if (o.user == "") != (o.passwordFile == "") {
		return usagef("--user %q and --password-file %q: give both or neither", o.user, o.passwordFile)
	}
	if o.user != "" && len(o.users) > 0 {
		return usagef("--user %q and --users: give one (a user allowed every subject would let any host publish as any agent)", o.user)
	}
	if o.user != "" {
		pw, err := readSecret(o.passwordFile)
		if err != nil {
			return usageError{fmt.Errorf("--password-file: %w", err)}
		}
		so.Users = []node.NATSUser{{Name: o.user, Password: pw, Subscribe: []string{">"}}}
	}
	var runs []string
	for _, path := range o.users {
		run, users, err := node.ReadNATSUsersFile(path)
		if err != nil {
			return usageError{fmt.Errorf("--users: %w", err)}
		}
		if slices.Contains(runs, run) {
			return usagef("--users %s: a second users file of run %s", path, run)
		}
		runs = append(runs, run)
		so.Users = append(so.Users, users...)
	}
	if o.store != "" && !o.jetstream {
		return usagef("--store %s: needs --jetstream", o.store)
	}
	if o.jetstream {
		so.JetStream, so.StoreDir = true, o.store
		if o.store == "" {
			dir, err := os.MkdirTemp("", "consim-jetstream-")
			if err != nil {
				return fmt.Errorf("JetStream store: %w", err)
			}
			defer os.RemoveAll(dir)
			so.StoreDir = dir
		}
	}
	srv, err := node.StartNATSServer(so)
	if errors.Is(err, node.ErrInsecureListen) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	u := srv.ClientURL() // tls://... with TLS
	join := ""
	switch {
	case o.user != "":
		join += " --user " + o.user + " --password-file FILE"
	case len(o.users) > 0:
		join += " --nkey agent-I.nk"
	}
	if o.tls.Cert != "" {
		join += " --tls-ca CA.pem"
	}
	if o.tls.CA != "" {
		join += " --tls-cert CERT.pem --tls-key KEY.pem"
	}
	js := ""
	if o.jetstream {
		js = ", JetStream on"
	}
	fmt.Fprintf(stdout, "NATS server listening on %s%s (Ctrl-C to stop)\n", u, js)
	if len(runs) > 0 {
		fmt.Fprintf(stdout, "users of run %s only, each with its role's permissions\n", strings.Join(runs, ", "))
	}
	fmt.Fprintf(stdout, "agents join with: consim node --nats %s%s --run-id ID --id I SCENARIO\n", u, join)
	<-ctx.Done()
	srv.Shutdown()
	srv.WaitForShutdown()
	fmt.Fprintln(stdout, "NATS server stopped")
	return nil
}

// natsUsersFlags are the flags of `consim nats users`.
type natsUsersFlags struct {
	runID           string
	agents, workers int
	dir             string
	jetstream       bool
}

// natsUsersCmd writes the users of one run for `consim nats --users`: an
// nkey per agent process, per oracle worker and for the coordinator.
func (a *app) natsUsersCmd() *cobra.Command {
	var f natsUsersFlags
	cmd := &cobra.Command{
		Use:   "users",
		Short: "make the users of a multi-host run: an nkey per agent process, worker and coordinator",
		Long: `Users makes the users of run --run-id for a server started with
'consim nats --users DIR/users.json': one per agent process (agent-0 ..
agent-N-1), one per oracle worker (worker-0 ..) and one for the
coordinator, each authenticated by an nkey of its own and allowed to
publish only what its role sends (see docs/protocol.md, Users and
permissions). It writes, in the new or empty directory --dir, each user's
nkey seed (DIR/<user>.nk, mode 0600: the private key; copy it to the host
of that process only and pass it with --nkey), DIR/users.json (mode 0600:
names, public keys and permissions, no secret) for the server, and
DIR/run.key (mode 0600), a fresh run key that every process of the run
reads from the file named by CONSIM_RUN_KEY_FILE.

With --jetstream the coordinator may also keep the run's statuses in a
stream (consim coordinator --jetstream, --resume).`,
		Example: `  consim nats users --run-id r1 --agents 8 --dir creds
  consim nats --addr 0.0.0.0 --users creds/users.json --tls-cert server.pem --tls-key server-key.pem
  consim node --nats tls://host0:4222 --tls-ca ca.pem --nkey creds/agent-3.nk --run-id r1 --id 3 SCENARIO
  consim coordinator --nats tls://host0:4222 --tls-ca ca.pem --nkey creds/coordinator.nk --run-id r1 SCENARIO`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	addRunIDFlag(cmd, &f.runID, "run `ID` the users are for (required; the same --run-id as every process of the run)")
	cmd.Flags().IntVar(&f.agents, "agents", 0, "number of agent processes, one user each (required: the scenario's agents)")
	cmd.Flags().IntVar(&f.workers, "workers", 0, "number of oracle worker processes, one user each (the scenario's runtime.workers)")
	cmd.Flags().StringVar(&f.dir, "dir", "", "`DIR` to write the seeds and users.json to: new, or empty (required)")
	cmd.Flags().BoolVar(&f.jetstream, "jetstream", false, "let the coordinator keep the run's statuses in a JetStream stream (consim coordinator --jetstream)")
	mustComplete(cmd, "agents", cobra.NoFileCompletions)
	mustComplete(cmd, "workers", cobra.NoFileCompletions)
	mustComplete(cmd, "dir", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})
	cmd.RunE = a.runE(func(*cobra.Command, []string) error {
		switch {
		case f.runID == "":
			return usagef("--run-id ID is required")
		case f.agents < 1:
			return usagef("--agents %d: want the number of agent processes, at least 1", f.agents)
		case f.workers < 0:
			return usagef("--workers %d: must not be negative", f.workers)
		case f.dir == "":
			return usagef("--dir DIR is required")
		}
		return writeRunUsers(f, a.stdout)
	})
	return cmd
}

// writeRunUsers writes the users of f's run to f.dir and says how to use
// them on stdout.
func writeRunUsers(f natsUsersFlags, stdout io.Writer) error {
	users, err := node.RunUsers(f.runID, f.agents, f.workers)
	if err != nil {
		return usageError{fmt.Errorf("--run-id: %w", err)}
	}
	if f.jetstream {
		coord := &users[len(users)-1] // RunUsers ends with the coordinator
		coord.Publish = append(coord.Publish, node.JetStreamAPI)
	}
	seeds, err := node.UseNKeys(users)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return usageError{fmt.Errorf("--dir: %w", err)}
	}
	if entries, err := os.ReadDir(f.dir); err != nil || len(entries) > 0 {
		if err == nil {
			err = errors.New("not empty: the seeds of another run may be there")
		}
		return usageError{fmt.Errorf("--dir %s: %w", f.dir, err)}
	}
	for _, u := range users {
		if err := node.WriteNKeySeedFile(filepath.Join(f.dir, u.Name+".nk"), seeds[u.Name]); err != nil {
			return err
		}
	}
	usersFile := filepath.Join(f.dir, "users.json")
	if err := node.WriteNATSUsersFile(usersFile, f.runID, users); err != nil {
		return err
	}
	// The run key every process of the run seals its messages with.
	key, err := node.NewRunKey()
	if err != nil {
		return err
	}
	if err := node.WriteRunKeyFile(filepath.Join(f.dir, "run.key"), key); err != nil {
		return err
	}
	at := func(name string) string { return filepath.Join(f.dir, name) }
	fmt.Fprintf(stdout, "users of run %s written to %s (mode 0600):\n", f.runID, f.dir)
	line := func(who, how string) { fmt.Fprintf(stdout, "  %-24s %s\n", who+":", how) }
	line("the server", "consim nats --users "+at("users.json")+" ...")
	line("every process", node.EnvRunKeyFile+"="+at("run.key")+" (the run key)")
	line("the coordinator", "consim coordinator --nkey "+at("coordinator.nk")+" ...")
	line(fmt.Sprintf("agent I (0..%d)", f.agents-1), "consim node --id I --nkey "+at("agent-I.nk")+" ...")
	if f.workers > 0 {
		line(fmt.Sprintf("oracle worker W (0..%d)", f.workers-1), at("worker-W.nk"))
	}
	fmt.Fprintln(stdout, "Copy each .nk file (a private key) to the host of its process only, and run.key to every process's host.")
	return nil
}
