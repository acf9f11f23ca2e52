package server

import (
	"fmt"
	"net/http"

	"parley/protocol"
)

// Decisions, turns, grants, commands and functions: requests that ask the runtime to do one
// thing and answer. What follows (a run's events, an outcome) is broadcast on the socket.

func (s *Server) listDecisions(w http.ResponseWriter, r *http.Request) {
	list, err := s.rt.PendingDecisions(r.Context(), r.PathValue("id"))
	s.respond(w, http.StatusOK, list, err)
}

func (s *Server) replyDecision(w http.ResponseWriter, r *http.Request) {
	answer(s, w, r, http.StatusOK, func(req protocol.ReplyRequest) (any, error) {
		return s.rt.Reply(r.Context(), r.PathValue("id"), r.PathValue("decision"), req)
	})
}

func (s *Server) stopTurn(w http.ResponseWriter, r *http.Request) {
	var req protocol.StopRequest
	if r.ContentLength != 0 {
		var ok bool
		if req, ok = readRequest[protocol.StopRequest](w, r); !ok {
			return
		}
	}
	resp, err := s.rt.StopTurn(r.Context(), r.PathValue("id"), req)
	if err != nil {
		s.fail(w, err)
		return
	}
	status := http.StatusAccepted
	if !resp.Running {
		status = http.StatusOK
	}
	writeJSON(w, status, resp)
}

func (s *Server) listGrants(w http.ResponseWriter, r *http.Request) {
	list, err := s.rt.ListGrants(r.Context(), r.URL.Query().Get("workspace"))
	s.respond(w, http.StatusOK, list, err)
}

func (s *Server) revokeGrant(w http.ResponseWriter, r *http.Request) {
	if err := s.rt.RevokeGrant(r.Context(), r.URL.Query().Get("workspace"), r.PathValue("grant")); err != nil {
		s.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) listCommands(w http.ResponseWriter, r *http.Request) {
	list, err := s.rt.ListCommands(r.URL.Query().Get("workspace"))
	s.respond(w, http.StatusOK, list, err)
}

func (s *Server) listFunctions(w http.ResponseWriter, r *http.Request) {
	list, err := s.rt.ListFunctions(r.URL.Query().Get("workspace"))
	s.respond(w, http.StatusOK, list, err)
}

func (s *Server) runFunction(w http.ResponseWriter, r *http.Request) {
	req, ok := readRequest[protocol.RunFunctionRequest](w, r)
	if !ok {
		return
	}
	// ?workspace= is the body's field for a caller that builds the URL from the catalogue's.
	if q := r.URL.Query().Get("workspace"); q != "" {
		if req.Workspace != "" && req.Workspace != q {
			writeError(w, http.StatusBadRequest, "workspace_conflict",
				fmt.Sprintf("?workspace=%s and the body's workspace %q differ: give one of them", q, req.Workspace))
			return
		}
		req.Workspace = q
	}
	resp, err := s.rt.RunFunction(r.Context(), r.PathValue("name"), req)
	s.respond(w, http.StatusAccepted, resp, err)
}
