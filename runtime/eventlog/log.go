// Package eventlog is Parley's event log on NATS JetStream: every session's events in one
// stream, appended with a message id that makes a retry safe, read back by subject, followed
// live, and watched by each runtime instance through its tap. It also holds the presence of
// live runtime instances and the durable consumer that rings a session's doorbell for each
// prompt. It knows events and subjects, never what a turn or a decision means; see
// docs/runtime.md for how the subjects are used.
package eventlog

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"parley/protocol"
	"parley/runtime/kv"
)

// StreamName is the JetStream stream that holds every session's events.
const StreamName = "PARLEY_EVENTS"

// AllSessions matches every subject of every session.
const AllSessions = "session.>"

// EventsSubject is the subject of a session's ordinary events. Ids are validated by the
// protocol's alphabet, so they can never add a token or a wildcard.
func EventsSubject(session string) string { return "session." + session + ".events" }

// PromptSubject holds exactly one user message: the one sent with this attempt id. A prompt
// is stored only while its subject is empty, which JetStream checks atomically, so a retry
// is stored once for as long as the log keeps the session, not only within the dedupe
// window. The attempt id is hashed: its alphabet allows characters a subject token must not
// hold, and a fixed length keeps subjects short.
func PromptSubject(session, attempt string) string {
	sum := sha256.Sum256([]byte(attempt))
	return "session." + session + ".p." + hex.EncodeToString(sum[:12])
}

// SessionPrompts matches the prompt subjects of one session.
func SessionPrompts(session string) string { return "session." + session + ".p.*" }

// PromptSubjects matches the user messages of every session: the prompt subjects, and the
// events subject where user messages were stored before prompts had their own.
var PromptSubjects = []string{"session.*.events", "session.*.p.*"}

// DecisionSubject holds one decision's events: its question.asked, then at most one
// outcome. Giving each decision its own subject lets JetStream settle "first reply wins"
// atomically (an outcome is stored only if the subject still ends at the question) and lets
// the registry list pending decisions as the last message per subject.
func DecisionSubject(session, decision string) string {
	return "session." + session + ".q." + decision
}

// DecisionSubjects matches the decision subjects of one session, or of all when session is "".
func DecisionSubjects(session string) string {
	return "session." + cmp.Or(session, "*") + ".q.*"
}

// TurnSubject holds a session's turn.started and turn.ended events. A turn starts only while
// this subject ends where its claimer read it, which makes one session's turns exclusive
// across replicas; its last event says whether a turn is open.
func TurnSubject(session string) string { return "session." + session + ".turn" }

// TurnSubjects matches every session's turn subject.
const TurnSubjects = "session.*.turn"

// SessionSubjects matches every subject of one session, in log order.
func SessionSubjects(session string) string { return "session." + session + ".>" }

// SessionOf is the session a subject belongs to.
func SessionOf(subject string) string {
	s := strings.TrimPrefix(subject, "session.")
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return s[:i]
	}
	return s
}

// ErrNotFound is returned by Last and Get when there is no such event.
var ErrNotFound = errors.New("no such event")

// ErrConflict is returned by PublishAfter when the subject no longer ends where the caller
// read it: someone else wrote first. Read again and decide again.
var ErrConflict = errors.New("the log moved on since it was read")

// ErrUnavailable says the log could not take or confirm a write in time (JetStream is
// overloaded, electing a leader, or gone). Nothing is known to be stored; a retry with the
// same id is safe. The HTTP layer answers it with 503 and Retry-After.
var ErrUnavailable = errors.New("the event log is unavailable: try again in a moment")

// record is how an event is stored: the session and offset come from the subject and the
// stream sequence, so they are not repeated in the body.
type record struct {
	Type protocol.EventType `json:"type"`
	At   int64              `json:"at"`
	Data json.RawMessage    `json:"data,omitempty"`
}

