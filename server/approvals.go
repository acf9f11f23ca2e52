package server

import (
	"net/http"
	"strconv"
	"time"

	"parley/protocol"
)

// The approvals screen's endpoints (docs/approvals.md).

// queueHold is how long GET /api/approvals?wait= holds a request when nothing changes: short
// enough for proxies that cut idle requests, long enough to cost little.
const queueHold = 25 * time.Second

// approvalQueue answers the queue of pending decisions; with ?wait=<version> it answers once
// the version moved (or after queueHold), which is the screen's live update.
func (s *Server) approvalQueue(w http.ResponseWriter, r *http.Request) {
	var wait *uint64
	if q := r.URL.Query().Get("wait"); q != "" {
		v, err := strconv.ParseUint(q, 10, 64)
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad_request", "?wait= must be the version of the last answer, a whole number")
			return
		}
		wait = &v
	}
	q, err := s.rt.ApprovalQueue(r.Context(), wait, queueHold)
	if err != nil && r.Context().Err() != nil {
		return // the client went away while the request was held: nothing to answer
	}
	s.respond(w, http.StatusOK, q, err)
}

func (s *Server) approvalHistory(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := protocol.HistoryFilter{Session: q.Get("session"), Workspace: q.Get("workspace"), Outcome: q.Get("outcome")}
	for name, dst := range map[string]*uint64{"before": &f.Before} {
		if v := q.Get(name); v != "" {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				writeError(w, http.StatusBadRequest, "bad_request", "?"+name+"= must be a whole number: the next of the previous page")
				return
			}
			*dst = n
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			writeError(w, http.StatusBadRequest, "bad_request", "?limit= must be a whole number from 1 to 200")
			return
		}
		f.Limit = n
	}
	h, err := s.rt.ApprovalHistory(r.Context(), f)
	s.respond(w, http.StatusOK, h, err)
}

func (s *Server) approvalGrants(w http.ResponseWriter, r *http.Request) {
	g, err := s.rt.ApprovalGrants(r.Context())
	s.respond(w, http.StatusOK, g, err)
}

// requestRetry asks the agent to make an expired request again.
func (s *Server) requestRetry(w http.ResponseWriter, r *http.Request) {
	resp, err := s.rt.RequestRetry(r.Context(), r.PathValue("id"), r.PathValue("decision"))
	s.respond(w, http.StatusAccepted, resp, err)
}
