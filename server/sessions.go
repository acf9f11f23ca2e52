package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"parley/protocol"
	"parley/runtime"
)

// Sessions and their logs: create, list, describe, read events by page, and prompt.

// listSessions lists the sessions (GET /api/sessions), or the archived ones with
// ?archived=true. With ?wait=<version> (the version of the last answer) it answers once the
// session index changed since, or after listHold: the sidebar's live list, one held request
// per page, as the approvals queue's.
func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var archived bool
	switch a := q.Get("archived"); a {
	case "", "false":
	case "true":
		archived = true
	default:
		writeError(w, http.StatusBadRequest, "bad_archived", "archived "+strconv.Quote(a)+" is not true or false")
		return
	}
	var wait *uint64
	if v := q.Get("wait"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad_request", "?wait= must be the version of the last answer, a whole number")
			return
		}
		wait = &n
	}
	list, err := s.rt.SessionList(r.Context(), archived, wait, listHold)
	if err != nil && r.Context().Err() != nil {
		return // the client went away while the request was held: nothing to answer
	}
	s.respond(w, http.StatusOK, list, err)
}

// listHold is how long GET /api/sessions?wait= holds a request when nothing changes: as the
// approvals queue's hold, short enough for proxies that cut idle requests.
const listHold = queueHold

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) {
	answer(s, w, r, http.StatusCreated, func(req protocol.CreateSessionRequest) (any, error) {
		return s.rt.CreateSession(r.Context(), req)
	})
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request) {
	info, err := s.rt.Session(r.Context(), r.PathValue("id"))
	s.respond(w, http.StatusOK, info, err)
}

// updateSession renames or archives a session (PATCH /api/sessions/{id}).
func (s *Server) updateSession(w http.ResponseWriter, r *http.Request) {
	answer(s, w, r, http.StatusOK, func(req protocol.UpdateSessionRequest) (any, error) {
		return s.rt.UpdateSession(r.Context(), r.PathValue("id"), req)
	})
}

// withdrawPrompt takes back a prompt waiting for its turn (POST
// /api/sessions/{id}/prompts/{prompt}/withdraw).
func (s *Server) withdrawPrompt(w http.ResponseWriter, r *http.Request) {
	prompt, ok := promptOffset(w, r)
	if !ok {
		return
	}
	resp, err := s.rt.WithdrawPrompt(r.Context(), r.PathValue("id"), prompt)
	s.respond(w, http.StatusOK, resp, err)
}

// promptOffset reads the {prompt} of a waiting prompt's path: the offset of its user.message.
// A bad one is answered here, with false.
func promptOffset(w http.ResponseWriter, r *http.Request) (uint64, bool) {
	raw := r.PathValue("prompt")
	prompt, err := strconv.ParseUint(raw, 10, 64)
	if err != nil || prompt == 0 {
		writeError(w, http.StatusBadRequest, "bad_prompt", "prompt "+strconv.Quote(raw)+" is not an offset: give the offset of the waiting user.message")
		return 0, false
	}
	return prompt, true
}

// editPrompt changes a prompt waiting for its turn, in place (POST
// /api/sessions/{id}/prompts/{prompt}/edit, body protocol.EditPromptRequest).
func (s *Server) editPrompt(w http.ResponseWriter, r *http.Request) {
	prompt, ok := promptOffset(w, r)
	if !ok {
		return
	}
	answer(s, w, r, http.StatusOK, func(req protocol.EditPromptRequest) (any, error) {
		return s.rt.EditPrompt(r.Context(), r.PathValue("id"), prompt, req)
	})
}

