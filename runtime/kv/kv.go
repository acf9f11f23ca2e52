// Package kv keeps JSON records in a JetStream key-value bucket: the sessions index and the
// approval grants are both one.
package kv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Bucket holds records of type T, one a key, encoded as JSON.
type Bucket[T any] struct {
	kv jetstream.KeyValue
}

// Open creates or opens the file-backed bucket name, kept in replicas copies on a JetStream
// cluster (0 or 1: one), its reads the leader's (Bind).
func Open[T any](ctx context.Context, js jetstream.JetStream, name, description string, replicas int) (*Bucket[T], error) {
	kv, err := Bind(ctx, js, jetstream.KeyValueConfig{
		Bucket:      name,
		Description: description,
		Storage:     jetstream.FileStorage,
		Replicas:    replicas,
	})
	if err != nil {
		return nil, err
	}
	return &Bucket[T]{kv: kv}, nil
}

// Bind creates or updates a bucket of raw values to cfg, and binds it with its reads the
// leader's. Every bucket whose reads decide something binds through it.
//
// A bucket made by the client's CreateKeyValue takes direct gets, which any copy answers,
// while a write is acknowledged once two of three copies hold it: the third may answer a read
// just after it with the record before, or none (a session created a moment ago read as "no
// such session"; a lease renewed at the leader read as expired, and a live runtime taken for
// gone). So the bucket's stream is written here with direct gets off, and never turned on
// again: the client's CreateKeyValue and CreateOrUpdateKeyValue turn them back on for a
// bucket that exists, and a runtime that bound in that moment kept reading by direct gets
// after another turned them off, which then had no responders, for good (QA round 24: a
// replica started beside another said "serving" and answered 503 to every read).
//
// Each request is retried while it goes unanswered (Retry): two runtimes started together on
// a fresh cluster create the same buckets at once, and a request lost to an election gave
// both up.
func Bind(ctx context.Context, js jetstream.JetStream, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	var kv jetstream.KeyValue
	err := Retry(ctx, "bucket "+cfg.Bucket, func(ctx context.Context) (err error) {
		if _, err := js.CreateOrUpdateStream(ctx, leaderStream(cfg)); err != nil {
			return err
		}
		for {
			kv, err = js.KeyValue(ctx, cfg.Bucket)
			if !errors.Is(err, jetstream.ErrBucketNotFound) {
				return err
			}
			// Just made, and not yet known where the bind asked: a fresh cluster's metadata
			// catching up (QA round 24: a replica exited with "stream not found" there).
			select {
			case <-ctx.Done():
				return ctx.Err() // unanswered: Retry asks again
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return kv, nil
}

// leaderStream is the stream of the bucket cfg describes, as the client's CreateKeyValue
// makes it (TestLeaderStreamIsTheClientsBucket holds the two together) but with direct gets
// off. It takes the fields Parley's buckets set.
func leaderStream(cfg jetstream.KeyValueConfig) jetstream.StreamConfig {
	history := int64(max(cfg.History, 1))
	duplicates := 2 * time.Minute
	if cfg.TTL > 0 && cfg.TTL < duplicates {
		duplicates = cfg.TTL
	}
	orNone := func(n int64) int64 {
		if n == 0 {
			return -1
		}
		return n
	}
	return jetstream.StreamConfig{
		Name:              "KV_" + cfg.Bucket,
		Description:       cfg.Description,
		Subjects:          []string{"$KV." + cfg.Bucket + ".>"},
		MaxMsgsPerSubject: history,
		MaxBytes:          orNone(cfg.MaxBytes),
		MaxAge:            cfg.TTL,
		MaxMsgSize:        int32(orNone(int64(cfg.MaxValueSize))),
		Storage:           cfg.Storage,
		Replicas:          max(cfg.Replicas, 1),
		AllowRollup:       true,
		DenyDelete:        true,
		Duplicates:        duplicates,
		MaxMsgs:           -1,
		MaxConsumers:      -1,
		AllowDirect:       false,
		Discard:           jetstream.DiscardNew,
	}
}

// Create stores v under key, which must not hold a record yet.
func (b *Bucket[T]) Create(ctx context.Context, key string, v T) error {
	return write(v, func(raw []byte) (uint64, error) { return b.kv.Create(ctx, key, raw) })
}

// write stores v as JSON with store, one of the bucket's writes; the revision is not kept.
func write[T any](v T, store func(raw []byte) (uint64, error)) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = store(raw)
	return err
}

// ErrCorrupt is returned for a record that does not decode as the bucket's type.
var ErrCorrupt = errors.New("record does not decode")

// Get returns the record under key and its revision. A missing key is
// jetstream.ErrKeyNotFound.
func (b *Bucket[T]) Get(ctx context.Context, key string) (T, uint64, error) {
	var v T
	entry, err := b.kv.Get(ctx, key)
	if err != nil {
		return v, 0, err
	}
	if err := json.Unmarshal(entry.Value(), &v); err != nil {
		return v, 0, fmt.Errorf("%s: %w (%w)", key, ErrCorrupt, err)
	}
	return v, entry.Revision(), nil
}

// Update replaces the record under key if it is still at revision rev; otherwise it fails
// with jetstream.ErrKeyRevisionMismatch.
func (b *Bucket[T]) Update(ctx context.Context, key string, v T, rev uint64) error {
	return write(v, func(raw []byte) (uint64, error) { return b.kv.Update(ctx, key, raw, rev) })
}

// Put stores v under key, replacing what it held.
func (b *Bucket[T]) Put(ctx context.Context, key string, v T) error {
	return write(v, func(raw []byte) (uint64, error) { return b.kv.Put(ctx, key, raw) })
}

// Purge deletes key and its history.
func (b *Bucket[T]) Purge(ctx context.Context, key string) error { return b.kv.Purge(ctx, key) }

// List returns the records whose keys match filter (a subject wildcard, such as "ws.*"; ""
// is every key), in no particular order. A key deleted between the listing and its read is
// skipped, and so is a record that does not decode: one bad record must not hide the rest.
func (b *Bucket[T]) List(ctx context.Context, filter string) ([]T, error) {
	var lister jetstream.KeyLister
	var err error
	if filter == "" {
		lister, err = b.kv.ListKeys(ctx)
	} else {
		lister, err = b.kv.ListKeysFiltered(ctx, filter)
	}
	if err != nil {
		return nil, err
	}
	defer lister.Stop()
	var out []T
	for key := range lister.Keys() {
		v, _, err := b.Get(ctx, key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, ErrCorrupt):
			continue
		case err != nil:
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
