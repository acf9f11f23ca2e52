//go:build !js

package socket

import (
	"net/http"

	"github.com/coder/websocket"
)

type httpHeader = http.Header

func dialOptions(h httpHeader) *websocket.DialOptions {
	return &websocket.DialOptions{HTTPHeader: h}
}
