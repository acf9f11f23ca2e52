package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"parley/protocol"
	"parley/runtime"
)

// Reading requests and writing answers: one JSON body in, one JSON answer or error out,
// and fail, the one place that turns a runtime error into a status.

// readRequest reads a bounded body and decodes it with the protocol's validation. On
// failure it has already answered.
func readRequest[T protocol.Request](w http.ResponseWriter, r *http.Request) (T, bool) {
	var zero T
	// Only JSON: a browser sends text/plain (or a form) from any page without asking the
	// server first, so a body of another type is also how a forged request would arrive.
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		got := r.Header.Get("Content-Type")
		if got == "" {
			got = "none"
		}
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type",
			"the body must be JSON sent with Content-Type: application/json (this request's Content-Type: "+got+")")
		return zero, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, protocol.MaxRequestBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", "request body larger than "+kib(protocol.MaxRequestBytes))
		return zero, false
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", "could not read the request body: "+err.Error())
		return zero, false
	}
	req, err := protocol.DecodeRequest[T](body)
	if err != nil {
		writeDecodeError(w, err)
		return zero, false
	}
	return req, true
}

func writeDecodeError(w http.ResponseWriter, err error) {
	var verr *protocol.ValidationError
	if errors.As(err, &verr) {
		writeJSON(w, http.StatusUnprocessableEntity, protocol.ErrorResponse{Error: err.Error(), Code: "invalid", Fields: verr.Fields, Phrases: verr.Phrases})
		return
	}
	writeError(w, http.StatusBadRequest, "bad_request", err.Error())
}

// fail answers a runtime error: the person's mistakes with their own status, a store too
// slow or away to confirm as 503 with Retry-After, and the rest as 500 without internals.
func (s *Server) fail(w http.ResponseWriter, err error) {
	var verr *protocol.ValidationError
	switch {
	case errors.Is(err, runtime.ErrNoSession):
		writeError(w, http.StatusNotFound, "no_session", "no such session: it may have been deleted, or the link is wrong")
	case errors.Is(err, runtime.ErrNoDecision):
		writeError(w, http.StatusNotFound, "no_decision", "no such question in this session: the link is wrong, or it belongs to another session")
	case errors.Is(err, runtime.ErrNoGrant):
		writeError(w, http.StatusNotFound, "no_grant", "no such grant: it may already be revoked")
	case errors.Is(err, runtime.ErrNoFunction):
		writeError(w, http.StatusNotFound, "no_function", err.Error()+": GET /api/functions lists the ones there are")
	case errors.Is(err, protocol.ErrAlreadyAnswered):
		writeError(w, http.StatusConflict, "already_answered", err.Error())
	case errors.Is(err, runtime.ErrAttemptReused):
		writeError(w, http.StatusConflict, "attempt_reused", err.Error())
	case errors.Is(err, runtime.ErrFunctionBroken):
		writeError(w, http.StatusUnprocessableEntity, "function_broken", err.Error())
	case errors.Is(err, runtime.ErrNoWorkspace):
		writeError(w, http.StatusBadRequest, "no_workspace", err.Error())
	case errors.Is(err, runtime.ErrNotRetryable), errors.Is(err, runtime.ErrRetryFunction), errors.Is(err, runtime.ErrBadFilter):
		writeError(w, http.StatusBadRequest, "bad_request", err.Error())
	case errors.Is(err, runtime.ErrBusy):
		writeError(w, http.StatusConflict, "busy", err.Error())
	case errors.Is(err, runtime.ErrNotWaiting):
		writeError(w, http.StatusConflict, "not_waiting", err.Error())
	case errors.As(err, &verr):
		writeDecodeError(w, err)
	default:
		if wait, ok := retryAfter(err); ok {
			// The write may have been stored all the same: a 500 would report a failure for
			// it. Every change carries an id (the attempt id, the decision) that makes a
			// retry safe, so the answer is "retry", never "failed".
			slog.Warn("store unavailable", "err", err)
			w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
			writeError(w, http.StatusServiceUnavailable, "unavailable",
				"Parley's event store did not answer in time, so this was not confirmed: retry in a moment. "+
					"A retried prompt (same attempt id) or reply is stored once")
			return
		}
		slog.Error("request failed", "err", err)
		writeError(w, http.StatusInternalServerError, "internal", "the server could not do this; it is logged, and retrying may help")
	}
}

// defaultRetryAfter is the wait a 503 suggests when the error names none.
const defaultRetryAfter = 2 * time.Second

// retryAfter reports whether err means the store was too slow or away to say whether a
// call took effect, and how long to wait before retrying. An error with a RetryAfter
// method (the runtime's "unavailable, retry") says so itself; the others are NATS's and
// JetStream's timeouts and absences.
func retryAfter(err error) (time.Duration, bool) {
	var hint interface{ RetryAfter() time.Duration }
	if errors.As(err, &hint) {
		return max(hint.RetryAfter(), time.Second), true
	}
	var apiErr *jetstream.APIError
	switch {
	case errors.Is(err, runtime.ErrUnavailable),
		errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, nats.ErrTimeout),
		errors.Is(err, nats.ErrNoResponders),
		errors.Is(err, nats.ErrConnectionReconnecting),
		errors.Is(err, jetstream.ErrNoStreamResponse),
		errors.Is(err, jetstream.ErrAsyncPublishTimeout),
		// JetStream answers 503 while its cluster elects a leader (error 10008).
		errors.As(err, &apiErr) && apiErr.Code == http.StatusServiceUnavailable:
		return defaultRetryAfter, true
	}
	return 0, false
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, protocol.ErrorResponse{Error: msg, Code: code})
}

// respond writes v with status, or the failure err as fail does.
func (s *Server) respond(w http.ResponseWriter, status int, v any, err error) {
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, status, v)
}

// answer serves the shape most of the API has: read the request's body, ask the runtime one
// thing with it, and answer what the runtime said (or its error) with status.
func answer[T protocol.Request](s *Server, w http.ResponseWriter, r *http.Request, status int, ask func(T) (any, error)) {
	if req, ok := readRequest[T](w, r); ok {
		v, err := ask(req)
		s.respond(w, status, v, err)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func kib(n int) string { return strconv.Itoa(n/1024) + " KiB" }
