package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"parley/protocol"
)

// A form's questions are asked in the order the server wrote them, but the SDK hands a
// requested schema over as a Go map, which has none. So the raw messages are read on their
// way in (stdio: the connection; HTTP: the response bodies) and the order of every
// requestedSchema's properties is kept, keyed by its set of keys.

type orders struct {
	mu    sync.Mutex
	byKey map[string][]string
}

func newOrders() *orders { return &orders{byKey: map[string][]string{}} }

func keySet(keys []string) string {
	s := slices.Clone(keys)
	slices.Sort(s)
	return strings.Join(s, "\x00")
}

// scan records the property order of each requestedSchema in a raw JSON message.
func (o *orders) scan(raw []byte) {
	if !bytes.Contains(raw, []byte(`"requestedSchema"`)) {
		return
	}
	o.walk(raw, 0)
}

func (o *orders) walk(raw json.RawMessage, depth int) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || depth > 16 {
		return
	}
	switch raw[0] {
	case '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return
		}
		for k, v := range m {
			if k == "requestedSchema" {
				var s protocol.Schema
				if json.Unmarshal(v, &s) == nil && len(s.Properties) > 0 {
					keys := make([]string, len(s.Properties))
					for i, p := range s.Properties {
						keys[i] = p.Key
					}
					o.mu.Lock()
					o.byKey[keySet(keys)] = keys
					o.mu.Unlock()
				}
				continue
			}
			o.walk(v, depth+1)
		}
	case '[':
		var a []json.RawMessage
		if json.Unmarshal(raw, &a) != nil {
			return
		}
		for _, v := range a {
			o.walk(v, depth+1)
		}
	}
}

// sort puts a schema's properties in the order the server wrote them, when it was seen.
func (o *orders) sort(s *protocol.Schema) {
	if s == nil || len(s.Properties) < 2 {
		return
	}
	keys := make([]string, len(s.Properties))
	for i, p := range s.Properties {
		keys[i] = p.Key
	}
	o.mu.Lock()
	order, ok := o.byKey[keySet(keys)]
	o.mu.Unlock()
	if !ok {
		return
	}
	slices.SortStableFunc(s.Properties, func(a, b protocol.Property) int {
		return slices.Index(order, a.Key) - slices.Index(order, b.Key)
	})
}

// orderTransport reads a stdio connection's messages as they arrive.
type orderTransport struct {
	sdk.Transport
	o *orders
}

func (t orderTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return orderConn{c, t.o}, nil
}

type orderConn struct {
	sdk.Connection
	o *orders
}

func (c orderConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	switch m := msg.(type) {
	case *jsonrpc.Request:
		c.o.scan(m.Params)
	case *jsonrpc.Response:
		c.o.scan(m.Result)
	}
	return msg, err
}

// orderRoundTripper reads the streamable HTTP responses' lines (JSON bodies, SSE data) as
// the SDK reads them.
type orderRoundTripper struct {
	next http.RoundTripper
	o    *orders
}

func (t orderRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err == nil && resp.Body != nil {
		pr, pw := io.Pipe()
		body := resp.Body
		go func() {
			// Each line is read before the SDK gets it, so its order is known first.
			br := bufio.NewReader(body)
			for {
				line, err := br.ReadBytes('\n')
				if len(line) > 0 {
					t.o.scan(bytes.TrimPrefix(line, []byte("data:")))
					if _, werr := pw.Write(line); werr != nil {
						return
					}
				}
				if err != nil {
					if err == io.EOF {
						err = nil
					}
					pw.CloseWithError(err)
					return
				}
			}
		}()
		resp.Body = readCloser{pr, func() error { pr.Close(); return body.Close() }}
	}
	return resp, err
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }
