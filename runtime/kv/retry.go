package kv

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
)

// A request that creates or updates a stream or a bucket can go unanswered: on a cluster
// busy electing leaders (a fresh one, a node restarting), and every time two runtimes create
// the same stream at once (measured on a fresh 3-node cluster: both requests of every
// stream and bucket went unanswered, though the stream was made, and the next try was
// answered at once). Creating again what exists is a no-op, so a try is bounded and made
// again: the first within firstTry (an answered creation takes under 100 ms there), each
// next one twice as long, up to lastTry.
const (
	firstTry = 500 * time.Millisecond
	lastTry  = 5 * time.Second
)

// settleWithin bounds all the tries of one creation when the caller gave no deadline (a
// server starting).
const settleWithin = time.Minute

// Unanswered says a request got no answer in time (a lost request, or no leader yet): it is
// worth asking again while the caller's time lasts. No responders is not: a server without
// JetStream says so at once, and the person is told.
func Unanswered(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout)
}

// Retry runs try, each time bounded (firstTry, doubling up to lastTry), again while it goes
// unanswered and ctx lasts (settleWithin when ctx has no deadline). what names the thing
// created, for the error that says the cluster never answered.
func Retry(ctx context.Context, what string, try func(context.Context) error) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, settleWithin)
		defer cancel()
	}
	start := time.Now()
	for bound := firstTry; ; bound = min(2*bound, lastTry) {
		tctx, cancel := context.WithTimeout(ctx, bound)
		err := try(tctx)
		cancel()
		if err == nil || !Unanswered(err) {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: the JetStream servers did not answer in %s (%w): check that every node is up and that they see each other", what, time.Since(start).Round(time.Second), err)
		}
		slog.Info("JetStream did not answer; asking again", "what", what, "after", bound)
	}
}
