package runtime

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Embedded is a NATS server with JetStream running inside this process. It listens on no
// port: the only client is the in-process connection, so nothing is exposed.
type Embedded struct {
	Server *server.Server
	Conn   *nats.Conn
}

// StartEmbedded starts JetStream with its store under dir and connects to it.
func StartEmbedded(dir string) (*Embedded, error) {
	opts := &server.Options{
		ServerName: "parley",
		JetStream:  true,
		StoreDir:   filepath.Join(dir, "jetstream"),
		DontListen: true,
		NoSigs:     true,
		NoLog:      true,
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("embedded nats: %w", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, errors.New("embedded nats: not ready after 10s")
	}
	nc, err := nats.Connect("", nats.InProcessServer(ns), nats.Name("parley"))
	if err != nil {
		ns.Shutdown()
		return nil, fmt.Errorf("embedded nats: connect: %w", err)
	}
	return &Embedded{Server: ns, Conn: nc}, nil
}

// Close drains the connection and stops the server, flushing the store.
func (e *Embedded) Close() {
	e.Conn.Close()
	e.Server.Shutdown()
	e.Server.WaitForShutdown()
}
