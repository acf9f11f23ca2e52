package server

import (
	"fmt"
	"net/http"
	"strconv"

	"parley/protocol"
)

// The workspace catalogues the composer's menus and picker read: files for `@`, skills for
// `/`, and the workspaces a session can work in. Each catalogue is of the workspace that
// ?workspace= names, the default one without it.

func (s *Server) listFiles(w http.ResponseWriter, r *http.Request) {
	query := r.URL.Query()
	q := query.Get("q")
	if len(q) > protocol.MaxFileQueryBytes {
		writeError(w, http.StatusBadRequest, "bad_query",
			fmt.Sprintf("q is %d bytes; the limit is %d: search with a shorter part of the path", len(q), protocol.MaxFileQueryBytes))
		return
	}
	limit := protocol.DefaultFileResults
	if raw := query.Get("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > protocol.MaxFileResults {
			writeError(w, http.StatusBadRequest, "bad_limit",
				fmt.Sprintf("limit %q is not a whole number from 1 to %d; leave it out for %d", raw, protocol.MaxFileResults, protocol.DefaultFileResults))
			return
		}
		limit = n
	}
	list, err := s.rt.SearchFiles(query.Get("workspace"), q, limit)
	s.respond(w, http.StatusOK, list, err)
}

func (s *Server) listSkills(w http.ResponseWriter, r *http.Request) {
	list, err := s.rt.ListSkills(r.URL.Query().Get("workspace"))
	s.respond(w, http.StatusOK, list, err)
}

func (s *Server) listWorkspaces(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.rt.Workspaces())
}