// Config configures the log. Zero values pick the production defaults.
type Config struct {
	// Now stamps events.
	Now func() time.Time
	// Duplicates is how long JetStream remembers a message id (default 2 min). It only has to
	// outlast a retry of an unknown write; prompts are deduplicated by their own subject.
	Duplicates time.Duration
	// ConfirmWithin bounds how long a write whose outcome is unknown is retried before it is
	// reported as ErrUnavailable (default 10 s).
	ConfirmWithin time.Duration
	// Replicas is how many copies of the stream and of the key-value buckets a JetStream
	// cluster keeps (1 to 5). 0 picks what the cluster can hold: 3 on a cluster of three or
	// more, else 1 (a single server, or the embedded one).
	Replicas int
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
	followIdle    time.Duration
	confirmWithin time.Duration
	replicas      int
	// publishMsg is JetStream's publish; a test puts a slow or lossy link in front of it.
	publishMsg func(ctx context.Context, msg *nats.Msg, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error)
}

// Open creates or updates the event stream.
func Open(ctx context.Context, nc *nats.Conn, cfg Config) (*Log, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	streamCfg := jetstream.StreamConfig{
		Name:        StreamName,
		Description: "Parley session events",
		Subjects:    []string{AllSessions},
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
		Duplicates:  cmp.Or(cfg.Duplicates, 2*time.Minute),
	}
	stream, replicas, err := createStream(ctx, js, streamCfg, cfg.Replicas)
	if err != nil {
		return nil, err
	}
	if replicas > 1 {
		// A replicated stream answers once its replicas elected a leader, a moment after it
		// was created or while a node restarts; the runtime reads it at once.
		if err := waitForLeader(ctx, stream); err != nil {
			return nil, err
		}
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Log{js: js, stream: stream, now: now, followIdle: 10 * time.Second, replicas: replicas,
		confirmWithin: cmp.Or(cfg.ConfirmWithin, 10*time.Second), publishMsg: js.PublishMsg}, nil
}

// createStream creates or updates the stream with the replicas asked for; 0 tries 3 and
// falls back to 1 when the servers cannot place three (a single server says replicas are
// not supported, a cluster of two that it has no peers for them). Two copies are never
// picked: a quorum of two stops with either node, so it adds latency and no availability.
func createStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig, replicas int) (jetstream.Stream, int, error) {
	want := replicas
	if want == 0 {
		want = 3
	}
	for {
		cfg.Replicas = want
		// Each try has a bound of its own, and is made again while unanswered (kv.Retry).
		var stream jetstream.Stream
		err := kv.Retry(ctx, "stream "+cfg.Name, func(ctx context.Context) (err error) {
			stream, err = js.CreateOrUpdateStream(ctx, cfg)
			return err
		})
		if err == nil {
			return stream, want, nil
		}
		if replicas == 0 && want > 1 && cannotPlace(err) {
			want = 1
			continue
		}
		if replicas > 1 && cannotPlace(err) {
			return nil, 0, fmt.Errorf("create stream %s with %d replicas: %w; the JetStream servers cannot hold that many copies: "+
				"start a cluster of at least %d nodes, or lower -replicas", cfg.Name, replicas, err, replicas)
		}
		return nil, 0, fmt.Errorf("create stream %s: %w", cfg.Name, err)
	}
}

// waitForLeader waits until the stream answers a request (it has a leader), for at most 30 s.
func waitForLeader(ctx context.Context, stream jetstream.Stream) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		info, err := stream.Info(ctx)
		if err == nil && info.Cluster != nil && info.Cluster.Leader != "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stream %s has no leader: %w (%v)", StreamName, ErrUnavailable, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// cannotPlace reports whether the servers refused a stream's replicas: a server not in a
// cluster (10074), or a cluster without enough peers (10005, or "insufficient resources").
func cannotPlace(err error) bool {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		switch apiErr.ErrorCode {
		case 10074, 10005, 10023:
			return true
		}
	}
	return err != nil && (strings.Contains(err.Error(), "replicas > 1 not supported") ||
		strings.Contains(err.Error(), "insufficient resources") || strings.Contains(err.Error(), "no suitable peers"))
}

// Replicas is how many copies of the stream the servers keep; the key-value buckets kept
// beside the log take the same.
func (l *Log) Replicas() int { return l.replicas }

