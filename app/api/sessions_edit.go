package api

import (
	"context"
	"strconv"

	"parley/protocol"
)

// UpdateSession renames or archives a session (PATCH /api/sessions/{id}).
func (c *Client) UpdateSession(ctx context.Context, id string, req protocol.UpdateSessionRequest) (protocol.SessionInfo, error) {
	return call[protocol.SessionInfo](ctx, c, "PATCH", "/api/sessions/"+id, req)
}

// ListArchivedSessions returns the archived sessions, the last used first
// (GET /api/sessions?archived=true); UpdateSession with Archived false restores one.
func (c *Client) ListArchivedSessions(ctx context.Context) ([]protocol.SessionInfo, error) {
	out, err := get[protocol.SessionList](ctx, c, "/api/sessions?archived=true")
	return out.Sessions, err
}

// WithdrawPrompt takes back a prompt waiting for its turn.
func (c *Client) WithdrawPrompt(ctx context.Context, session string, prompt uint64) (protocol.WithdrawResponse, error) {
	return call[protocol.WithdrawResponse](ctx, c, methodPost, "/api/sessions/"+session+"/prompts/"+strconv.FormatUint(prompt, 10)+"/withdraw", nil)
}

// EditPrompt changes a prompt waiting for its turn; it keeps its place in the queue.
func (c *Client) EditPrompt(ctx context.Context, session string, prompt uint64, text string) (protocol.EditResponse, error) {
	return call[protocol.EditResponse](ctx, c, methodPost, "/api/sessions/"+session+"/prompts/"+strconv.FormatUint(prompt, 10)+"/edit", protocol.EditPromptRequest{Text: text})
}
