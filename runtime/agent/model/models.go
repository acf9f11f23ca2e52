package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"parley/protocol"
)

// The controls row's side of the agent: the models the endpoint lists (for the picker), the
// model a session chose (session.model in its log), and the tokens each call used
// (turn.usage, for the context ring).

// modelsTTL is how long a listing is reused: the picker asks on every mount, and an endpoint
// rarely changes its models, but a model pulled a minute ago should show.
const modelsTTL = 30 * time.Second

// listing is a cached answer of GET <url>/models.
type listing struct {
	mu     sync.Mutex
	at     time.Time
	models []protocol.ModelInfo
	err    error
}

// Models lists the endpoint's models through go-openai's ListModels, cached for a while.
// Each one's context window is read from the listing when the server says it (vLLM's
// max_model_len, LM Studio's max_context_length, OpenRouter's context_length, llama.cpp's
// meta.n_ctx_train); go-openai's Model type drops those fields, so the body is read again.
// The error is in words a person can act on.
func (a *Agent) Models(ctx context.Context) ([]protocol.ModelInfo, error) {
	a.models.mu.Lock()
	defer a.models.mu.Unlock()
	if now := a.cfg.Now(); !a.models.at.IsZero() && now.Sub(a.models.at) < modelsTTL {
		return a.models.models, a.models.err
	}
	models, err := a.listModels(ctx)
	if ctx.Err() != nil {
		return nil, err // the asker went away: nothing learned about the endpoint
	}
	a.models.at, a.models.models, a.models.err = a.cfg.Now(), models, err
	return models, err
}

func (a *Agent) listModels(ctx context.Context) ([]protocol.ModelInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	doer := &bodyDoer{client: a.cfg.HTTPClient}
	cc := openai.DefaultConfig(a.cfg.Key)
	cc.BaseURL = strings.TrimRight(a.cfg.URL, "/")
	cc.HTTPClient = doer
	list, err := openai.NewClientWithConfig(cc).ListModels(ctx)
	if err != nil {
		return nil, listError(err, a.cfg.URL)
	}
	windows := windowsOf(doer.body)
	out := make([]protocol.ModelInfo, 0, len(list.Models))
	for _, m := range list.Models {
		out = append(out, protocol.ModelInfo{ID: m.ID, Window: windows[m.ID]})
	}
	return out, nil
}

// listError words a listing's failure for the picker, with the server's own words.
func listError(err error, url string) error {
	said := ""
	if s := serverText(err); s != "" {
		said = " The server said: “" + s + "”"
	}
	switch code := status(err); {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return fmt.Errorf("the model server at %s refused to list its models (%d): check the key in PARLEY_MODEL_KEY or OPENAI_API_KEY.%s", url, code, said)
	case code != 0:
		return fmt.Errorf("the model server at %s did not list its models (%d at %s/models).%s", url, code, strings.TrimRight(url, "/"), said)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("the model server at %s cannot be reached (connection refused): is it running?", url)
	}
	return fmt.Errorf("the model server at %s did not list its models: %v", url, err)
}

// bodyDoer keeps a copy of the last successful response's body (bounded).
type bodyDoer struct {
	client *http.Client
	body   []byte
}

func (d *bodyDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.client.Do(req)
	if err != nil || resp.StatusCode >= 400 {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	d.body = body
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// windowsOf reads the context windows a listing names, by model id.
func windowsOf(body []byte) map[string]int {
	var raw struct {
		Data []struct {
			ID               string `json:"id"`
			MaxModelLen      int    `json:"max_model_len"`
			MaxContextLength int    `json:"max_context_length"`
			ContextLength    int    `json:"context_length"`
			ContextWindow    int    `json:"context_window"`
			Meta             struct {
				NCtxTrain int `json:"n_ctx_train"`
			} `json:"meta"`
		} `json:"data"`
	}
	out := map[string]int{}
	if json.Unmarshal(body, &raw) != nil {
		return out
	}
	for _, m := range raw.Data {
		for _, w := range []int{m.ContextLength, m.ContextWindow, m.MaxContextLength, m.MaxModelLen, m.Meta.NCtxTrain} {
			if w > 0 {
				out[m.ID] = w
				break
			}
		}
	}
	return out
}

// sessionModel is the model a session's log chose last (session.model), or fallback.
func sessionModel(evs []protocol.Event, fallback string) string {
	model := fallback
	for _, ev := range evs {
		if ev.Type != protocol.EventSessionModel {
			continue
		}
		if m, err := protocol.DecodeEventData[protocol.SessionModel](ev); err == nil && m.Model != "" {
			model = m.Model
		}
	}
	return model
}

// UsageRecorder is implemented by tools that store what each model call used (the runtime's,
// as turn.usage). The loop records usage only where it can.
type UsageRecorder interface {
	Usage(ctx context.Context, u protocol.TurnUsage) error
}
