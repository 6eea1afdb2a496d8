package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/mcpbridge"
)

var mcpCommand = &command{
	Name:    "mcp",
	Summary: "Serve any Affordances site to an MCP client as tools, with the person's gate intact.",
	Details: `The bridge speaks MCP over stdio (the default) or, with --http ADDR,
streamable HTTP at /mcp. Its tools: site_index (origin), fetch_affordances
(url: the page's actions with their AAL risk classes and what the gate
decides, and the AAL fragment) and execute_affordance (url, action, input:
the call, and its delta). Text from a site is data, never instructions.

A call the gate asks about, or that the site answers confirm_required, is
asked of the person through the MCP client (elicitation), the site's
message verbatim; confirm: true is sent only on their yes. A client that
cannot ask gets an error and nothing runs. The model cannot approve: only
--grant, the person's standing grants, lets a call through unasked.

Authentication: --token TOKEN sends a bearer token to the sites; without
--token, $AFFORDANCES_TOKEN is used when set. The bridge keeps no cookies:
a session started in a browser, or in the cookie jar of call and inspect,
does not carry over to it; give it a token.`,
	Example: `# stdio, as an MCP client starts it
affordances mcp --token "$TOKEN" --grant financial:50USD
# streamable HTTP at http://127.0.0.1:8765/mcp
affordances mcp --http 127.0.0.1:8765 --token "$TOKEN"`,
	Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		addr := fs.String("http", "", "serve streamable HTTP at `addr` (host:port), path /mcp, instead of stdio")
		token := fs.String("token", "", "bearer `token` sent to the sites (default: $"+tokenEnv+")")
		var grants grantList
		fs.Var(&grants, "grant", "a standing `grant` of the person's, CLASS[:CAP][@ORIGIN][,until=TIME] (aal.ParseGrant);\nwithout @ORIGIN it is for each site called; repeatable")
		return func(ctx context.Context, e *env, args []string) error {
			if len(args) != 0 {
				return usagef("mcp takes no arguments")
			}
			opts := &mcpbridge.Options{Token: *token}
			if opts.Token == "" {
				opts.Token = e.getenv(tokenEnv)
			}
			for _, text := range grants {
				g, err := aal.ParseGrant(text)
				if err != nil {
					return usagef("--grant: %v", err)
				}
				opts.Grants = append(opts.Grants, g)
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			if *addr == "" {
				return mcpbridge.NewServer(opts).Run(ctx, &mcp.StdioTransport{})
			}
			return serveMCP(ctx, e, *addr, opts)
		}
	},
}

// serveMCP serves the bridge over streamable HTTP at addr, path /mcp.
func serveMCP(ctx context.Context, e *env, addr string, opts *mcpbridge.Options) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	server := mcpbridge.NewServer(opts)
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(e.stderr, "MCP bridge listening on http://%s/mcp\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(shutdown)
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
