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
	out, err := get[protocol.WorkspaceList](ctx, c, "/api/workspaces")
	return out.Workspaces, err
}

// ListCommands returns the server's slash commands and the default workspace's examples.
func (c *Client) ListCommands(ctx context.Context) (protocol.CommandList, error) {
	return c.ListCommandsIn(ctx, "")
}

// ListCommandsIn returns the server's slash commands and a workspace's examples.
func (c *Client) ListCommandsIn(ctx context.Context, workspace string) (protocol.CommandList, error) {
	return get[protocol.CommandList](ctx, c, inWorkspace("/api/commands", workspace, nil))
}

// ListFunctions returns the functions a person can run from the fn-form in the default
// workspace.
func (c *Client) ListFunctions(ctx context.Context) ([]protocol.Function, error) {
	return c.ListFunctionsIn(ctx, "")
}

// ListFunctionsIn returns the functions a person can run from the fn-form in a workspace.
func (c *Client) ListFunctionsIn(ctx context.Context, workspace string) ([]protocol.Function, error) {
	out, err := get[protocol.FunctionList](ctx, c, inWorkspace("/api/functions", workspace, nil))
	return out.Functions, err
}

// RunFunction starts a run of the named function. It answers at once with the session and
// the run's id; the run's events then stream on that session's socket. It runs in the
// session's workspace, or for a new session in req.Workspace.
func (c *Client) RunFunction(ctx context.Context, name string, req protocol.RunFunctionRequest) (protocol.RunFunctionResponse, error) {
	if err := req.Validate(); err != nil {
		return protocol.RunFunctionResponse{}, err
	}
	return call[protocol.RunFunctionResponse](ctx, c, methodPost, "/api/functions/"+url.PathEscape(name)+"/run", req)
}

// ListFiles returns the default workspace's files that best match query, at most limit of
// them.
func (c *Client) ListFiles(ctx context.Context, query string, limit int) (protocol.FileList, error) {
	return c.ListFilesIn(ctx, "", query, limit)
}

// ListFilesIn returns a workspace's files that best match query, at most limit of them
// (0: the server's default).
func (c *Client) ListFilesIn(ctx context.Context, workspace, query string, limit int) (protocol.FileList, error) {
	q := url.Values{"q": {query}}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	return get[protocol.FileList](ctx, c, inWorkspace("/api/files", workspace, q))
}

// ListSkills returns the default workspace's skills.
func (c *Client) ListSkills(ctx context.Context) ([]protocol.Skill, error) {
	return c.ListSkillsIn(ctx, "")
}

// ListSkillsIn returns a workspace's skills.
func (c *Client) ListSkillsIn(ctx context.Context, workspace string) ([]protocol.Skill, error) {
	out, err := get[protocol.SkillList](ctx, c, inWorkspace("/api/skills", workspace, nil))
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
