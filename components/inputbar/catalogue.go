package inputbar

import (
	"context"

	"parley/app/api"
	"parley/protocol"
)

// catalogue reads the server's catalogues for the workspace of the session the bar shows.
type catalogue struct {
	c   *api.Client
	bar *Bar
}

func (k *catalogue) Workspace() string { return k.bar.Workspace }

func (k *catalogue) ListCommands(ctx context.Context) (protocol.CommandList, error) {
	return k.c.ListCommandsIn(ctx, k.Workspace())
}

func (k *catalogue) ListFunctions(ctx context.Context) ([]protocol.Function, error) {
	return k.c.ListFunctionsIn(ctx, k.Workspace())
}

func (k *catalogue) ListSkills(ctx context.Context) ([]protocol.Skill, error) {
	return k.c.ListSkillsIn(ctx, k.Workspace())
}

func (k *catalogue) ListFiles(ctx context.Context, query string, limit int) (protocol.FileList, error) {
	return k.c.ListFilesIn(ctx, k.Workspace(), query, limit)
}

func (k *catalogue) ListSessions(ctx context.Context) ([]protocol.SessionInfo, error) {
	return k.c.ListSessions(ctx)
}
