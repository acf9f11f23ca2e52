//go:build !wasm

package main

import (
	"net/http"

	"parley/protocol"
)

// Decisions, turns, grants, commands and functions: requests that ask the runtime to do one
// thing and answer. What follows (a run's events, an outcome) is broadcast on the socket.

func (s *server) listDecisions(w http.ResponseWriter, r *http.Request) {
	list, err := s.rt.PendingDecisions(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

func (s *server) replyDecision(w http.ResponseWriter, r *http.Request) {
	req, ok := readRequest[protocol.ReplyRequest](w, r)
	if !ok {
		return
	}
	resp, err := s.rt.Reply(r.Context(), r.PathValue("id"), r.PathValue("decision"), req)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *server) stopTurn(w http.ResponseWriter, r *http.Request) {
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

func (s *server) listGrants(w http.ResponseWriter, r *http.Request) {
	list, err := s.rt.ListGrants(r.Context())
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

func (s *server) revokeGrant(w http.ResponseWriter, r *http.Request) {
	if err := s.rt.RevokeGrant(r.Context(), r.PathValue("grant")); err != nil {
		s.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *server) listCommands(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.rt.ListCommands())
}

func (s *server) listFunctions(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.rt.ListFunctions())
}

func (s *server) runFunction(w http.ResponseWriter, r *http.Request) {
	req, ok := readRequest[protocol.RunFunctionRequest](w, r)
	if !ok {
		return
	}
	resp, err := s.rt.RunFunction(r.Context(), r.PathValue("name"), req)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, resp)
}
