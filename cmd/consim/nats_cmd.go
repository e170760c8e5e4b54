package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/consim/consim/node"
	"github.com/consim/consim/sim"
)

// natsCmd serves a standalone NATS server until interrupted: the bus of a
// run whose agents and coordinator run on several hosts.
func (a *app) natsCmd() *cobra.Command {
	var c sim.NATSServerConfig
	cmd := &cobra.Command{
		Use:               "nats",
		Short:             "serve a standalone NATS server, the bus of a multi-host run",
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	withHelp(cmd, "nats")
	cmd.AddCommand(a.natsUsersCmd())
	cmd.Flags().StringArrayVar(&c.UsersFiles, "users", nil, "users `file` of a run (consim nats users): admit only its users, each with its role's permissions (repeatable, one per run)")
	mustComplete(cmd, "users", cobra.FixedCompletions(nil, cobra.ShellCompDirectiveDefault))
	cmd.Flags().StringVar(&c.Host, "addr", "127.0.0.1", "interface to listen on (0.0.0.0 for every interface, to serve other hosts: needs --users, or --user and --password-file, or --tls-ca, or --insecure)")
	cmd.Flags().StringVar(&c.User, "user", "", "the one `user` clients authenticate as, allowed every subject (its password from --password-file); see --users for a user per agent")
	cmd.Flags().StringVar(&c.PasswordFile, "password-file", "", "`file` holding the user's password")
	cmd.Flags().BoolVar(&c.Insecure, "insecure", false, "serve other hosts without authentication (anyone who reaches the port may connect)")
	addTLSFlags(cmd, &c.TLS, "CA `file` (PEM): require client certificates it signed", "server certificate `file` (PEM)", "server key `file` (PEM)")
	cmd.Flags().IntVar(&c.Port, "port", 4222, "TCP port to listen on; 0 picks a free one")
	cmd.Flags().BoolVar(&c.JetStream, "jetstream", false, "enable JetStream: runs' statuses are kept while their coordinator is down (consim coordinator --jetstream, --resume)")
	cmd.Flags().StringVar(&c.StoreDir, "store", "", "JetStream's store `DIR` (with --jetstream; default a temporary directory, removed on exit)")
	mustComplete(cmd, "addr", cobra.NoFileCompletions)
	mustComplete(cmd, "port", cobra.NoFileCompletions)
	cmd.RunE = a.runE(func(*cobra.Command, []string) error {
		if c.Port < 0 || c.Port > 65535 {
			return usagef("--port %d: want 0..65535", c.Port)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return serveNATS(ctx, c, a.stdout)
	})
	return cmd
}

// serveNATS runs the NATS server of c until ctx ends, after printing its
// client URL and how agents join to stdout.
func serveNATS(ctx context.Context, c sim.NATSServerConfig, stdout io.Writer) error {
	srv, err := sim.ServeNATS(c)
	if err != nil {
		return inputErr(err)
	}
	u := srv.ClientURL() // tls://... with TLS
	join := ""
	switch {
	case c.User != "":
		join += " --user " + c.User + " --password-file FILE"
	case len(c.UsersFiles) > 0:
		join += " --nkey agent-I.nk"
	}
	if c.TLS.Cert != "" {
		join += " --tls-ca CA.pem"
	}
	if c.TLS.CA != "" {
		join += " --tls-cert CERT.pem --tls-key KEY.pem"
	}
	js := ""
	if c.JetStream {
		js = ", JetStream on"
	}
	fmt.Fprintf(stdout, "NATS server listening on %s%s (Ctrl-C to stop)\n", u, js)
	if len(srv.Runs) > 0 {
		fmt.Fprintf(stdout, "users of run %s only, each with its role's permissions\n", strings.Join(srv.Runs, ", "))
	}
	fmt.Fprintf(stdout, "agents join with: consim node --nats %s%s --run-id ID --id I SCENARIO\n", u, join)
	<-ctx.Done()
	err = srv.Close()
	fmt.Fprintln(stdout, "NATS server stopped")
	return err
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
		Use:               "users",
		Short:             "make the users of a multi-host run: an nkey per agent process, worker and coordinator",
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	withHelp(cmd, "nats_users")
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
		return writeRunUsers(f, a.stdout)
	})
	return cmd
}

// writeRunUsers writes the users of f's run to f.dir and says how to use
// them on stdout.
func writeRunUsers(f natsUsersFlags, stdout io.Writer) error {
	w, err := sim.WriteRunUsers(f.dir, f.runID, f.agents, f.workers, f.jetstream)
	if err != nil {
		return inputErr(err)
	}
	at := func(name string) string { return filepath.Join(f.dir, name) }
	fmt.Fprintf(stdout, "users of run %s written to %s (mode 0600):\n", f.runID, f.dir)
	line := func(who, how string) { fmt.Fprintf(stdout, "  %-24s %s\n", who+":", how) }
	line("the server", "consim nats --users "+w.Users+" ...")
	line("every process", node.EnvRunKeyFile+"="+w.RunKey+" (the run key)")
	line("the coordinator", "consim coordinator --nkey "+w.Seeds[len(w.Seeds)-1]+" ...")
	line(fmt.Sprintf("agent I (0..%d)", f.agents-1), "consim node --id I --nkey "+at("agent-I.nk")+" ...")
	if f.workers > 0 {
		line(fmt.Sprintf("oracle worker W (0..%d)", f.workers-1), at("worker-W.nk"))
	}
	fmt.Fprintln(stdout, "Copy each .nk file (a private key) to the host of its process only, and run.key to every process's host.")
	return nil
}
