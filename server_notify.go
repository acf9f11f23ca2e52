//go:build !wasm

package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"parley/runtime"
	"parley/runtime/notify"
	"parley/server"
)

// notifyConfig is how decisions reach a person who is not looking (docs/pwa.md).
type notifyConfig struct {
	// Grace is how long a decision waits for a page to claim it was seen.
	Grace time.Duration
	// PushSubject is the VAPID contact push services may write to.
	PushSubject string
}

// addNotifyFlags declares the notification flags; the func it returns reads them after Parse.
func addNotifyFlags(fs *flag.FlagSet, getenv func(string) string) func() (notifyConfig, error) {
	grace := getenv("PARLEY_NOTIFY_GRACE")
	if grace == "" {
		grace = notify.DefaultGrace.String()
	}
	fs.StringVar(&grace, "notify-grace", grace, "how long a decision waits for an open page to say it is on screen before it is notified, e.g. 1s (PARLEY_NOTIFY_GRACE)")
	subject := getenv("PARLEY_PUSH_SUBJECT")
	if subject == "" {
		subject = "mailto:parley@localhost"
	}
	fs.StringVar(&subject, "push-subject", subject, "the contact (mailto: or https: URL) Web Push services may write to about this server's pushes (PARLEY_PUSH_SUBJECT)")
	return func() (notifyConfig, error) {
		d, err := time.ParseDuration(grace)
		if err != nil || d < 0 || d > time.Minute {
			return notifyConfig{}, fmt.Errorf("notify grace %q: use a duration between 0s and 1m, like 1s", grace)
		}
		return notifyConfig{Grace: d, PushSubject: subject}, nil
	}
}

// startNotify starts the notifier on rt's log and Web Push with the data directory's VAPID
// keys, and hands both to the HTTP handlers.
func startNotify(ctx context.Context, cfg config, rt *runtime.Runtime, handlers *server.Server) (stop func(), err error) {
	keys, err := notify.LoadVAPID(cfg.Data)
	if err != nil {
		return nil, err
	}
	push, err := notify.OpenPush(ctx, rt.Log().JetStream(), keys, notify.PushOptions{Subject: cfg.Notify.PushSubject, Replicas: rt.Log().Replicas()})
	if err != nil {
		return nil, fmt.Errorf("open the push subscriptions: %w", err)
	}
	grace := cfg.Notify.Grace
	if grace == 0 {
		grace = time.Millisecond // 0s: notify at once (the window needs a length)
	}
	n, err := notify.Start(ctx, rt.Log(), notify.Options{
		Grace: grace,
		Push:  push,
		Title: func(session string) string {
			tctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			info, err := rt.Session(tctx, session)
			if err != nil {
				return ""
			}
			return info.Title
		},
	})
	if err != nil {
		return nil, fmt.Errorf("start the notifier: %w", err)
	}
	handlers.SetNotifier(n, push)
	return n.Close, nil
}
