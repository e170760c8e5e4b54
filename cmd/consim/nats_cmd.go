package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
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

With --jetstream the server keeps each run's statuses in a stream while
its coordinator ('consim coordinator --jetstream') is down, so that a
coordinator restarted with --resume finishes the run. The streams are in
memory; --store is JetStream's own directory (default: a temporary one,
removed when the server stops).`,
		Example: `  consim nats --port 0   # loopback, a free port
  consim nats --addr 0.0.0.0 --port 4222 --user consim --password-file nats.pw \
      --tls-cert server.pem --tls-key server-key.pem
  consim nats --port 4222 --jetstream   # coordinators may be restarted (--resume)`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1", "interface to listen on (0.0.0.0 for every interface, to serve other hosts: needs --user and --password-file, or --tls-ca, or --insecure)")
	cmd.Flags().StringVar(&opts.user, "user", "", "the `user` clients authenticate as (its password from --password-file)")
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
	if o.user != "" {
		pw, err := readSecret(o.passwordFile)
		if err != nil {
			return usageError{fmt.Errorf("--password-file: %w", err)}
		}
		so.Users = []node.NATSUser{{Name: o.user, Password: pw, Subscribe: []string{">"}}}
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
	if o.user != "" {
		join += " --user " + o.user + " --password-file FILE"
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
	fmt.Fprintf(stdout, "agents join with: consim node --nats %s%s --run-id ID --id I SCENARIO\n", u, join)
	<-ctx.Done()
	srv.Shutdown()
	srv.WaitForShutdown()
	fmt.Fprintln(stdout, "NATS server stopped")
	return nil
}
