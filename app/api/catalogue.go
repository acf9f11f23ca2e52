package api

import (
	"context"
	"net/url"
	"strconv"

	"parley/protocol"
)

// The catalogues are per workspace. The ...In functions name one by its id (GET
// /api/workspaces); the others, and an empty id, read the default workspace.

// ListWorkspaces returns the workspaces a session can work in, the default first.
func (c *Client) ListWorkspaces(ctx context.Context) ([]protocol.Workspace, error) {
	var out protocol.WorkspaceList
	err := c.do(ctx, methodGet, "/api/workspaces", nil, &out)
	return out.Workspaces, err
}

// ListCommands returns the server's slash commands and the default workspace's examples.
func (c *Client) ListCommands(ctx context.Context) (protocol.CommandList, error) {
	return c.ListCommandsIn(ctx, "")
}

// ListCommandsIn returns the server's slash commands and a workspace's examples.
func (c *Client) ListCommandsIn(ctx context.Context, workspace string) (protocol.CommandList, error) {
	var out protocol.CommandList
	err := c.do(ctx, methodGet, inWorkspace("/api/commands", workspace, nil), nil, &out)
	return out, err
}

// ListFunctions returns the functions a person can run from the fn-form in the default
// workspace.
func (c *Client) ListFunctions(ctx context.Context) ([]protocol.Function, error) {
	return c.ListFunctionsIn(ctx, "")
}

// ListFunctionsIn returns the functions a person can run from the fn-form in a workspace.
func (c *Client) ListFunctionsIn(ctx context.Context, workspace string) ([]protocol.Function, error) {
	var out protocol.FunctionList
	err := c.do(ctx, methodGet, inWorkspace("/api/functions", workspace, nil), nil, &out)
	return out.Functions, err
}

// RunFunction starts a run of the named function. It answers at once with the session and
// the run's id; the run's events then stream on that session's socket. It runs in the
// session's workspace, or for a new session in req.Workspace.
func (c *Client) RunFunction(ctx context.Context, name string, req protocol.RunFunctionRequest) (protocol.RunFunctionResponse, error) {
	if err := req.Validate(); err != nil {
		return protocol.RunFunctionResponse{}, err
	}
	var out protocol.RunFunctionResponse
	err := c.do(ctx, methodPost, "/api/functions/"+url.PathEscape(name)+"/run", req, &out)
	return out, err
}

// ListFiles returns the default workspace's files that best match query, at most limit of
// them.
func (c *Client) ListFiles(ctx context.Context, query string, limit int) (protocol.FileList, error) {
	return c.ListFilesIn(ctx, "", query, limit)
}

// ListFilesIn returns a workspace's files that best match query, at most limit of them
// (0: the server's default).
func (c *Client) ListFilesIn(ctx context.Context, workspace, query string, limit int) (protocol.FileList, error) {
	var out protocol.FileList
	q := url.Values{"q": {query}}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	err := c.do(ctx, methodGet, inWorkspace("/api/files", workspace, q), nil, &out)
	return out, err
}

// ListSkills returns the default workspace's skills.
func (c *Client) ListSkills(ctx context.Context) ([]protocol.Skill, error) {
	return c.ListSkillsIn(ctx, "")
}

// ListSkillsIn returns a workspace's skills.
func (c *Client) ListSkillsIn(ctx context.Context, workspace string) ([]protocol.Skill, error) {
	var out protocol.SkillList
	err := c.do(ctx, methodGet, inWorkspace("/api/skills", workspace, nil), nil, &out)
	return out.Skills, err
}

// inWorkspace is path with its query, and ?workspace= unless workspace is empty.
func inWorkspace(path, workspace string, q url.Values) string {
	if workspace != "" {
		if q == nil {
			q = url.Values{}
		}
		q.Set("workspace", workspace)
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}
