package eventlog

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// A write stored by a leader that then lost its leadership comes back, to the writer, as
// JetStream's "system temporarily unavailable" (10008): its outcome is unknown, so it is
// retried with the same id and confirmed, never stored twice.
func TestAWriteAnsweredUnavailableDuringAnElectionIsConfirmed(t *testing.T) {
	ctx := context.Background()
	l := openLog(t, Config{})
	real := l.publishMsg
	var calls atomic.Int64
	l.publishMsg = func(ctx context.Context, msg *nats.Msg, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
		if calls.Add(1) == 1 {
			if _, err := real(ctx, msg, opts...); err != nil {
				return nil, err
			}
			return nil, &jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}
		}
		return real(ctx, msg, opts...)
	}
	offset, _, err := l.Append(ctx, "s", protocol.EventAgentMessage, protocol.Message{Text: "hi"}, "m1")
	require.NoError(t, err)
	assert.NotZero(t, offset)
	assert.Equal(t, 1, count(t, l, "s"), "stored once")
	assert.Equal(t, int64(2), calls.Load())
}

func TestWrongLastSequenceOfAReplicatedStreamIsAConflict(t *testing.T) {
	assert.True(t, isWrongLastSequence(&jetstream.APIError{Code: 400, ErrorCode: 10164, Description: "wrong last sequence"}))
	assert.True(t, isWrongLastSequence(&jetstream.APIError{Code: 400, ErrorCode: 10071, Description: "wrong last sequence: 4"}))
	assert.False(t, isWrongLastSequence(&jetstream.APIError{Code: 503, ErrorCode: 10008}))
}

// A single server keeps one copy when asked for what it can hold, and says what to do when
// asked for three.
func TestReplicasOnASingleServer(t *testing.T) {
	l := openLog(t, Config{})
	assert.Equal(t, 1, l.Replicas())
	info, err := l.stream.Info(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, info.Config.Replicas)

	_, _, err = createStream(context.Background(), l.js, jetstream.StreamConfig{Name: "OTHER", Subjects: []string{"other.>"}}, 3)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lower -replicas")
}
