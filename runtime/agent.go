package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"parley/protocol"
)

// agentConsumer is the durable consumer through which the agent reads prompts. Being durable,
// a prompt stored while no server ran is answered when one starts, and replicas sharing the
// stream answer each prompt once.
const agentConsumer = "agent"

// offlineAgent answers every prompt when no model is configured. Its reply is deterministic
// and honest about what it is.
type offlineAgent struct {
	log *Log
	cc  jetstream.ConsumeContext
}

func startOfflineAgent(ctx context.Context, log *Log) (*offlineAgent, error) {
	cons, err := log.stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable:       agentConsumer,
		Description:   "answers user messages",
		FilterSubject: "session.*.events",
		AckPolicy:     jetstream.AckExplicitPolicy,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		MaxAckPending: 64,
	})
	if err != nil {
		return nil, fmt.Errorf("agent consumer: %w", err)
	}
	a := &offlineAgent{log: log}
	a.cc, err = cons.Consume(a.handle)
	if err != nil {
		return nil, fmt.Errorf("agent consume: %w", err)
	}
	return a, nil
}

func (a *offlineAgent) stop() { a.cc.Stop() }

func (a *offlineAgent) handle(msg jetstream.Msg) {
	meta, err := msg.Metadata()
	if err != nil {
		_ = msg.Term()
		return
	}
	ev, err := decode(msg.Subject(), meta.Sequence.Stream, msg.Data())
	if err != nil || ev.Type != protocol.EventUserMessage {
		_ = msg.Ack()
		return
	}
	m, err := ev.DecodeMessage()
	if err != nil {
		_ = msg.Ack()
		return
	}
	reply := protocol.Message{Text: OfflineReply(m.Text)}
	// The reply's id is derived from the prompt's offset, so a redelivery after a crash
	// between append and ack cannot answer twice.
	id := "reply-" + strconv.FormatUint(ev.Offset, 10)
	if _, _, err := a.log.Append(context.Background(), ev.Session, protocol.EventAgentMessage, reply, id); err != nil {
		slog.Warn("offline agent could not reply; will retry", "session", ev.Session, "offset", ev.Offset, "err", err)
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

// OfflineReply is the offline agent's answer to a prompt.
func OfflineReply(prompt string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	if r := []rune(first); len(r) > 80 {
		first = string(r[:80]) + "…"
	}
	return "No model is configured, so no agent can work on “" + first + "” yet. " +
		"This is Parley's offline agent; it gives the same answer to every prompt.\n\n" +
		"What you can do:\n" +
		"• Keep writing: your messages are stored in this session's log and survive reloads and restarts.\n" +
		"• Start another session from the sidebar.\n" +
		"• Run `parley -help` to see the flags this build offers."
}