// listEvents answers a page of a session's log after an offset: what a socket would replay,
// for a caller that holds no socket (a script, a test). It reads through Follow and stops at
// the page's end, so a page costs its own length, not the session's.
func (s *Server) listEvents(w http.ResponseWriter, r *http.Request) {
	session := r.PathValue("id")
	query := r.URL.Query()
	after, limit := uint64(0), protocol.DefaultEventPage
	if raw := query.Get("after"); raw != "" {
		n, err := strconv.ParseUint(raw, 10, 64)
		if err != nil || n > protocol.MaxOffset {
			writeError(w, http.StatusBadRequest, "bad_after",
				"after "+strconv.Quote(raw)+" is not an offset: give the last offset you have, or 0 (or nothing) for the start")
			return
		}
		after = n
	}
	if raw := query.Get("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > protocol.MaxEventPage {
			writeError(w, http.StatusBadRequest, "bad_limit",
				"limit "+strconv.Quote(raw)+" is not a whole number from 1 to "+strconv.Itoa(protocol.MaxEventPage)+
					"; leave it out for "+strconv.Itoa(protocol.DefaultEventPage))
			return
		}
		limit = n
	}
	if _, err := s.rt.Session(r.Context(), session); err != nil {
		s.fail(w, err)
		return
	}
	head, err := s.rt.Head(r.Context(), session)
	if err != nil {
		s.fail(w, err)
		return
	}
	if after > head {
		// As on the socket: offsets only grow, so this after is of another log.
		writeError(w, http.StatusBadRequest, "after_past_end", fmt.Sprintf(
			"after %d is past the end of session %s (its last offset is %d): your copy is not of this log; read again from after=0", after, session, head))
		return
	}
	page := protocol.EventPage{Events: []protocol.Event{}, Next: after, Head: head}
	if after < head {
		ctx, cancel := context.WithTimeout(r.Context(), eventPageTimeout)
		defer cancel()
		events, errc, err := s.rt.Follow(ctx, session, after)
		if err != nil {
			s.fail(w, err)
			return
		}
		for len(page.Events) < limit && page.Next < head {
			select {
			case ev, ok := <-events:
				if !ok {
					s.fail(w, errors.Join(errors.New("the log ended the read early"), ctx.Err()))
					return
				}
				page.Events = append(page.Events, ev)
				page.Next = ev.Offset
			case err := <-errc:
				s.fail(w, err)
				return
			case <-ctx.Done():
				s.fail(w, ctx.Err()) // a deadline answers 503: the store is slow
				return
			}
		}
	}
	writeJSON(w, http.StatusOK, page)
}

// eventPageTimeout bounds one page's read: the events are stored, so only a slow store
// takes longer.
const eventPageTimeout = 10 * time.Second

func (s *Server) sendPrompt(w http.ResponseWriter, r *http.Request) {
	answer(s, w, r, http.StatusOK, func(req protocol.SendPromptRequest) (any, error) {
		return s.rt.SendPrompt(r.Context(), r.PathValue("id"), req)
	})
}

// windowPage answers an older window of a session: the one that ends where the window
// starting at `before` begins (runtime/window.go), with its prelude and its events.
func (s *Server) windowPage(w http.ResponseWriter, r *http.Request) {
	session := r.PathValue("id")
	query := r.URL.Query()
	before, err := strconv.ParseUint(query.Get("before"), 10, 64)
	if err != nil || before == 0 || before > protocol.MaxOffset {
		writeError(w, http.StatusBadRequest, "bad_before",
			"before "+strconv.Quote(query.Get("before"))+" is not an offset: give the from of the window you have")
		return
	}
	size := protocol.MaxTail / 10
	if raw := query.Get("size"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > protocol.MaxTail {
			writeError(w, http.StatusBadRequest, "bad_size",
				"size "+strconv.Quote(raw)+" is not a whole number from 1 to "+strconv.Itoa(protocol.MaxTail))
			return
		}
		size = n
	}
	win, prelude, err := s.rt.Window(r.Context(), session, before, size)
	if errors.Is(err, runtime.ErrBadWindow) {
		writeError(w, http.StatusBadRequest, "bad_before", err.Error())
		return
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	page := protocol.WindowPage{Window: win, Before: before, Prelude: prelude, Events: []protocol.Event{}}
	if page.Prelude == nil {
		page.Prelude = []protocol.Event{}
	}
	if win.From == 0 {
		writeJSON(w, http.StatusOK, page) // nothing older than before
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), eventPageTimeout)
	defer cancel()
	events, errc, err := s.rt.Follow(ctx, session, win.From-1)
	if err != nil {
		s.fail(w, err)
		return
	}
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				s.fail(w, errors.Join(errors.New("the log ended the read early"), ctx.Err()))
				return
			}
			if ev.Offset >= before {
				writeJSON(w, http.StatusOK, page)
				return
			}
			page.Events = append(page.Events, ev)
		case err := <-errc:
			s.fail(w, err)
			return
		case <-ctx.Done():
			s.fail(w, ctx.Err())
			return
		}
	}
}
