package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"parley/protocol"
	"parley/runtime/agent/model"
	"parley/runtime/eventlog"
)

// The controls row (docs/composer.md): a session's model and permission mode are events on
// subjects of their own (session.<id>.set.model, .set.permissions), so the gate and the
// agent read the current choice as one last message, never by scanning the log, and the
// browser sees each change on the session's socket like any other event.

// Errors of the controls.
var (
	// ErrNoModelEndpoint: no model is configured, so there is nothing to pick.
	ErrNoModelEndpoint = errors.New("no model endpoint is configured, so the offline agent answers: start Parley with -model-url and -model to pick a model")
	// ErrNoModel: the endpoint does not list the model asked for.
	ErrNoModel = errors.New("no such model")
	// ErrModelsUnavailable: the endpoint's list could not be read.
	ErrModelsUnavailable = errors.New("the model list could not be read")
)

// settingSubject holds one setting of a session; its last message is the current value.
// Session ids are checked before (protocol.ValidSessionID), so an id adds no token.
func settingSubject(session, name string) string { return "session." + session + ".set." + name }

// modelAgent is the model agent, or nil when another agent answers.
func (r *Runtime) modelAgent() *model.Agent {
	a, _ := r.agent.(*model.Agent)
	return a
}

// Models lists the endpoint's models for the picker, the configured one as the default. A
// list that could not be read is an answer too: its error says why, in words.
func (r *Runtime) Models(ctx context.Context) protocol.ModelList {
	a := r.modelAgent()
	if a == nil {
		return protocol.ModelList{Models: []protocol.ModelInfo{}}
	}
	cfg := a.Config()
	out := protocol.ModelList{Configured: true, Default: cfg.Model, Window: cfg.Window, Models: []protocol.ModelInfo{}}
	models, err := a.Models(ctx)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.Models = append(out.Models, models...)
	return out
}

// SetModel records the model a session's next model calls name. The endpoint must list it.
func (r *Runtime) SetModel(ctx context.Context, session string, req protocol.SetModelRequest) (protocol.SessionSettingResponse, error) {
	if _, err := r.Session(ctx, session); err != nil {
		return protocol.SessionSettingResponse{}, err
	}
	list := r.Models(ctx)
	switch {
	case !list.Configured:
		return protocol.SessionSettingResponse{}, ErrNoModelEndpoint
	case list.Error != "":
		return protocol.SessionSettingResponse{}, fmt.Errorf("%w: %s", ErrModelsUnavailable, list.Error)
	case !slices.ContainsFunc(list.Models, func(m protocol.ModelInfo) bool { return m.ID == req.Model }):
		names := make([]string, 0, len(list.Models))
		for _, m := range list.Models {
			names = append(names, strconv.Quote(m.ID))
		}
		return protocol.SessionSettingResponse{}, fmt.Errorf("%w: the endpoint lists no model %q; it lists %s", ErrNoModel, req.Model, strings.Join(names, ", "))
	}
	off, _, err := r.log.Publish(ctx, settingSubject(session, "model"), protocol.EventSessionModel, protocol.SessionModel{Model: req.Model}, "")
	return protocol.SessionSettingResponse{Offset: off}, err
}

// SetPermissions records a session's permission mode; the gate applies it from the next call.
func (r *Runtime) SetPermissions(ctx context.Context, session string, req protocol.SetPermissionsRequest) (protocol.SessionSettingResponse, error) {
	if err := req.Validate(); err != nil {
		return protocol.SessionSettingResponse{}, err
	}
	if _, err := r.Session(ctx, session); err != nil {
		return protocol.SessionSettingResponse{}, err
	}
	off, _, err := r.log.Publish(ctx, settingSubject(session, "permissions"), protocol.EventSessionPermissions, protocol.SessionPermissions{Mode: req.Mode}, "")
	return protocol.SessionSettingResponse{Offset: off}, err
}

// PermissionMode is a session's permission mode: the last one recorded, else the default.
func (r *Runtime) PermissionMode(ctx context.Context, session string) (protocol.PermissionMode, error) {
	ev, err := r.log.Last(ctx, settingSubject(session, "permissions"))
	if errors.Is(err, eventlog.ErrNotFound) {
		return protocol.DefaultPermissionMode, nil
	}
	if err != nil {
		return "", err
	}
	p, err := protocol.DecodeEventData[protocol.SessionPermissions](ev)
	if err != nil {
		return "", err
	}
	return p.Mode, nil
}

var _ model.UsageRecorder = (*tools)(nil)

// Usage stores what one model call used, as turn.usage. Its id follows the call's stream
// (each call opens one), so a turn run again after a crash stores it once.
func (t *tools) Usage(ctx context.Context, u protocol.TurnUsage) error {
	return t.store(ctx, protocol.EventTurnUsage, u, "usage-"+strconv.FormatUint(t.prompt, 10)+"-"+strconv.Itoa(t.streams))
}
