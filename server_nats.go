//go:build !wasm

package main

import (
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
)

// connectNATS connects to an external NATS server or cluster (a comma-separated list of
// URLs). It never gives up reconnecting: across the loss of a node the client moves to
// another one and re-subscribes by itself (the JetStream consumers the runtime reads are
// recreated by the client library), and a write that fails meanwhile is retried by the event
// log with the same message id.
func connectNATS(urls string) (*nats.Conn, error) {
	return nats.Connect(urls,
		nats.Name("parley"),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond),
		nats.ReconnectJitter(100*time.Millisecond, time.Second),
		nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
			slog.Warn("lost the NATS server; reconnecting", "server", nc.ConnectedUrlRedacted(), "err", err)
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			slog.Info("reconnected to NATS", "server", nc.ConnectedUrlRedacted())
		}),
	)
}

// parseReplicas reads -replicas: 0 (what the cluster can hold) through 5.
func parseReplicas(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 5 {
		return 0, fmt.Errorf("-replicas %q: give a number from 0 to 5 (0 picks 3 on a cluster of three or more, else 1)", s)
	}
	return n, nil
}
