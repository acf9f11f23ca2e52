package kv_test

import (
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/runtime/kv"
)

type record struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

func TestBucket(t *testing.T) {
	nc, _ := testkit.JetStream(t, "")
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	ctx := t.Context()
	b, err := kv.Open[record](ctx, js, "TEST_RECORDS", "test records", 1)
	require.NoError(t, err)

	require.NoError(t, b.Create(ctx, "a.one", record{"one", 1}))
	require.NoError(t, b.Create(ctx, "a.two", record{"two", 2}))
	require.NoError(t, b.Create(ctx, "b.three", record{"three", 3}))
	assert.Error(t, b.Create(ctx, "a.one", record{"again", 0}), "Create does not overwrite")

	got, rev, err := b.Get(ctx, "a.one")
	require.NoError(t, err)
	assert.Equal(t, record{"one", 1}, got)
	require.NoError(t, b.Update(ctx, "a.one", record{"one", 10}, rev))
	assert.ErrorIs(t, b.Update(ctx, "a.one", record{"one", 11}, rev), jetstream.ErrKeyRevisionMismatch)
	_, _, err = b.Get(ctx, "missing")
	assert.ErrorIs(t, err, jetstream.ErrKeyNotFound)

	raw, err := js.KeyValue(ctx, "TEST_RECORDS")
	require.NoError(t, err)
	_, err = raw.Put(ctx, "a.bad", []byte("{not json"))
	require.NoError(t, err)
	_, _, err = b.Get(ctx, "a.bad")
	assert.ErrorIs(t, err, kv.ErrCorrupt)

	list, err := b.List(ctx, "a.*")
	require.NoError(t, err)
	assert.ElementsMatch(t, []record{{"one", 10}, {"two", 2}}, list, "the bad record is skipped")
	all, err := b.List(ctx, "")
	require.NoError(t, err)
	assert.Len(t, all, 3)

	require.NoError(t, b.Purge(ctx, "a.two"))
	list, err = b.List(ctx, "a.*")
	require.NoError(t, err)
	assert.Equal(t, []record{{"one", 10}}, list)
}
