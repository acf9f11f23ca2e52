package eventlog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"parley/protocol"
)

// rangeFetch is the most events one pull of ReadRange asks for: a replay of a session of a
// few thousand events is one consumer and one pull. (A variable: a test pulls less.)
var rangeFetch uint64 = 4096

// RangeChunk is how many events ReadRange hands its visitor at a time, at most.
const RangeChunk = 256

// ReadRange hands a session's stored events in (after, through] to visit, in log order, a
// chunk of at most RangeChunk events at a time as they arrive, and returns once the event at
// through (or the first one past it) has been visited. through must be stored already: a
// head read before, so the read knows where it ends without waiting for anything live. An
// error from visit ends the read and is returned. Each chunk is new: visit may keep it.
//
// It is Follow's replay without the following: one ordered consumer and one pull for up to
// rangeFetch events, no goroutine or channel of its own between the pull and visit, so a
// socket catching up on a long session costs the log a consumer create and a pull, and the
// process a decode per event (without reflection: decodeRecord).
func (l *Log) ReadRange(ctx context.Context, session string, after, through uint64, visit func([]protocol.Event) error) error {
	if through <= after {
		return nil
	}
	cfg := jetstream.OrderedConsumerConfig{
		FilterSubjects:    []string{SessionSubjects(session)},
		DeliverPolicy:     jetstream.DeliverAllPolicy,
		InactiveThreshold: l.followIdle,
		// A fetch of an ordered consumer makes its server-side consumer again, and by
		// default retries that forever whatever the caller's context.
		MaxResetAttempts: scanResetAttempts,
	}
	if after > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, after+1
	}
	cons, err := l.js.OrderedConsumer(ctx, StreamName, cfg)
	if err != nil {
		return fmt.Errorf("read session %s: %w", session, AsUnavailable(err))
	}
	// Release the server's consumer once read, without making the reader wait for it: the
	// idle threshold reaps one whose delete is lost.
	defer func() { go l.deleteConsumer(cons) }()

	last := after
	empty := 0 // pulls in a row that brought nothing though through was not reached
	chunk := make([]protocol.Event, 0, min(through-after, RangeChunk))
	for last < through {
		want := int(min(through-last, rangeFetch))
		// The pull ends with the caller (or once through is read: the rest of it is not
		// waited for), and after 5 s without it.
		fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		batch, err := cons.Fetch(want, jetstream.FetchContext(fctx))
		if err != nil {
			return fmt.Errorf("read session %s: %w", session, AsUnavailable(err))
		}
		n := 0
		for msg := range batch.Messages() {
			n++
			meta, err := msg.Metadata()
			if err != nil {
				return fmt.Errorf("read session %s: %w", session, err)
			}
			ev, err := Decode(msg.Subject(), meta.Sequence.Stream, msg.Data())
			if err != nil {
				return err
			}
			last = ev.Offset
			chunk = append(chunk, ev)
			if len(chunk) == cap(chunk) || last >= through || meta.NumPending == 0 || len(batch.Messages()) == 0 {
				// Hand what has come while the next events are on their way.
				if err := visit(chunk); err != nil {
					return err
				}
				chunk = make([]protocol.Event, 0, RangeChunk)
			}
			if last >= through {
				return nil
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// A pull that ran out of time (a slow visitor, a slow node) goes on with the next.
		if err := batch.Error(); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, nats.ErrTimeout) {
			return fmt.Errorf("read session %s: %w", session, AsUnavailable(err))
		}
		if len(chunk) > 0 {
			if err := visit(chunk); err != nil {
				return err
			}
			chunk = make([]protocol.Event, 0, RangeChunk)
		}
		if n > 0 {
			empty = 0
			continue
		}
		// Nothing came before through: a consumer made again on another node (a cluster
		// losing one) or a copy behind the leader. Ask again, a few times.
		if empty++; empty == scanEmptyFetches {
			return fmt.Errorf("read session %s: %w (the log did not deliver up to offset %d)", session, ErrUnavailable, through)
		}
	}
	return nil
}

// decodeRecord reads a record as publish writes it (json.Marshal of a record:
// {"type":…,"at":…,"data":…}) without reflection; false for anything else, which Decode
// then reads with encoding/json.
func decodeRecord(b []byte) (record, bool) {
	const typeKey, atKey, dataKey = `{"type":"`, `","at":`, `,"data":`
	if !bytes.HasPrefix(b, []byte(typeKey)) || len(b) == 0 || b[len(b)-1] != '}' {
		return record{}, false
	}
	rest := b[len(typeKey):]
	q := bytes.IndexByte(rest, '"')
	if q < 0 || bytes.IndexByte(rest[:q], '\\') >= 0 {
		return record{}, false
	}
	r := record{Type: protocol.EventType(rest[:q])}
	rest = rest[q:]
	if !bytes.HasPrefix(rest, []byte(atKey)) {
		return record{}, false
	}
	rest = rest[len(atKey):]
	end := 0
	for end < len(rest) && (rest[end] == '-' || rest[end] >= '0' && rest[end] <= '9') {
		end++
	}
	at, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	if err != nil {
		return record{}, false
	}
	r.At = at
	rest = rest[end:]
	switch {
	case len(rest) == 1: // the closing brace: no data
		return r, true
	case bytes.HasPrefix(rest, []byte(dataKey)):
		data := rest[len(dataKey) : len(rest)-1]
		if !json.Valid(data) {
			return record{}, false
		}
		r.Data = json.RawMessage(bytes.Clone(data)) // not the whole message's buffer
		return r, true
	}
	return record{}, false
}
