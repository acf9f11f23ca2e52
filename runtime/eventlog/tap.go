package eventlog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"parley/protocol"
	"parley/runtime/kv"
)

// Tap is one runtime instance's live view of the whole log: outcomes of decisions reach the
// waiter that holds them and stop requests reach the turn they stop, whichever replica
// stored them.
type Tap struct {
	it jetstream.MessagesContext
}

// StartTap hands every event stored from now on to handle, in log order.
func (l *Log) StartTap(ctx context.Context, handle func(protocol.Event)) (*Tap, error) {
	cons, err := l.js.OrderedConsumer(ctx, StreamName, jetstream.OrderedConsumerConfig{
		FilterSubjects:    []string{AllSessions},
		DeliverPolicy:     jetstream.DeliverNewPolicy,
		InactiveThreshold: l.followIdle,
	})
	if err != nil {
		return nil, fmt.Errorf("tap: %w", err)
	}
	it, err := cons.Messages(jetstream.PullExpiry(pullExpiry), jetstream.PullHeartbeat(pullHeartbeat))
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
			if ev, err := decodeMsg(msg); err == nil {
				handle(ev)
			}
		}
	}()
	return &Tap{it: it}, nil
}

// A pull that sees no heartbeat for two of these is started again: on a cluster, a consumer
// on a node that died is recreated on a live one within seconds, not the library's default
// of a minute (30 s pulls, 15 s heartbeats). A heartbeat a second is one small message per
// follower.
const (
	pullExpiry    = 5 * time.Second
	pullHeartbeat = time.Second
)

// Stop ends the tap.
func (t *Tap) Stop() { t.it.Stop() }

// Bell is a delivered prompt: its doorbell. It stays unacknowledged until its turn starts,
// so a crash before that rings it again.
type Bell interface {
	Ack() error
	Nak() error
	NakWithDelay(delay time.Duration) error
	InProgress() error
}

// agentConsumer is the durable consumer through which the runtime learns of prompts. Being
// durable, a prompt stored while no server ran is rung when one starts, and replicas sharing
// the stream ring each prompt once.
const agentConsumer = "agent"

// Doorbells reads every user message once, through the durable consumer, and hands it to
// ring with its bell. Other events on the filtered subjects are acknowledged at once.
type Doorbells struct {
	cc jetstream.ConsumeContext
}

// StartDoorbells starts the consumer.
func (l *Log) StartDoorbells(ctx context.Context, ring func(protocol.Event, Bell)) (*Doorbells, error) {
	cons, err := l.stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable:        agentConsumer,
		Description:    "answers user messages",
		FilterSubjects: PromptSubjects,
		AckPolicy:      jetstream.AckExplicitPolicy,
		DeliverPolicy:  jetstream.DeliverAllPolicy,
		// A runner holds one bell per session with work (its anchor, see runtime/turns.go), so
		// this bounds the sessions that can be busy at once, across replicas, plus the bells a
		// dead process held until their ack wait ends.
		MaxAckPending: 8192,
		// A prompt stays unacknowledged until its turn starts; the runtime keeps held ones
		// alive with InProgress well within this.
		AckWait: 30 * time.Second,
	})
	if err != nil {
		return nil, fmt.Errorf("agent consumer: %w", err)
	}
	d := &Doorbells{}
	d.cc, err = cons.Consume(func(msg jetstream.Msg) {
		ev, err := decodeMsg(msg)
		if err != nil {
			_ = msg.Term()
			return
		}
		if ev.Type != protocol.EventUserMessage {
			_ = msg.Ack()
			return
		}
		ring(ev, msg)
	}, jetstream.PullExpiry(pullExpiry), jetstream.PullHeartbeat(pullHeartbeat))
	if err != nil {
		return nil, fmt.Errorf("agent consume: %w", err)
	}
	return d, nil
}

// Stop ends the consumer; unacknowledged bells ring again after their ack wait.
func (d *Doorbells) Stop() { d.cc.Stop() }

// Pending reports how many user messages the doorbell consumer has not delivered yet and how
// many it delivered without an acknowledgement.
func (l *Log) Pending(ctx context.Context) (undelivered, unacked int, err error) {
	cons, err := l.stream.Consumer(ctx, agentConsumer)
	if err != nil {
		return 0, 0, err
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return 0, 0, err
	}
	return int(info.NumPending), info.NumAckPending, nil
}

// UnackedSessions lists the sessions of prompts the doorbell consumer delivered and nobody
// acknowledged: after a crash, their bells ring again only when their ack wait ends, so the
// runtime wakes these sessions at start instead. It reads only the consumer's unacknowledged
// window (after its ack floor, through its last delivery), not the history.
func (l *Log) UnackedSessions(ctx context.Context) ([]string, error) {
	cons, err := l.stream.Consumer(ctx, agentConsumer)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the doorbells: %w", err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the doorbells: %w", err)
	}
	floor, last := info.AckFloor.Stream, info.Delivered.Stream
	if info.NumAckPending == 0 || last <= floor {
		return nil, nil
	}
	seen := map[string]bool{}
	var out []string
	err = l.scan(ctx, jetstream.OrderedConsumerConfig{
		FilterSubjects: PromptSubjects,
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:    floor + 1,
	}, func(ev protocol.Event) bool {
		if ev.Offset > last {
			return false
		}
		if !seen[ev.Session] {
			seen[ev.Session] = true
			out = append(out, ev.Session)
		}
		return ev.Offset < last
	})
	if err != nil {
		return out, fmt.Errorf("read the doorbells: %w", err)
	}
	return out, nil
}

// runtimesBucket holds one key per live runtime instance, refreshed by a heartbeat and
// expiring with the bucket's max age. A decision whose owner has no key cannot be resumed.
const runtimesBucket = "PARLEY_RUNTIMES"

// Presence says which runtime instances are alive.
type Presence struct {
	kv    jetstream.KeyValue
	owner string
}

// OpenPresence announces owner as alive for lease; Beat renews it.
func (l *Log) OpenPresence(ctx context.Context, owner string, lease time.Duration) (*Presence, error) {
	bucket, err := kv.Bind(ctx, l.js, jetstream.KeyValueConfig{
		Bucket:      runtimesBucket,
		Description: "live Parley runtime instances",
		Storage:     jetstream.MemoryStorage,
		TTL:         lease,
		Replicas:    l.replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("open presence: %w", err)
	}
	p := &Presence{kv: bucket, owner: owner}
	return p, p.Beat(ctx)
}

// Beat renews this instance's lease.
func (p *Presence) Beat(ctx context.Context) error {
	_, err := p.kv.Put(ctx, p.owner, []byte(time.Now().UTC().Format(time.RFC3339)))
	return err
}

// Alive reports whether an instance's lease is current. Only a bucket that answers "no such
// key" says an instance is gone: a read that fails (a cluster electing a leader, a link
// down) counts as alive, so nothing a live replica holds is taken from it while the store
// cannot tell; the next sweep asks again.
func (p *Presence) Alive(ctx context.Context, owner string) bool {
	_, err := p.kv.Get(ctx, owner)
	return err == nil || !errors.Is(err, jetstream.ErrKeyNotFound)
}

// Leave ends this instance's lease now.
func (p *Presence) Leave(ctx context.Context) { _ = p.kv.Delete(ctx, p.owner) }
