package testkit

import (
	"fmt"
	"hash/fnv"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
)

// Cluster is a 3-node NATS JetStream cluster inside the test process, on 127.0.0.1: each
// node has its own name, store folder, a client port picked by the system and a fixed
// cluster (route) port below 32768, since route ports must be known before the nodes start
// and the ephemeral range is shared with every outgoing connection of the machine. A node
// can be killed and started again on the same store and ports.
type Cluster struct {
	t     testing.TB
	name  string
	dir   string
	ports [3]int // route ports
	mu    sync.Mutex
	nodes [3]*natsserver.Server
	urls  [3]string
}

// clusterPortsLow and clusterPortsHigh bound the route ports: below the ephemeral range
// (32768 and up on Linux), above the well-known and common service ports.
const clusterPortsLow, clusterPortsHigh = 21000, 31000

// StartCluster starts three nodes and waits until they have a JetStream meta leader with
// every peer current. The route ports are derived from the test's name (so two tests, or two
// packages' tests running at once, rarely pick the same) and checked free before use.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	c := &Cluster{t: t, name: "parley-" + fmt.Sprint(time.Now().UnixNano()%1e6), dir: t.TempDir()}
	h := fnv.New32a()
	_, _ = h.Write([]byte(t.Name()))
	span := uint32(clusterPortsHigh - clusterPortsLow - 3)
	base := clusterPortsLow + int(h.Sum32()%span)
	for i := range 3 {
		c.ports[i] = freePortFrom(t, base+i*7, c.ports[:i])
	}
	for i := range 3 {
		c.start(i)
	}
	t.Cleanup(c.Shutdown)
	c.WaitReady()
	return c
}

// freePortFrom is the first port from p up that can be listened on and is not taken.
func freePortFrom(t testing.TB, p int, taken []int) int {
	for ; p < clusterPortsHigh; p++ {
		used := false
		for _, q := range taken {
			used = used || q == p
		}
		if used {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err == nil {
			ln.Close()
			return p
		}
	}
	t.Fatalf("no free cluster port below %d", clusterPortsHigh)
	return 0
}

func (c *Cluster) start(i int) {
	c.t.Helper()
	var routes []string
	for j, p := range c.ports {
		if j != i {
			routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
		}
	}
	port := -1
	if c.urls[i] != "" { // a restart keeps its client port, as a real node's address
		_, ps, _ := net.SplitHostPort(strings.TrimPrefix(c.urls[i], "nats://"))
		fmt.Sscan(ps, &port)
	}
	opts := &natsserver.Options{
		ServerName: fmt.Sprintf("n%d", i),
		Host:       "127.0.0.1",
		Port:       port,
		JetStream:  true,
		StoreDir:   filepath.Join(c.dir, fmt.Sprintf("n%d", i)),
		Cluster:    natsserver.ClusterOpts{Name: c.name, Host: "127.0.0.1", Port: c.ports[i]},
		Routes:     natsserver.RoutesFromStr(strings.Join(routes, ",")),
	}
	ns := startNATS(c.t, opts)
	c.mu.Lock()
	c.nodes[i] = ns
	c.urls[i] = ns.ClientURL()
	c.mu.Unlock()
}

// WaitReady waits until a running node is the meta leader and every running node is a
// current peer.
func (c *Cluster) WaitReady() {
	c.t.Helper()
	deadline := time.Now().Add(3 * Wait)
	for time.Now().Before(deadline) {
		if c.ready() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("the NATS cluster formed no JetStream meta leader with every peer current in %s", 3*Wait)
}

func (c *Cluster) ready() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	running := 0
	for _, ns := range c.nodes {
		if ns != nil {
			running++
		}
	}
	for _, ns := range c.nodes {
		if ns == nil || !ns.JetStreamIsLeader() {
			continue
		}
		raft := ns.JetStreamClusterPeers()
		if len(raft) < running {
			return false
		}
		for _, other := range c.nodes {
			if other != nil && !other.JetStreamIsCurrent() {
				return false
			}
		}
		return true
	}
	return false
}

// URLs is every node's client URL, comma-separated: what -nats takes.
func (c *Cluster) URLs() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.urls[:], ",")
}

// Connect is a client of the cluster that, like the server's, reconnects forever.
func (c *Cluster) Connect(name string) *nats.Conn {
	c.t.Helper()
	nc, err := nats.Connect(c.URLs(), nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	require.NoError(c.t, err)
	c.t.Cleanup(nc.Close)
	return nc
}

// Node is node i, nil while it is down.
func (c *Cluster) Node(i int) *natsserver.Server {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodes[i]
}

// Kill stops node i at once, as a crash would (its store stays).
func (c *Cluster) Kill(i int) {
	c.mu.Lock()
	ns := c.nodes[i]
	c.nodes[i] = nil
	c.mu.Unlock()
	if ns != nil {
		ns.Shutdown()
		ns.WaitForShutdown()
	}
}

// Restart starts node i again on its store and ports.
func (c *Cluster) Restart(i int) { c.start(i) }

// StreamLeader is the index of the node that leads stream in the global account, -1 when
// none does.
func (c *Cluster) StreamLeader(stream string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, ns := range c.nodes {
		if ns != nil && ns.JetStreamIsStreamLeader(natsserver.DEFAULT_GLOBAL_ACCOUNT, stream) {
			return i
		}
	}
	return -1
}

// Shutdown stops every node.
func (c *Cluster) Shutdown() {
	for i := range c.nodes {
		c.Kill(i)
	}
}
