package main

import (
	"context"
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
	cmd := &cobra.Command{
		Use:   "nats",
		Short: "serve a standalone NATS server, the bus of a multi-host run",
		Long: `Nats serves a NATS server on --addr:--port until interrupted (Ctrl-C or
SIGTERM) and prints its client URL: the bus of a run whose agents
('consim node') and coordinator ('consim coordinator') run on several
hosts. Give that URL to them with --nats or CONSIM_NATS_URL.`,
		Example: `  consim nats --addr 0.0.0.0 --port 4222
  consim nats --port 0   # a free port`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1", "interface to listen on (0.0.0.0 for every interface, to serve other hosts)")
	cmd.Flags().IntVar(&port, "port", 4222, "TCP port to listen on; 0 picks a free one")
	mustComplete(cmd, "addr", cobra.NoFileCompletions)
	mustComplete(cmd, "port", cobra.NoFileCompletions)
	cmd.RunE = a.runE(func(*cobra.Command, []string) error {
		if port < 0 || port > 65535 {
			return usagef("--port %d: want 0..65535", port)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return serveNATS(ctx, addr, port, a.stdout)
	})
	return cmd
}

// serveNATS runs a NATS server on addr:port (port 0: a free one) until
// ctx ends, after printing its client URL to stdout.
func serveNATS(ctx context.Context, addr string, port int, stdout io.Writer) error {
	if port == 0 {
		port = server.RANDOM_PORT
	}
	srv, err := node.StartNATSServer(node.NATSServerOptions{Name: "consim", Host: addr, Port: port})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "NATS server listening on %s (Ctrl-C to stop)\n", srv.ClientURL())
	fmt.Fprintf(stdout, "agents join with: consim node --nats %s --run-id ID --id I SCENARIO\n", srv.ClientURL())
	<-ctx.Done()
	srv.Shutdown()
	srv.WaitForShutdown()
	fmt.Fprintln(stdout, "NATS server stopped")
	return nil
}
