package api

import (
	"context"
	"net/url"
	"strconv"

	"parley/protocol"
)

// ListCommands returns the server's slash commands and examples.
func (c *Client) ListCommands(ctx context.Context) (protocol.CommandList, error) {
	var out protocol.CommandList
	err := c.do(ctx, methodGet, "/api/commands", nil, &out)
	return out, err
}

// ListFunctions returns the functions a person can run from the fn-form.
func (c *Client) ListFunctions(ctx context.Context) ([]protocol.Function, error) {
	var out protocol.FunctionList
	err := c.do(ctx, methodGet, "/api/functions", nil, &out)
	return out.Functions, err
}

// RunFunction starts a run of the named function. It answers at once with the session and
// the run's id; the run's events then stream on that session's socket.
func (c *Client) RunFunction(ctx context.Context, name string, req protocol.RunFunctionRequest) (protocol.RunFunctionResponse, error) {
	if err := req.Validate(); err != nil {
		return protocol.RunFunctionResponse{}, err
	}
	var out protocol.RunFunctionResponse
	err := c.do(ctx, methodPost, "/api/functions/"+url.PathEscape(name)+"/run", req, &out)
	return out, err
}

// ListFiles returns the workspace files that best match query, at most limit of them.
func (c *Client) ListFiles(ctx context.Context, query string, limit int) (protocol.FileList, error) {
	var out protocol.FileList
	q := url.Values{"q": {query}}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	err := c.do(ctx, methodGet, "/api/files?"+q.Encode(), nil, &out)
	return out, err
}

// ListSkills returns the workspace's skills.
func (c *Client) ListSkills(ctx context.Context) ([]protocol.Skill, error) {
	var out protocol.SkillList
	err := c.do(ctx, methodGet, "/api/skills", nil, &out)
	return out.Skills, err
}
