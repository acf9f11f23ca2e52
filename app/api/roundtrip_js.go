//go:build js

package api

import (
	"context"
	"errors"
	"syscall/js"
)

// In the browser Client.HTTP is unused and Client.Header is a plain map, so that the wasm
// does not import net/http: importing it at all links its transport and crypto/tls (their
// package initialisers keep them), a fifth of app.wasm. tools/wasmpatch keeps go-app and
// coder/websocket from importing it too.
type (
	httpClient = struct{}
	httpHeader = map[string][]string
)

// roundTrip calls the browser's fetch directly. net/http's client would work too, but it
// links its whole transport (HTTP/2, TLS) into the wasm: about 5 MB raw for nothing.
func (c *Client) roundTrip(ctx context.Context, method, url string, header httpHeader, body []byte) (int, []byte, error) {
	opts := js.Global().Get("Object").New()
	opts.Set("method", method)
	opts.Set("credentials", "same-origin")
	h := js.Global().Get("Headers").New()
	for k, vs := range header {
		for _, v := range vs {
			h.Call("append", k, v)
		}
	}
	opts.Set("headers", h)
	if body != nil {
		arr := js.Global().Get("Uint8Array").New(len(body))
		js.CopyBytesToJS(arr, body)
		opts.Set("body", arr)
	}
	abort := js.Global().Get("AbortController").New()
	opts.Set("signal", abort.Get("signal"))
	stop := context.AfterFunc(ctx, func() { abort.Call("abort") })
	defer stop()

	resp, err := await(js.Global().Call("fetch", url, opts))
	if err != nil {
		return 0, nil, err
	}
	buf, err := await(resp.Call("arrayBuffer"))
	if err != nil {
		return 0, nil, err
	}
	data := make([]byte, buf.Get("byteLength").Int())
	js.CopyBytesToGo(data, js.Global().Get("Uint8Array").New(buf))
	return resp.Get("status").Int(), data, nil
}

// await waits for a promise from a goroutine other than the JS event loop's.
func await(p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	var then, catch js.Func
	then = js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- result{v: args[0]}
		return nil
	})
	catch = js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "request failed"
		if len(args) > 0 && args[0].Truthy() {
			msg = args[0].Call("toString").String()
		}
		ch <- result{err: errors.New(msg)}
		return nil
	})
	p.Call("then", then, catch)
	r := <-ch
	then.Release()
	catch.Release()
	return r.v, r.err
}
