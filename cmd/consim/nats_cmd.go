package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/consim/consim/node"
)

// natsCommand serves a standalone NATS server until interrupted: the bus
// of a run whose agents and coordinator run on several hosts.
func natsCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("nats", "nats [--addr 127.0.0.1] [--port 4222]", stderr)
	addr := fs.String("addr", "127.0.0.1", "interface to listen on (0.0.0.0 for every interface, to serve other hosts)")
	port := fs.Int("port", 4222, "TCP port to listen on; 0 picks a free one")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		fs.Usage()
		return usagef("unexpected arguments %q", pos)
	}
	if *port < 0 || *port > 65535 {
		return usagef("--port %d: want 0..65535", *port)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serveNATS(ctx, *addr, *port, stdout)
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
	fmt.Fprintf(stdout, "agents join with: consim node --nats %s --run ID --id I SCENARIO\n", srv.ClientURL())
	<-ctx.Done()
	srv.Shutdown()
	srv.WaitForShutdown()
	fmt.Fprintln(stdout, "NATS server stopped")
	return nil
}
