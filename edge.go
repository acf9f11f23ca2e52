//go:build !wasm

package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"

	"parley/server"
	"parley/server/edge"
)

// The edge: `parley -upstream URL` serves the bundle and passes the API and the socket on to
// a Parley runtime at URL (docs/edge.md). It runs no runtime and opens no event store; the
// data folder keeps only its own access token.

// addEdgeFlags adds -upstream and -upstream-token-file; it returns where the file's name
// lands. The token itself is never a flag: flags show in ps.
func addEdgeFlags(fs *flag.FlagSet, c *config, env func(name, def string) string) *string {
	fs.StringVar(&c.Upstream, "upstream", env("PARLEY_UPSTREAM", ""), "serve the page here and pass /api and /ws on to the Parley runtime at this `URL` (http://host:port or https://host:port); runs no runtime (PARLEY_UPSTREAM)")
	file := new(string)
	fs.StringVar(file, "upstream-token-file", env("PARLEY_UPSTREAM_TOKEN_FILE", ""), "a `file` holding the upstream runtime's access token, for -upstream; else PARLEY_UPSTREAM_TOKEN holds it (PARLEY_UPSTREAM_TOKEN_FILE)")
	return file
}

// upstreamToken reads the runtime's token for an edge: the file when one is named, else
// PARLEY_UPSTREAM_TOKEN. Without -upstream there is none to read.
func upstreamToken(upstream, file string, getenv func(string) string) (string, error) {
	if upstream == "" {
		if file != "" {
			return "", errors.New("-upstream-token-file is for an edge: give -upstream too")
		}
		return "", nil
	}
	if _, err := edge.ParseUpstream(upstream); err != nil {
		return "", err
	}
	if file != "" {
		return readTokenFile(file, "upstream token file", "put the runtime's access token in it")
	}
	if t := strings.TrimSpace(getenv("PARLEY_UPSTREAM_TOKEN")); t != "" {
		return t, nil
	}
	return "", errors.New("-upstream needs the runtime's access token: set PARLEY_UPSTREAM_TOKEN or name a file holding it with -upstream-token-file")
}

// runEdge serves as an edge on ln until ctx ends.
func runEdge(ctx context.Context, cfg config, ln net.Listener, stdout io.Writer) error {
	token, err := loadToken(cfg.Data, cfg.Token)
	if err != nil {
		return err
	}
	if token == cfg.UpstreamToken {
		slog.Warn("the edge's token is the runtime's: give the edge its own -data folder or -token-file, so the browser's token opens only the edge")
	}
	bundle, err := server.LoadBundle(cfg.Web)
	if err != nil {
		return err
	}
	proxy, err := edge.New(edge.Options{Upstream: cfg.Upstream, Token: cfg.UpstreamToken})
	if err != nil {
		return err
	}
	// A runtime that is down now is no reason to stop: the page says so until it is back.
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	if err := proxy.Check(cctx); err != nil {
		slog.Warn("the upstream runtime does not answer yet; serving anyway", "upstream", cfg.Upstream, "err", err)
	}
	cancel()
	announce(stdout, ln, "running as an edge of a runtime elsewhere", token)
	slog.Info("serving as an edge", "addr", ln.Addr().String(), "upstream", cfg.Upstream, "data", cfg.Data, "version", bundle.Version())

	return serveUntil(ctx, ln, server.Front(token, bundle, proxy), proxy.CloseSockets)
}
