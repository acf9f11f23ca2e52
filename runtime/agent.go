package runtime

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"parley/protocol"
)

// agentConsumer is the durable consumer through which the agent reads prompts. Being durable,
// a prompt stored while no server ran is answered when one starts, and replicas sharing the
// stream answer each prompt once.
const agentConsumer = "agent"

// inbound reads every user message once, through a durable consumer, and hands it to the
// door (Runtime.onBell), which wakes the session's runner.
type inbound struct {
	cc jetstream.ConsumeContext
}

func startInbound(ctx context.Context, log *Log, door func(protocol.Event, jetstream.Msg)) (*inbound, error) {
	cons, err := log.stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable:       agentConsumer,
		Description:   "answers user messages",
		FilterSubject: "session.*.events",
		AckPolicy:     jetstream.AckExplicitPolicy,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		MaxAckPending: 256,
		// A prompt stays unacknowledged until its turn starts; the runtime keeps held ones
		// alive with InProgress well within this.
		AckWait: 30 * time.Second,
	})
	if err != nil {
		return nil, fmt.Errorf("agent consumer: %w", err)
	}
	in := &inbound{}
	in.cc, err = cons.Consume(func(msg jetstream.Msg) {
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
		door(ev, msg)
	})
	if err != nil {
		return nil, fmt.Errorf("agent consume: %w", err)
	}
	return in, nil
}

func (in *inbound) stop() { in.cc.Stop() }

// agentReply is the offline agent's turn: no model is configured, so its reply is
// deterministic and honest about what it is.
func (r *Runtime) agentReply(session string, p pendingPrompt) {
	// The reply's id is derived from the prompt's offset, so a redelivery after a crash
	// cannot answer twice.
	id := "reply-" + strconv.FormatUint(p.offset, 10)
	r.appendEvent(session, protocol.EventAgentMessage, protocol.Message{Text: OfflineReply(p.text)}, id)
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
