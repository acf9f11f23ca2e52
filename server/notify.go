package server

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"encoding/json"

	"parley/i18n"
	"parley/protocol"
	"parley/runtime/notify"
)

// Notifications (docs/pwa.md): open pages hear them as server-sent events, pages that show
// a decision to someone looking claim it, and devices subscribe to Web Push.

// SetNotifier turns the notification endpoints on; push may be nil (no Web Push).
func (s *Server) SetNotifier(n *notify.Notifier, push *notify.Push) {
	s.notifier, s.push = n, push
	s.streamsDone = make(chan struct{})
}

// CloseStreams ends the open notification streams. http.Server.Shutdown waits for running
// handlers, and a stream runs until its page goes: register this with RegisterOnShutdown.
func (s *Server) CloseStreams() {
	s.closeStreams.Do(func() {
		if s.streamsDone != nil {
			close(s.streamsDone)
		}
	})
}

// withNotifier answers 503 for a notification route when this server sends no
// notifications, so each handler may assume s.notifier.
func (s *Server) withNotifier(h http.HandlerFunc) http.HandlerFunc {
	return serviceOn(func() bool { return s.notifier != nil }, "notifications_off", "this server sends no notifications", h)
}

// withPush is withNotifier for the Web Push routes and s.push.
func (s *Server) withPush(h http.HandlerFunc) http.HandlerFunc {
	return serviceOn(func() bool { return s.push != nil }, "push_off", "this server sends no Web Push", h)
}

// serviceOn is h while on reports that its service is set (asked at each request: the
// service may be set after the routes), and otherwise a 503 with code and why.
func serviceOn(on func() bool, code, why string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !on() {
			writeError(w, http.StatusServiceUnavailable, code, why)
			return
		}
		h(w, r)
	}
}

// streamNotifications is GET /api/notifications: one `notification` event per decision
// nobody claimed, as it is sent, until the page goes. A comment every 25 s keeps proxies
// from closing a quiet stream.
func (s *Server) streamNotifications(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "internal", "streaming is not supported here")
		return
	}
	// The page names its locale (?lang=); else the browser's languages.
	l, ok := i18n.Parse(r.URL.Query().Get("lang"))
	if !ok {
		l = i18n.FromBrowser(acceptLanguages(r.Header.Get("Accept-Language")))
	}
	ch, stop := s.notifier.Subscribe()
	defer stop()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprint(w, ": notifications\n\n")
	flusher.Flush()
	keep := time.NewTicker(25 * time.Second)
	defer keep.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.streamsDone:
			return
		case <-keep.C:
			_, _ = fmt.Fprint(w, ": keep-alive\n\n")
		case n := <-ch:
			b, _ := json.Marshal(notify.InLocale(l, n))
			event := "notification"
			if n.Withdrawn {
				event = "withdrawn" // answered elsewhere: close its notification
			}
			_, _ = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		}
		flusher.Flush()
	}
}

// claimSeen is POST /api/notifications/seen.
func (s *Server) claimSeen(w http.ResponseWriter, r *http.Request) {
	req, ok := readRequest[protocol.SeenClaim](w, r)
	if !ok {
		return
	}
	if err := s.notifier.Seen(r.Context(), req); err != nil {
		s.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// pushKey is GET /api/push: the VAPID public key to subscribe with.
func (s *Server) pushKey(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, protocol.PushKey{PublicKey: s.push.PublicKey()})
}

// subscribePush is PUT /api/push/{device}: the device's subscription, replacing its last.
func (s *Server) subscribePush(w http.ResponseWriter, r *http.Request) {
	req, ok := readRequest[protocol.PushSubscription](w, r)
	if !ok {
		return
	}
	s.deviceDone(w, s.push.Subscribe(r.Context(), r.PathValue("device"), req))
}

// unsubscribePush is DELETE /api/push/{device}: this device wants no more pushes.
func (s *Server) unsubscribePush(w http.ResponseWriter, r *http.Request) {
	s.deviceDone(w, s.push.Unsubscribe(r.Context(), r.PathValue("device")))
}

// deviceDone answers a change to a device's subscription: 204, or why not.
func (s *Server) deviceDone(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, notify.ErrBadSubscription):
		writeError(w, http.StatusBadRequest, "bad_subscription", err.Error())
	case err != nil:
		s.fail(w, err)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}
