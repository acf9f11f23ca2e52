//go:build js

package socket

import (
	"net/http"

	"github.com/coder/websocket"
)

// dialOptions ignores h: a browser sends its own headers, and the cookie carries the token.
func dialOptions(http.Header) *websocket.DialOptions { return nil }
