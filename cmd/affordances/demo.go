package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/mcpbridge"
)

// demoTokenEnv names the environment variable that fixes the demo user's
// bearer token.
const demoTokenEnv = "AFFORDANCES_DEMO_TOKEN"

var demoCommand = &command{
	Name:    "demo",
	Summary: "Run the demo shop: HTML for people and Affordances graphs for agents on one URL.",
	Example: `affordances demo --addr 127.0.0.1:8080
# in another terminal, as an agent:
curl -H 'Accept: application/vnd.affordances+json' http://127.0.0.1:8080/
# with a fixed token for alice@example.com:
AFFORDANCES_DEMO_TOKEN=secret affordances demo --data /tmp/shop`,
	Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		addr := fs.String("addr", "127.0.0.1:8080", "`host:port` to listen on")
		data := fs.String("data", "", "`directory` of the shop's SQLite file (default: $XDG_DATA_HOME/affordances-demo or ~/.local/share/affordances-demo)")
		return func(ctx context.Context, e *env, args []string) error {
			if len(args) > 0 {
				return usagef("unexpected argument %q", args[0])
			}
			return runDemo(ctx, e, *addr, *data)
		}
	},
}

// dataDir returns the demo's default data directory.
func dataDir(e *env) (string, error) {
	if d := e.getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "affordances-demo"), nil
	}
	home := e.getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("no data directory: set --data or $XDG_DATA_HOME: %w", err)
		}
	}
	return filepath.Join(home, ".local", "share", "affordances-demo"), nil
}

func runDemo(ctx context.Context, e *env, addr, dir string) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if dir == "" {
		var err error
		if dir, err = dataDir(e); err != nil {
			return err
		}
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s, err := shop.Open(ctx, &shop.Options{DataDir: dir, DemoToken: e.getenv(demoTokenEnv), Logger: logger, MCP: "/mcp"})
	if err != nil {
		return err
	}
	defer s.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(e.stdout, `Demo shop listening on %s
  data:    %s
  sign in: %s / %s (admin: %s / %s, at /admin)
  token:   %s
  try:     curl -H 'Accept: application/vnd.affordances+json' -H 'Authorization: Bearer %s' %s/
Press Ctrl-C to stop.
`, url, s.Path(), shop.DemoEmail, shop.DemoPassword, shop.AdminEmail, shop.AdminPassword, s.Token(), s.Token(), url)

	// The shop's own MCP endpoint, advertised in its index.
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpbridge.Handler(s.Handler(), nil))
	mux.Handle("/", s.Handler())
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second, // a slow body cannot hold a connection
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Fprintln(e.stdout, "Stopped.")
	return nil
}
