//go:build !js

package socket

import (
	"net/http"

	"github.com/coder/websocket"
)

func dialOptions(h http.Header) *websocket.DialOptions {
	return &websocket.DialOptions{HTTPHeader: h}
}
