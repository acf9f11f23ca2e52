package server

import (
	"errors"
	"net/http"

	"parley/protocol"
	"parley/runtime"
)

// The controls row: the endpoint's models, and a session's model and permission mode. Each
// is one handler; the runtime records the choices as events of the session.

// listModels answers GET /api/models: what the endpoint lists, the configured model flagged
// as the default. A list that cannot be read still answers 200, with the reason in words, so
// the picker can say it and keep the default.
func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.rt.Models(r.Context()))
}

// setModel answers POST /api/sessions/{id}/model.
func (s *Server) setModel(w http.ResponseWriter, r *http.Request) {
	req, ok := readRequest[protocol.SetModelRequest](w, r)
	if !ok {
		return
	}
	resp, err := s.rt.SetModel(r.Context(), r.PathValue("id"), req)
	switch {
	case errors.Is(err, runtime.ErrNoModelEndpoint):
		writeError(w, http.StatusConflict, "no_model_endpoint", err.Error())
	case errors.Is(err, runtime.ErrNoModel):
		writeJSON(w, http.StatusUnprocessableEntity, protocol.ErrorResponse{Error: err.Error(), Code: "no_model",
			Fields: map[string]string{"model": err.Error()}})
	case errors.Is(err, runtime.ErrModelsUnavailable):
		writeError(w, http.StatusBadGateway, "models_unavailable", err.Error())
	case err != nil:
		s.fail(w, err)
	default:
		writeJSON(w, http.StatusOK, resp)
	}
}

// setPermissions answers POST /api/sessions/{id}/permissions.
func (s *Server) setPermissions(w http.ResponseWriter, r *http.Request) {
	answer(s, w, r, http.StatusOK, func(req protocol.SetPermissionsRequest) (any, error) {
		return s.rt.SetPermissions(r.Context(), r.PathValue("id"), req)
	})
}
