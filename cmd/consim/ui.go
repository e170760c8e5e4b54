package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/consim/consim/coordinator/live"
)

// addUIFlag adds --ui, the address of the live view; empty (the default)
// serves nothing.
func addUIFlag(cmd *cobra.Command, addr *string) {
	cmd.Flags().StringVar(addr, "ui", "", "serve the run's live view and Prometheus /metrics on `ADDR` while it runs: HOST:PORT, :PORT or PORT (a bare port binds 127.0.0.1; :0 picks a free port); default: nothing is served")
	mustComplete(cmd, "ui", cobra.NoFileCompletions)
}

// uiStart starts a live view; tests replace it to see whether anything
// would be served.
var uiStart = (*live.Server).Start

// startUI serves the live view of the run info on addr and prints its URL
// to w; with an empty addr it serves nothing and returns a nil Server
// (whose methods do nothing).
func startUI(w io.Writer, addr string, info live.Info) (*live.Server, error) {
	if addr == "" {
		return nil, nil
	}
	srv := live.New(info)
	url, warning, err := uiStart(srv, addr)
	if err != nil {
		return nil, usagef("--ui: %w", err)
	}
	if warning != "" {
		fmt.Fprintf(w, "consim: warning: %s\n", warning)
	}
	fmt.Fprintf(w, "live view of run %s: %s (Prometheus metrics: %smetrics)\n", info.RunID, url, url)
	return srv, nil
}