// JetStream is the log's JetStream context, for the key-value buckets kept beside it.
func (l *Log) JetStream() jetstream.JetStream { return l.js }

// Append stores an event on the session's events subject. A non-empty msgID makes the append
// idempotent: a second append with the same id (within Config.Duplicates) returns the first
// one's offset and reports duplicate. A write whose outcome is unknown is confirmed before
// anything is reported (see Publish).
func (l *Log) Append(ctx context.Context, session string, typ protocol.EventType, data any, msgID string) (offset uint64, duplicate bool, err error) {
	return l.Publish(ctx, EventsSubject(session), typ, data, msgID)
}

// Publish stores an event on a subject of the log. See Append.
func (l *Log) Publish(ctx context.Context, subject string, typ protocol.EventType, data any, msgID string) (offset uint64, duplicate bool, err error) {
	return l.publish(ctx, subject, typ, data, msgID, nil)
}

// PublishAfter stores an event only if the subject's last event is still at offset last (0:
// the subject is empty); otherwise it returns an error wrapping ErrConflict.
func (l *Log) PublishAfter(ctx context.Context, subject string, last uint64, typ protocol.EventType, data any, msgID string) (offset uint64, duplicate bool, err error) {
	return l.publish(ctx, subject, typ, data, msgID, &condition{last: last})
}

// PublishWhile stores an event on subject only while the last event of the subjects filter
// matches (it may name other subjects, and wildcards) is still at offset last; otherwise it
// returns an error wrapping ErrConflict. So a write can wait on what another subject says:
// a withdrawal of a prompt holds only while no turn started since it was read, and a turn's
// claim only while nothing was added to the session since its read (QA round 26: a
// withdrawal answered 200 and its prompt ran).
func (l *Log) PublishWhile(ctx context.Context, subject, filter string, last uint64, typ protocol.EventType, data any, msgID string) (offset uint64, duplicate bool, err error) {
	return l.publish(ctx, subject, typ, data, msgID, &condition{last: last, filter: filter})
}

// condition is what a conditional write waits on: the last event of filter (the subject
// written when empty) is at offset last.
type condition struct {
	last   uint64
	filter string
}

// publish writes once and, when the outcome is unknown (the ack did not come back in time),
// writes again with the same message id until JetStream says what happened: a duplicate ack
// names the first write's offset, and for a conditional write, whose condition JetStream
// checks before the id, the subject's last event carrying our id says it was stored. Only
// then is a failure reported, as ErrUnavailable. So a slow write is never reported as lost
// while it is in the log, and never stored twice.
func (l *Log) publish(ctx context.Context, subject string, typ protocol.EventType, data any, msgID string, after *condition) (uint64, bool, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return 0, false, fmt.Errorf("encode %s: %w", typ, err)
	}
	body, err := json.Marshal(record{Type: typ, At: l.now().UnixMilli(), Data: raw})
	if err != nil {
		return 0, false, fmt.Errorf("encode %s: %w", typ, err)
	}
	if msgID == "" {
		// Every write carries an id, so an unknown outcome can be confirmed.
		msgID = "w-" + rand.Text()
	}
	opts := []jetstream.PublishOpt{jetstream.WithMsgID(msgID)}
	switch {
	case after != nil && after.filter != "":
		opts = append(opts, jetstream.WithExpectLastSequenceForSubject(after.last, after.filter))
	case after != nil:
		opts = append(opts, jetstream.WithExpectLastSequencePerSubject(after.last))
	}
	send := func(ctx context.Context) (*jetstream.PubAck, error) {
		msg := nats.NewMsg(subject)
		msg.Data = body
		return l.publishMsg(ctx, msg, opts...)
	}
	ack, err := send(ctx)
	if err == nil {
		return ack.Sequence, ack.Duplicate, nil
	}
	if !unknownOutcome(err) {
		return 0, false, l.failed(typ, subject, err)
	}
	// The first write may be stored. Our own id answering "duplicate" now means it was.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.confirmWithin)
	defer cancel()
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		actx, acancel := context.WithTimeout(cctx, 2*time.Second)
		ack, rerr := send(actx)
		acancel()
		switch {
		case rerr == nil:
			return ack.Sequence, false, nil
		case isWrongLastSequence(rerr):
			if last, gerr := l.stream.GetLastMsgForSubject(cctx, subject); gerr == nil && last.Header.Get(jetstream.MsgIDHeader) == msgID {
				return last.Sequence, false, nil
			}
			return 0, false, l.failed(typ, subject, rerr)
		case !unknownOutcome(rerr):
			return 0, false, l.failed(typ, subject, rerr)
		}
		select {
		case <-cctx.Done():
			return 0, false, fmt.Errorf("append %s to %s: %w (%v)", typ, subject, ErrUnavailable, err)
		case <-time.After(wait):
		}
	}
}

