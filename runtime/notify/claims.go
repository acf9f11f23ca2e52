package notify

import (
	"context"
	"errors"
	"time"

	"parley/runtime/kv"

	"github.com/nats-io/nats.go/jetstream"
)

// ClaimsBucket holds the seen claims: a key per decision, kept for the bucket's TTL.
const ClaimsBucket = "parley_notify_seen"

// MinClaimTTL is the shortest TTL JetStream keeps a KV bucket's values for.
const MinClaimTTL = time.Second

// Claims are the seen claims, shared by every process on the log: a claim stored by any of
// them silences the decision's notification everywhere.
type Claims struct {
	kv jetstream.KeyValue
}

// OpenClaims opens the claims bucket; a claim lives ttl (at least MinClaimTTL), which must
// outlast the grace window it is checked at the end of. replicas is the copies a cluster
// keeps (the log's count).
func OpenClaims(ctx context.Context, js jetstream.JetStream, ttl time.Duration, replicas int) (*Claims, error) {
	bucket, err := kv.Bind(ctx, js, jetstream.KeyValueConfig{
		Bucket:      ClaimsBucket,
		Description: "decisions a person was shown while looking: no notification for them",
		TTL:         max(ttl, MinClaimTTL),
		Storage:     jetstream.FileStorage,
		Replicas:    replicas,
	})
	if err != nil {
		return nil, err
	}
	return &Claims{kv: bucket}, nil
}

func claimKey(session, decision string) string { return session + "." + decision }

// Claim records that decision of session was seen.
func (c *Claims) Claim(ctx context.Context, session, decision string) error {
	_, err := c.kv.Put(ctx, claimKey(session, decision), []byte{1})
	return err
}

// Seen says whether decision of session was claimed within the TTL.
func (c *Claims) Seen(ctx context.Context, session, decision string) (bool, error) {
	_, err := c.kv.Get(ctx, claimKey(session, decision))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return false, nil
	}
	return false, err
}
