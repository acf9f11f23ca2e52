package server

import "net/http"

// Front is the HTTP surface of a Parley with no runtime of its own (an edge, see
// docs/edge.md): the bundle, the token link, the cookie and bearer gate and the origin rule
// exactly as Handler has them, with /api/ and /ws handed to api once they are admitted.
// api must check the Origin of a socket itself, as the runtime's socket does
// (websocket.Accept): the gate checks it only for changes.
func Front(token string, b *Bundle, api http.Handler) http.Handler {
	s := New(nil, token, b)
	mux := http.NewServeMux()
	mux.Handle("/api/", s.authorised(api))
	mux.Handle("GET /ws", s.authorised(api))
	return s.withBundle(mux)
}
