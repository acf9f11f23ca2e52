package kv_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
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

// TestAReplicatedBucketReadsFromItsLeader: on a cluster, a bucket's reads go to its leader,
// so a record is there for the read that follows its write, through any node; direct gets,
// which any copy answers, would let one that lags say the record is missing.
func TestAReplicatedBucketReadsFromItsLeader(t *testing.T) {
	c := testkit.StartCluster(t)
	ctx := t.Context()
	var buckets []*kv.Bucket[record]
	for i := range 3 {
		nc, err := nats.Connect(c.Node(i).ClientURL())
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		js, err := jetstream.New(nc)
		require.NoError(t, err)
		b, err := kv.Open[record](ctx, js, "TEST_REPLICATED", "test records", 3)
		require.NoError(t, err)
		buckets = append(buckets, b)
		stream, err := js.Stream(ctx, "KV_TEST_REPLICATED")
		require.NoError(t, err)
		assert.False(t, stream.CachedInfo().Config.AllowDirect, "opened through node %d, direct gets stay off", i)
		assert.Equal(t, 3, stream.CachedInfo().Config.Replicas)
	}
	for n := range 50 {
		key := fmt.Sprintf("k%d", n)
		require.NoError(t, buckets[n%3].Create(ctx, key, record{key, n}))
		for i, b := range buckets {
			got, _, err := b.Get(ctx, key)
			require.NoError(t, err, "read through node %d just after the write", i)
			assert.Equal(t, record{key, n}, got)
		}
	}
}

// TestLeaderStreamIsTheClientsBucket: the stream Bind writes for a bucket is the one the
// client's CreateKeyValue makes for the same settings, but for direct gets, which Bind keeps
// off (the test holds Bind to the client's layout as the client changes).
func TestLeaderStreamIsTheClientsBucket(t *testing.T) {
	nc, _ := testkit.JetStream(t, "")
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	ctx := t.Context()
	for i, cfg := range []jetstream.KeyValueConfig{
		{Description: "records", Storage: jetstream.FileStorage},
		{Description: "leases", Storage: jetstream.MemoryStorage, TTL: 10 * time.Second},
		{Description: "claims", Storage: jetstream.FileStorage, TTL: 5 * time.Minute},
		{Storage: jetstream.FileStorage, History: 5, MaxValueSize: 1 << 10, MaxBytes: 1 << 20},
	} {
		cfg.Bucket = fmt.Sprintf("CLIENT_%d", i)
		_, err := js.CreateKeyValue(ctx, cfg)
		require.NoError(t, err)
		cfg.Bucket = fmt.Sprintf("BOUND_%d", i)
		_, err = kv.Bind(ctx, js, cfg)
		require.NoError(t, err)

		config := func(bucket string) jetstream.StreamConfig {
			s, err := js.Stream(ctx, "KV_"+bucket)
			require.NoError(t, err)
			c := s.CachedInfo().Config
			c.Name, c.Subjects, c.AllowDirect = "", nil, false
			return c
		}
		assert.Equal(t, config(fmt.Sprintf("CLIENT_%d", i)), config(cfg.Bucket), "settings %d", i)
		bound, err := js.Stream(ctx, "KV_"+cfg.Bucket)
		require.NoError(t, err)
		assert.False(t, bound.CachedInfo().Config.AllowDirect)
		assert.Equal(t, []string{"$KV." + cfg.Bucket + ".>"}, bound.CachedInfo().Config.Subjects)
	}
}

// TestBucketsBoundTogetherAllRead: runtimes that bind the same bucket at once, on a fresh
// cluster, all read it. Each read by direct gets once another runtime turned them off, and
// went unanswered for good (QA round 24: a replica started beside another said "serving",
// then answered 503 to every read).
func TestBucketsBoundTogetherAllRead(t *testing.T) {
	c := testkit.StartCluster(t)
	ctx := t.Context()
	const runtimes = 6
	var streams [runtimes]jetstream.JetStream
	for i := range runtimes {
		nc, err := nats.Connect(c.Node(i % 3).ClientURL())
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		streams[i], err = jetstream.New(nc)
		require.NoError(t, err)
	}
	for round := range 4 {
		name := fmt.Sprintf("TOGETHER_%d", round)
		var handles [runtimes]jetstream.KeyValue
		var wg sync.WaitGroup
		for i := range runtimes {
			wg.Go(func() {
				h, err := kv.Bind(ctx, streams[i], jetstream.KeyValueConfig{Bucket: name, Storage: jetstream.FileStorage, Replicas: 3})
				assert.NoError(t, err)
				handles[i] = h
			})
		}
		wg.Wait()
		require.False(t, t.Failed())
		_, err := handles[0].Put(ctx, "k", []byte("v"))
		require.NoError(t, err)
		for i, h := range handles {
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			e, err := h.Get(rctx, "k")
			cancel()
			if assert.NoError(t, err, "round %d: runtime %d reads", round, i) {
				assert.Equal(t, "v", string(e.Value()))
			}
		}
	}
}
