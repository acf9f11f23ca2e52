package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"parley/protocol"
)

// StreamName is the JetStream stream that holds every session's events.
const StreamName = "PARLEY_EVENTS"

// subjectOf is the subject of a session's ordinary events. Ids are validated by the
// protocol's alphabet, so they can never add a token or a wildcard.
func subjectOf(session string) string { return "session." + session + ".events" }

// decisionSubject holds one decision's events: its question.asked, then at most one
// outcome. Giving each decision its own subject lets JetStream settle "first reply wins"
// atomically (an outcome is stored only if the subject still ends at the question) and lets
// the registry list pending decisions as the last message per subject.
func decisionSubject(session, decision string) string {
	return "session." + session + ".q." + decision
}

// turnSubject holds a session's turn.started and turn.ended events. A turn starts only while
// this subject ends where its claimer read it, which makes one session's turns exclusive
// across replicas; its last event says whether a turn is open.
func turnSubject(session string) string { return "session." + session + ".turn" }

// sessionSubjects matches every subject of one session, in log order.
func sessionSubjects(session string) string { return "session." + session + ".>" }

func sessionOfSubject(subject string) string {
	s := strings.TrimPrefix(subject, "session.")
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return s[:i]
	}
	return s
}

// record is how an event is stored: the session and offset come from the subject and the
// stream sequence, so they are not repeated in the body.
type record struct {
	Type protocol.EventType `json:"type"`
	At   int64              `json:"at"`
	Data json.RawMessage    `json:"data,omitempty"`
}

// Log is the append-only event log of all sessions, on JetStream. A session's offset is the
// stream sequence of its event: strictly increasing within the session, shared across
// sessions, and stable across restarts.
type Log struct {
	js     jetstream.JetStream
	stream jetstream.Stream
	now    func() time.Time
	// followIdle bounds how long the server keeps an ordered consumer whose follower vanished
	// without a goodbye (a killed process, a dropped link).
	followIdle time.Duration
}

// OpenLog creates or updates the event stream.
func OpenLog(ctx context.Context, nc *nats.Conn, now func() time.Time) (*Log, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	stream, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        StreamName,
		Description: "Parley session events",
		Subjects:    []string{"session.>"},
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
		// A retried send carries the same Nats-Msg-Id and is stored once within this window.
		Duplicates: 10 * time.Minute,
	})
	if err != nil {
		return nil, fmt.Errorf("create stream %s: %w", StreamName, err)
	}
	return &Log{js: js, stream: stream, now: now, followIdle: 10 * time.Second}, nil
}

// Append stores an event. A non-empty msgID makes the append idempotent: a second append
// with the same id returns the first one's offset and reports duplicate.
func (l *Log) Append(ctx context.Context, session string, typ protocol.EventType, data any, msgID string) (offset uint64, duplicate bool, err error) {
	return l.publish(ctx, subjectOf(session), typ, data, msgID)
}

// publish stores an event on a subject of the log, with extra publish conditions.
func (l *Log) publish(ctx context.Context, subject string, typ protocol.EventType, data any, msgID string, opts ...jetstream.PublishOpt) (offset uint64, duplicate bool, err error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return 0, false, fmt.Errorf("encode %s: %w", typ, err)
	}
	body, err := json.Marshal(record{Type: typ, At: l.now().UnixMilli(), Data: raw})
	if err != nil {
		return 0, false, fmt.Errorf("encode %s: %w", typ, err)
	}
	msg := nats.NewMsg(subject)
	msg.Data = body
	if msgID != "" {
		opts = append(opts, jetstream.WithMsgID(msgID))
	}
	ack, err := l.js.PublishMsg(ctx, msg, opts...)
	if err != nil {
		return 0, false, fmt.Errorf("append %s to %s: %w", typ, subject, err)
	}
	return ack.Sequence, ack.Duplicate, nil
}

func decode(subject string, seq uint64, data []byte) (protocol.Event, error) {
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return protocol.Event{}, fmt.Errorf("decode event %d: %w", seq, err)
	}
	return protocol.Event{Session: sessionOfSubject(subject), Offset: seq, Type: r.Type, At: r.At, Data: r.Data}, nil
}

