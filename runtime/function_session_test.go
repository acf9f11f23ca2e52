package runtime

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

// TestAFunctionRunNamesABlankSession: a function run in the hero's blank session names it
// after the function and dates it from the run, as a first prompt does; a session that has
// a title keeps it.
func TestAFunctionRunNamesABlankSession(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()
	blank, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	named, err := rt.CreateSession(ctx, protocol.CreateSessionRequest{Title: "kept"})
	require.NoError(t, err)
	for _, id := range []string{blank.ID, named.ID} {
		_, err = rt.RunFunction(ctx, "greet", protocol.RunFunctionRequest{Session: id, Args: raw(map[string]any{"name": "Ada"})})
		require.NoError(t, err)
		waitFor(t, rt, id, "run ends", testkit.Has(protocol.EventTurnEnded))
	}
	got, err := rt.Session(ctx, blank.ID)
	require.NoError(t, err)
	assert.Equal(t, "Greet someone", got.Title)
	assert.False(t, got.Blank)
	assert.NotZero(t, got.Active, "dated from the run")
	got, err = rt.Session(ctx, named.ID)
	require.NoError(t, err)
	assert.Equal(t, "kept", got.Title)
}
