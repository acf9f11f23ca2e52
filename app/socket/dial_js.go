//go:build js

package socket

import "github.com/coder/websocket"

// httpHeader is a plain map in the browser, so that this package does not import net/http.
type httpHeader = map[string][]string

// dialOptions ignores h: a browser sends its own headers, and the cookie carries the token.
func dialOptions(httpHeader) *websocket.DialOptions { return nil }