// Follow streams a session's events after offset `after`: first the stored ones, then live
// ones, in order, with no gap and no duplicate. It ends, closing the channel, when ctx ends
// or the log fails; the error, if any, is sent on errc.
func (l *Log) Follow(ctx context.Context, session string, after uint64) (<-chan protocol.Event, <-chan error, error) {
	cfg := jetstream.OrderedConsumerConfig{
		FilterSubjects:    []string{sessionSubjects(session)},
		DeliverPolicy:     jetstream.DeliverAllPolicy,
		InactiveThreshold: l.followIdle,
	}
	if after > 0 {
		cfg.DeliverPolicy = jetstream.DeliverByStartSequencePolicy
		cfg.OptStartSeq = after + 1
	}
	cons, err := l.js.OrderedConsumer(ctx, StreamName, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("follow session %s: %w", session, err)
	}
	it, err := cons.Messages()
	if err != nil {
		return nil, nil, fmt.Errorf("follow session %s: %w", session, err)
	}
	out := make(chan protocol.Event, 64)
	errc := make(chan error, 1)
	go func() {
		<-ctx.Done()
		it.Stop() // unblocks Next
		// Release the server's consumer now rather than after followIdle; the threshold
		// remains for a follower that vanished with its process.
		if info := cons.CachedInfo(); info != nil {
			dctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = l.js.DeleteConsumer(dctx, StreamName, info.Name)
			cancel()
		}
	}()
	go func() {
		defer close(out)
		for {
			msg, err := it.Next()
			if err != nil {
				if ctx.Err() == nil && !errors.Is(err, jetstream.ErrMsgIteratorClosed) {
					errc <- err
				}
				return
			}
			meta, err := msg.Metadata()
			if err != nil {
				errc <- err
				return
			}
			ev, err := decode(msg.Subject(), meta.Sequence.Stream, msg.Data())
			if err != nil {
				errc <- err
				return
			}
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, errc, nil
}

// Read returns a session's stored events after offset `after`, for callers that need a
// snapshot rather than a stream (tests, command handlers).
func (l *Log) Read(ctx context.Context, session string, after uint64) ([]protocol.Event, error) {
	lastMsg, err := l.stream.GetLastMsgForSubject(ctx, sessionSubjects(session))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", session, err)
	}
	last := lastMsg.Sequence
	if last <= after {
		return nil, nil
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, errc, err := l.Follow(fctx, session, after)
	if err != nil {
		return nil, err
	}
	var got []protocol.Event
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return got, ctx.Err()
			}
			got = append(got, ev)
			if ev.Offset >= last {
				return got, nil
			}
		case err := <-errc:
			return got, err
		case <-ctx.Done():
			return got, ctx.Err()
		}
	}
}

// Consumers counts the stream's consumers: the agent's, and one per live follower.
func (l *Log) Consumers(ctx context.Context) (int, error) {
	info, err := l.stream.Info(ctx)
	if err != nil {
		return 0, err
	}
	return info.State.Consumers, nil
}

// lastPerSubject returns the last event of every subject matching filter, in stream order.
func (l *Log) lastPerSubject(ctx context.Context, filter string) ([]protocol.Event, error) {
	cons, err := l.js.OrderedConsumer(ctx, StreamName, jetstream.OrderedConsumerConfig{
		FilterSubjects:    []string{filter},
		DeliverPolicy:     jetstream.DeliverLastPerSubjectPolicy,
		InactiveThreshold: l.followIdle,
	})
	if err != nil {
		return nil, err
	}
	defer func() {
		if info := cons.CachedInfo(); info != nil {
			dctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = l.js.DeleteConsumer(dctx, StreamName, info.Name)
			cancel()
		}
	}()
	info, err := cons.Info(ctx)
	if err != nil {
		return nil, err
	}
	if info.NumPending == 0 {
		return nil, nil
	}
	var out []protocol.Event
	for {
		batch, err := cons.Fetch(256, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			return nil, err
		}
		n := 0
		for msg := range batch.Messages() {
			n++
			meta, err := msg.Metadata()
			if err != nil {
				return nil, err
			}
			ev, err := decode(msg.Subject(), meta.Sequence.Stream, msg.Data())
			if err != nil {
				return nil, err
			}
			out = append(out, ev)
			if meta.NumPending == 0 {
				return out, nil
			}
		}
		if err := batch.Error(); err != nil {
			return nil, err
		}
		if n == 0 {
			return out, nil
		}
	}
}