func (l *Log) failed(typ protocol.EventType, subject string, err error) error {
	switch {
	case isWrongLastSequence(err):
		return fmt.Errorf("append %s to %s: %w", typ, subject, ErrConflict)
	case errors.Is(err, nats.ErrNoResponders), errors.Is(err, nats.ErrConnectionClosed):
		return fmt.Errorf("append %s to %s: %w (%v)", typ, subject, ErrUnavailable, err)
	}
	return fmt.Errorf("append %s to %s: %w", typ, subject, err)
}

// AsUnavailable marks an error of a JetStream request that timed out or found no server as
// ErrUnavailable, so the caller is told to retry (HTTP 503) rather than that something broke;
// any other error is returned as it is.
func AsUnavailable(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) || errors.Is(err, context.Canceled) {
		return err
	}
	if unknownOutcome(err) || errors.Is(err, nats.ErrConnectionClosed) {
		return fmt.Errorf("%w (%v)", ErrUnavailable, err)
	}
	return err
}

// unknownOutcome reports whether a failed publish may still have been stored: the request
// went out and no answer came back in time. A caller who cancelled has given up, so a
// cancellation is not retried.
func unknownOutcome(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrNoResponders) ||
		errors.Is(err, nats.ErrReconnectBufExceeded) {
		return true
	}
	// A cluster electing a leader answers "JetStream system temporarily unavailable"
	// (10008): the write may or may not have reached the old leader's log.
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == jsErrClusterNotAvailable
}

// jsErrClusterNotAvailable is JetStream's "system temporarily unavailable", answered while a
// cluster elects a leader.
const jsErrClusterNotAvailable = 10008

// isWrongLastSequence reports whether a publish failed its "subject still ends at" check.
func isWrongLastSequence(err error) bool {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant) {
		return true
	}
	return err != nil && (strings.Contains(err.Error(), "wrong last sequence") || strings.Contains(err.Error(), "last sequence by subject mismatch"))
}

// Decode turns a stored message into an event.
func Decode(subject string, seq uint64, data []byte) (protocol.Event, error) {
	r, ok := decodeRecord(data)
	if !ok {
		if err := json.Unmarshal(data, &r); err != nil {
			return protocol.Event{}, fmt.Errorf("decode event %d: %w", seq, err)
		}
	}
	return protocol.Event{Session: SessionOf(subject), Offset: seq, Type: r.Type, At: r.At, Data: r.Data}, nil
}

// Last returns the last event on a subject (a wildcard matches any of its subjects), or an
// error wrapping ErrNotFound when there is none.
func (l *Log) Last(ctx context.Context, subject string) (protocol.Event, error) {
	msg, err := l.stream.GetLastMsgForSubject(ctx, subject)
	return decodeRaw(msg, err, "last event on "+subject)
}

// Get returns the event at an offset, or an error wrapping ErrNotFound.
func (l *Log) Get(ctx context.Context, offset uint64) (protocol.Event, error) {
	msg, err := l.stream.GetMsg(ctx, offset)
	return decodeRaw(msg, err, "event "+strconv.FormatUint(offset, 10))
}

// decodeRaw decodes the answer to a direct read of the stream, what naming the read in an
// error: a missing message wraps ErrNotFound.
func decodeRaw(msg *jetstream.RawStreamMsg, err error, what string) (protocol.Event, error) {
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return protocol.Event{}, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	if err != nil {
		return protocol.Event{}, fmt.Errorf("%s: %w", what, AsUnavailable(err))
	}
	return Decode(msg.Subject, msg.Sequence, msg.Data)
}

