package model_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime"
)

const twoModels = `{"object":"list","data":[
	{"id":"test-model","object":"model","owned_by":"me"},
	{"id":"other","object":"model","owned_by":"me","context_length":8192},
	{"id":"vllm-style","object":"model","max_model_len":4096}]}`

func TestTheModelListNamesTheDefaultAndTheWindowsItSays(t *testing.T) {
	srv := newFakeServer(t)
	srv.ListModels(twoModels)
	e := newEnv(t, srv)
	ctx := context.Background()
	list := e.rt.Models(ctx)
	assert.True(t, list.Configured)
	assert.Equal(t, "test-model", list.Default)
	assert.Empty(t, list.Error)
	assert.Equal(t, []protocol.ModelInfo{{ID: "test-model"}, {ID: "other", Window: 8192}, {ID: "vllm-style", Window: 4096}}, list.Models)
	e.rt.Models(ctx)
	assert.Equal(t, 1, srv.Listed(), "cached: the picker asks on every mount")
}

func TestAModelListThatFailsSaysWhyInWords(t *testing.T) {
	e := newEnv(t, newFakeServer(t)) // no list: 404
	list := e.rt.Models(context.Background())
	assert.True(t, list.Configured)
	assert.Equal(t, "test-model", list.Default, "the default stays usable")
	assert.Contains(t, list.Error, "404")
	_, err := e.rt.SetModel(context.Background(), e.session, protocol.SetModelRequest{Model: "other"})
	assert.ErrorIs(t, err, runtime.ErrModelsUnavailable)
}

func TestASessionsModelNamesItsNextCallsAndNotAnotherSessions(t *testing.T) {
	srv := newFakeServer(t, text("one"), text("two"), text("three"))
	srv.ListModels(twoModels)
	e := newEnv(t, srv)
	ctx := context.Background()

	_, err := e.rt.SetModel(ctx, e.session, protocol.SetModelRequest{Model: "nope"})
	require.ErrorIs(t, err, runtime.ErrNoModel)
	assert.Contains(t, err.Error(), `it lists "test-model", "other", "vllm-style"`)

	e.prompt("before")
	_, err = e.rt.SetModel(ctx, e.session, protocol.SetModelRequest{Model: "other"})
	require.NoError(t, err)
	e.prompt("after")

	other, err := e.rt.CreateSession(ctx, protocol.CreateSessionRequest{})
	require.NoError(t, err)
	e.session = other.ID
	e.prompt("elsewhere")

	reqs := srv.requestsSoFar()
	require.Len(t, reqs, 3)
	assert.Equal(t, []string{"test-model", "other", "test-model"}, []string{reqs[0].Model, reqs[1].Model, reqs[2].Model})
}

func TestEachCallsUsageIsStored(t *testing.T) {
	srv := newFakeServer(t, calls("index", call{id: "a", name: "list_files", args: `{}`}), text("done"))
	e := newEnv(t, srv)
	evs := e.prompt("look")
	usage := testkit.OfType(evs, protocol.EventTurnUsage)
	require.Len(t, usage, 2, "one per model call, the tool-call message's too")
	u, err := protocol.DecodeEventData[protocol.TurnUsage](usage[1])
	require.NoError(t, err)
	assert.Equal(t, protocol.TurnUsage{Model: "test-model", PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}, u)
}
