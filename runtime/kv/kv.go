// Package kv keeps JSON records in a JetStream key-value bucket: the sessions index and the
// approval grants are both one.
package kv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// Bucket holds records of type T, one a key, encoded as JSON.
type Bucket[T any] struct {
	kv jetstream.KeyValue
}

// Open creates or opens the file-backed bucket name, kept in replicas copies on a JetStream
// cluster (0 or 1: one).
//
// With copies, its reads go to the bucket's leader. A KV bucket is made for direct gets,
// which any copy answers, and a write is acknowledged once two of three hold it: the third
// may answer a read just after it with the record before, or none (a session created a
// moment ago read as "no such session"). So Open turns direct gets off and binds again.
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

// Bind creates or opens a bucket of raw values with cfg and, when it is kept in copies, makes
// its reads the leader's, for the reason Open gives. Every bucket whose reads decide
// something binds through it: a lease read from a copy that lags may have expired there
// while the leader holds its renewal, and a live runtime would be taken for gone.
//
// Each request is retried while it goes unanswered (Retry): two runtimes started together on
// a fresh cluster create the same buckets at once, and a request lost to an election gave
// both up.
func Bind(ctx context.Context, js jetstream.JetStream, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	var kv jetstream.KeyValue
	err := Retry(ctx, "bucket "+cfg.Bucket, func(ctx context.Context) (err error) {
		kv, err = js.CreateOrUpdateKeyValue(ctx, cfg)
		return err
	})
	if err != nil {
		return nil, err
	}
	if cfg.Replicas > 1 {
		err := Retry(ctx, "bucket "+cfg.Bucket, func(ctx context.Context) (err error) {
			kv, err = leaderReads(ctx, js, cfg.Bucket)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("bucket %s: read from its leader: %w", cfg.Bucket, err)
		}
	}
	return kv, nil
}

// leaderReads turns direct gets off on the bucket's stream and binds the bucket again, so
// that its reads are the leader's (the client picks the kind of get when it binds).
func leaderReads(ctx context.Context, js jetstream.JetStream, name string) (jetstream.KeyValue, error) {
	stream, err := js.Stream(ctx, "KV_"+name)
	if err != nil {
		return nil, err
	}
	if cfg := stream.CachedInfo().Config; cfg.AllowDirect {
		cfg.AllowDirect = false
		if _, err := js.UpdateStream(ctx, cfg); err != nil {
			return nil, err
		}
	}
	return js.KeyValue(ctx, name)
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