// First returns the first event at or after offset from on a subject (a wildcard matches any
// of its subjects), or an error wrapping ErrNotFound. The server finds it: nothing before it
// is read.
func (l *Log) First(ctx context.Context, subject string, from uint64) (protocol.Event, error) {
	msg, err := l.stream.GetMsg(ctx, max(from, 1), jetstream.WithGetMsgSubject(subject))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return protocol.Event{}, fmt.Errorf("first event on %s: %w", subject, ErrNotFound)
	}
	if err != nil {
		return protocol.Event{}, fmt.Errorf("first event on %s: %w", subject, AsUnavailable(err))
	}
	return Decode(msg.Subject, msg.Sequence, msg.Data)
}

// Head is the offset of the last event on a subject, 0 when it has none.
func (l *Log) Head(ctx context.Context, subject string) (uint64, error) {
	ev, err := l.Last(ctx, subject)
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	return ev.Offset, err
}

// Follow streams a session's events after offset `after`: first the stored ones, then live
// ones, in order, with no gap and no duplicate. It ends, closing the channel, when ctx ends
// or the log fails; the error, if any, is sent on errc.
func (l *Log) Follow(ctx context.Context, session string, after uint64) (<-chan protocol.Event, <-chan error, error) {
	cfg := jetstream.OrderedConsumerConfig{
		FilterSubjects:    []string{SessionSubjects(session)},
		DeliverPolicy:     jetstream.DeliverAllPolicy,
		InactiveThreshold: l.followIdle,
	}
	if after > 0 {
		cfg.DeliverPolicy = jetstream.DeliverByStartSequencePolicy
		cfg.OptStartSeq = after + 1
	}
	cons, err := l.js.OrderedConsumer(ctx, StreamName, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("follow session %s: %w", session, AsUnavailable(err))
	}
	it, err := cons.Messages(jetstream.PullExpiry(pullExpiry), jetstream.PullHeartbeat(pullHeartbeat))
	if err != nil {
		return nil, nil, fmt.Errorf("follow session %s: %w", session, AsUnavailable(err))
	}
	out := make(chan protocol.Event, 64)
	errc := make(chan error, 1)
	go func() {
		<-ctx.Done()
		it.Stop() // unblocks Next
		// Release the server's consumer now rather than after followIdle; the threshold
		// remains for a follower that vanished with its process.
		l.deleteConsumer(cons)
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
			ev, err := decodeMsg(msg)
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

func (l *Log) deleteConsumer(cons jetstream.Consumer) {
	if info := cons.CachedInfo(); info != nil {
		dctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = l.js.DeleteConsumer(dctx, StreamName, info.Name)
		cancel()
	}
}

func decodeMsg(msg jetstream.Msg) (protocol.Event, error) {
	meta, err := msg.Metadata()
	if err != nil {
		return protocol.Event{}, err
	}
	return Decode(msg.Subject(), meta.Sequence.Stream, msg.Data())
}

// Read returns a session's stored events after offset `after`, for callers that need a
// snapshot rather than a stream (tests, command handlers).
func (l *Log) Read(ctx context.Context, session string, after uint64) ([]protocol.Event, error) {
	last, err := l.Head(ctx, SessionSubjects(session))
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", session, err)
	}
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

// LastPerSubject returns the last event of every subject matching filter, in stream order.
// An ordered consumer that resets mid-scan resumes by sequence, not "last per subject", and
// then delivers earlier messages of later subjects too (measured: 944 events for 600
// subjects), so only each subject's highest offset is kept.
func (l *Log) LastPerSubject(ctx context.Context, filter string) ([]protocol.Event, error) {
	last := map[string]int{} // subject → index in out
	var out []protocol.Event
	err := l.scanSubjects(ctx, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{filter},
		DeliverPolicy:  jetstream.DeliverLastPerSubjectPolicy,
	}, func(subject string, ev protocol.Event) bool {
		if i, ok := last[subject]; ok {
			if ev.Offset > out[i].Offset {
				out[i] = ev
			}
			return true
		}
		last[subject] = len(out)
		out = append(out, ev)
		return true
	})
	slices.SortFunc(out, func(a, b protocol.Event) int { return cmp.Compare(a.Offset, b.Offset) })
	return out, AsUnavailable(err)
}

// scan hands the events an ordered consumer delivers to visit, until visit says stop or the
// consumer has nothing more pending. The consumer is deleted after.
func (l *Log) scan(ctx context.Context, cfg jetstream.OrderedConsumerConfig, visit func(protocol.Event) bool) error {
	return l.scanSubjects(ctx, cfg, func(_ string, ev protocol.Event) bool { return visit(ev) })
}

// scanSubjects is scan, with each event's subject.
func (l *Log) scanSubjects(ctx context.Context, cfg jetstream.OrderedConsumerConfig, visit func(string, protocol.Event) bool) error {
	cfg.InactiveThreshold = l.followIdle
	// Every fetch of an ordered consumer makes its server-side consumer again, and by default
	// retries that forever, whatever the caller's context: a scan while the stream has no
	// leader would never return. A few tries, then the scan fails as unavailable and its
	// caller decides.
	cfg.MaxResetAttempts = scanResetAttempts
	cons, err := l.js.OrderedConsumer(ctx, StreamName, cfg)
	if err != nil {
		return err
	}
	defer l.deleteConsumer(cons)
	info, err := orderedInfo(ctx, cons)
	if err != nil {
		return err
	}
	if info.NumPending == 0 {
		return nil
	}
	empty := 0 // fetches in a row that brought nothing while the consumer said more was pending
	for {
		batch, err := cons.Fetch(256, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			return err
		}
		n := 0
		for msg := range batch.Messages() {
			n++
			meta, err := msg.Metadata()
			if err != nil {
				return err
			}
			ev, err := Decode(msg.Subject(), meta.Sequence.Stream, msg.Data())
			if err != nil {
				return err
			}
			if !visit(msg.Subject(), ev) || meta.NumPending == 0 {
				return nil
			}
		}
		if err := batch.Error(); err != nil {
			return err
		}
		if n > 0 {
			empty = 0
			continue
		}
		// Nothing came though more was pending: a consumer being recreated on another node
		// (a cluster losing one), or events deleted meanwhile. Ask again; a scan that ends
		// here would hand back part of the log as if it were all of it (a question nobody can
		// then see, so nobody answers).
		info, err := orderedInfo(ctx, cons)
		if err != nil {
			return err
		}
		if info.NumPending == 0 {
			return nil
		}
		if empty++; empty == scanEmptyFetches {
			return fmt.Errorf("%w (%d events pending were not delivered)", ErrUnavailable, info.NumPending)
		}
	}
}

// orderedInfo asks an ordered consumer for its state. Unlike the rest of the client, an
// ordered consumer's Info puts no deadline on a context that has none, and a reply lost with
// a dying node then leaves it waiting forever (a replier's list of pending decisions hung
// for a minute in the cluster test): it gets the client's usual 5 s.
func orderedInfo(ctx context.Context, cons jetstream.Consumer) (*jetstream.ConsumerInfo, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
	}
	return cons.Info(ctx)
}

// scanResetAttempts is how many times a scan's consumer is made again (1 s, then 2 s apart)
// before the scan fails.
const scanResetAttempts = 3

// scanEmptyFetches is how many empty 2 s fetches in a row, with events still pending, make a
// scan fail as unavailable rather than end short.
const scanEmptyFetches = 3

// Scan hands the stored events on the subjects matching filter, in stream order from offset
// from (0 for the start), to visit until it says stop or none is left.
func (l *Log) Scan(ctx context.Context, filter string, from uint64, visit func(protocol.Event) bool) error {
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{filter}, DeliverPolicy: jetstream.DeliverAllPolicy}
	if from > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, from
	}
	if err := l.scan(ctx, cfg, visit); err != nil {
		return fmt.Errorf("scan %s: %w", filter, AsUnavailable(err))
	}
	return nil
}
