package notify

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"parley/protocol"
	"parley/runtime/eventlog"
)

// DefaultGrace is how long a decision waits for a seen claim before it is notified.
const DefaultGrace = time.Second

// Options configure a Notifier.
type Options struct {
	Grace time.Duration               // DefaultGrace when 0
	Now   func() time.Time            // time.Now when nil
	Title func(session string) string // the thread's title, for the notification's body
	Push  *Push                       // nil: no Web Push
	// Outcome, when set, hears what became of each decision at the end of its window: sent,
	// or dropped because it was claimed. Tests wait on it.
	Outcome func(n protocol.Notification, sent bool)
}

// Notifier follows the log's decisions and notifies those nobody claimed in time.
type Notifier struct {
	opts   Options
	claims *Claims
	events chan protocol.Event
	seen   chan protocol.SeenClaim
	tap    *eventlog.Tap
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	live map[chan protocol.Notification]struct{}
}

// Start follows log from now on. Claims live for the bucket's TTL, at least the window.
func Start(ctx context.Context, log *eventlog.Log, opts Options) (*Notifier, error) {
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Title == nil {
		opts.Title = func(string) string { return "" }
	}
	claims, err := OpenClaims(ctx, log.JetStream(), 4*opts.Grace, log.Replicas())
	if err != nil {
		return nil, err
	}
	n := &Notifier{opts: opts, claims: claims, events: make(chan protocol.Event, 256),
		seen: make(chan protocol.SeenClaim, 64), done: make(chan struct{}), live: map[chan protocol.Notification]struct{}{}}
	if n.tap, err = log.StartTap(ctx, n.onEvent); err != nil {
		return nil, err
	}
	lctx, cancel := context.WithCancel(context.Background())
	n.cancel = cancel
	go n.loop(lctx)
	return n, nil
}

// Close stops following.
func (n *Notifier) Close() {
	n.tap.Stop()
	n.cancel()
	<-n.done
}

func (n *Notifier) onEvent(ev protocol.Event) {
	switch ev.Type {
	case protocol.EventQuestionAsked, protocol.EventQuestionReplied, protocol.EventQuestionRejected:
		n.events <- ev // the tap's goroutine waits here rather than lose a decision
	}
}

// ended drops a decision's window; one already notified is withdrawn: the pages and devices
// that show its notification close it, whichever device answered.
func (n *Notifier) ended(ctx context.Context, g *Grace, session, decision string) {
	g.Ended(session, decision)
	if nt, ok := g.Withdraw(session, decision); ok {
		n.broadcast(ctx, nt.Withdrawal())
	}
}

// Seen stores a claim: the decision was shown to a person looking at it.
func (n *Notifier) Seen(ctx context.Context, c protocol.SeenClaim) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if err := n.claims.Claim(ctx, c.Session, c.Decision); err != nil {
		return err
	}
	select {
	case n.seen <- c: // this process drops it at once
	default:
	}
	return nil
}

// Subscribe hears every notification sent from now on, and every withdrawal of one
// (Withdrawn set), for an open page; stop ends it.
// A subscriber that does not keep up misses notifications rather than hold the others up.
func (n *Notifier) Subscribe() (<-chan protocol.Notification, func()) {
	ch := make(chan protocol.Notification, 16)
	n.mu.Lock()
	n.live[ch] = struct{}{}
	n.mu.Unlock()
	return ch, func() {
		n.mu.Lock()
		delete(n.live, ch)
		n.mu.Unlock()
	}
}

func (n *Notifier) loop(ctx context.Context) {
	defer close(n.done)
	g := NewGrace(n.opts.Grace)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		if next, ok := g.Next(); ok {
			timer.Reset(max(next.Sub(n.opts.Now()), 0))
		} else {
			timer.Stop()
		}
		select {
		case <-ctx.Done():
			return
		case ev := <-n.events:
			n.apply(ctx, g, ev)
		case c := <-n.seen:
			g.Ended(c.Session, c.Decision)
			if n.opts.Outcome != nil {
				n.opts.Outcome(protocol.Notification{Session: c.Session, Decision: c.Decision}, false)
			}
		case <-timer.C:
			for _, a := range g.Due(n.opts.Now()) {
				if n.deliver(ctx, a.Notification) {
					g.Sent(a.Notification)
				}
			}
		}
	}
}

func (n *Notifier) apply(ctx context.Context, g *Grace, ev protocol.Event) {
	switch ev.Type {
	case protocol.EventQuestionAsked:
		qa, err := ev.DecodeQuestionAsked()
		if err != nil {
			return
		}
		g.Asked(protocol.NotificationFor(ev.Session, n.opts.Title(ev.Session), qa), n.opts.Now())
	case protocol.EventQuestionReplied, protocol.EventQuestionRejected:
		if id, ok := ev.EndedDecision(); ok {
			n.ended(ctx, g, ev.Session, id)
		}
	}
}

// deliver sends nt unless another process stored a claim for it; it reports whether it did.
func (n *Notifier) deliver(ctx context.Context, nt protocol.Notification) bool {
	seen, err := n.claims.Seen(ctx, nt.Session, nt.Decision)
	if err != nil {
		slog.Warn("reading a seen claim; notifying anyway", "session", nt.Session, "decision", nt.Decision, "err", err)
	}
	if seen {
		if n.opts.Outcome != nil {
			n.opts.Outcome(nt, false)
		}
		return false
	}
	n.broadcast(ctx, nt)
	if n.opts.Outcome != nil {
		n.opts.Outcome(nt, true)
	}
	return true
}

// broadcast hands nt (a notification or a withdrawal) to every open page and every device.
func (n *Notifier) broadcast(ctx context.Context, nt protocol.Notification) {
	n.mu.Lock()
	for ch := range n.live {
		select {
		case ch <- nt:
		default:
		}
	}
	n.mu.Unlock()
	if n.opts.Push != nil {
		go n.opts.Push.SendAll(ctx, nt) // slow push services never hold up the window
	}
}
