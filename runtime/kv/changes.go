package kv

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"parley/internal/watermark"
)

// Changes follows every write to a bucket, by any process on the same NATS (a watch of the
// bucket's stream), as a version: the revision of the last write seen. A revision is the
// stream's sequence, the same number on every replica, so a version one runtime answered
// means the same to another. A long poll waits on it (Wait) instead of reading the bucket
// again and again.
type Changes struct {
	w       jetstream.KeyWatcher
	version watermark.Mark
}

// Changes starts following the bucket from its last write. Stop it with Stop.
func (b *Bucket[T]) Changes(ctx context.Context) (*Changes, error) {
	st, err := b.kv.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", b.kv.Bucket(), err)
	}
	var last uint64
	if s, ok := st.(*jetstream.KeyValueBucketStatus); ok {
		last = s.StreamInfo().State.LastSeq
	}
	// Every write after the last one read, history included (a key written twice is two
	// changes), headers only: what changed is read by whoever wakes, from the bucket. Starting
	// at last+1 leaves no gap between the status read and the watch.
	w, err := b.kv.WatchAll(ctx, jetstream.IncludeHistory(), jetstream.MetaOnly(), jetstream.ResumeFromRevision(last+1))
	if err != nil {
		return nil, fmt.Errorf("watch bucket %s: %w", b.kv.Bucket(), err)
	}
	c := &Changes{w: w}
	c.version.Start(last)
	go c.follow()
	return c, nil
}

// follow moves the version with each write the watch delivers, until the watch stops.
func (c *Changes) follow() {
	for e := range c.w.Updates() {
		if e == nil {
			continue // the end of the initial values: none, since the watch starts after them
		}
		c.version.Raise(e.Revision())
	}
}

// Version is the revision of the last write seen.
func (c *Changes) Version() uint64 { return c.version.Value() }

// Next is the version now and a channel closed once it moves (watermark.Mark.Next).
func (c *Changes) Next() (uint64, <-chan struct{}) { return c.version.Next() }

// Wait returns the version once it differs from v, or at the end of ctx or of d.
func (c *Changes) Wait(ctx context.Context, v uint64, d time.Duration) uint64 {
	return c.version.Wait(ctx, v, d)
}

// Stop ends the watch.
func (c *Changes) Stop() { _ = c.w.Stop() }
