package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"parley/protocol"
)

// The tap is each runtime instance's live view of the whole log: outcomes of decisions reach
// the waiter that holds them and stop requests reach the turn they stop, whichever replica
// stored them.
type tap struct {
	it jetstream.MessagesContext
}

func startTap(ctx context.Context, log *Log, handle func(protocol.Event)) (*tap, error) {
	cons, err := log.js.OrderedConsumer(ctx, StreamName, jetstream.OrderedConsumerConfig{
		FilterSubjects:    []string{"session.>"},
		DeliverPolicy:     jetstream.DeliverNewPolicy,
		InactiveThreshold: log.followIdle,
	})
	if err != nil {
		return nil, fmt.Errorf("tap: %w", err)
	}
	it, err := cons.Messages()
	if err != nil {
		return nil, fmt.Errorf("tap: %w", err)
	}
	go func() {
		for {
			msg, err := it.Next()
			if err != nil {
				if !errors.Is(err, jetstream.ErrMsgIteratorClosed) {
					slog.Warn("tap stopped", "err", err)
				}
				return
			}
			meta, err := msg.Metadata()
			if err != nil {
				continue
			}
			ev, err := decode(msg.Subject(), meta.Sequence.Stream, msg.Data())
			if err != nil {
				continue
			}
			handle(ev)
		}
	}()
	return &tap{it: it}, nil
}

func (t *tap) stop() { t.it.Stop() }

// runtimesBucket holds one key per live runtime instance, refreshed by a heartbeat and
// expiring with the bucket's max age. A decision whose owner has no key cannot be resumed.
const runtimesBucket = "PARLEY_RUNTIMES"

type presence struct {
	kv    jetstream.KeyValue
	owner string
	lease time.Duration
}

func openPresence(ctx context.Context, js jetstream.JetStream, owner string, lease time.Duration) (*presence, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      runtimesBucket,
		Description: "live Parley runtime instances",
		Storage:     jetstream.MemoryStorage,
		TTL:         lease,
	})
	if err != nil {
		return nil, fmt.Errorf("open presence: %w", err)
	}
	p := &presence{kv: kv, owner: owner, lease: lease}
	return p, p.beat(ctx)
}

func (p *presence) beat(ctx context.Context) error {
	_, err := p.kv.Put(ctx, p.owner, []byte(time.Now().UTC().Format(time.RFC3339)))
	return err
}

func (p *presence) alive(ctx context.Context, owner string) bool {
	_, err := p.kv.Get(ctx, owner)
	return err == nil
}

func (p *presence) leave(ctx context.Context) { _ = p.kv.Delete(ctx, p.owner) }
