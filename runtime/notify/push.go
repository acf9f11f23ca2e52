package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"
	"github.com/nats-io/nats.go/jetstream"

	"parley/i18n"
	"parley/protocol"
	"parley/runtime/kv"
)

// SubscriptionsBucket holds the Web Push subscriptions, one per device.
const SubscriptionsBucket = "parley_push_subscriptions"

// VAPIDKeys are the server's Web Push identity (RFC 8292), URL-safe base64.
type VAPIDKeys struct {
	PublicKey  string `json:"publicKey"`
	PrivateKey string `json:"privateKey"`
}

// vapidFile is where the keys live in the data directory.
const vapidFile = "vapid.json"

// LoadVAPID reads the keys from the data directory dir, generating and storing them the
// first time: a device subscribed to one key must keep getting pushes after a restart.
func LoadVAPID(dir string) (VAPIDKeys, error) {
	name := filepath.Join(dir, vapidFile)
	var k VAPIDKeys
	b, err := os.ReadFile(name)
	if err == nil {
		if err := json.Unmarshal(b, &k); err != nil || k.PublicKey == "" || k.PrivateKey == "" {
			return k, fmt.Errorf("%s is damaged (%v): delete it to make new keys (subscribed devices must then subscribe again)", name, err)
		}
		return k, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return k, err
	}
	if k.PrivateKey, k.PublicKey, err = webpush.GenerateVAPIDKeys(); err != nil {
		return k, err
	}
	b, _ = json.Marshal(k)
	if err := os.WriteFile(name, b, 0o600); err != nil {
		return k, fmt.Errorf("store the Web Push keys: %w", err)
	}
	return k, nil
}

// Device is one browser's subscription.
type Device struct {
	ID           string                    `json:"id"`
	Subscription protocol.PushSubscription `json:"subscription"`
	Since        time.Time                 `json:"since"`
}

// Push sends notifications to subscribed devices.
type Push struct {
	subs    *kv.Bucket[Device]
	keys    VAPIDKeys
	subject string
	client  webpush.HTTPClient
	now     func() time.Time
}

// PushOptions configure Push.
type PushOptions struct {
	// Subject is the VAPID contact, a mailto: or https: URL.
	Subject string
	// Replicas is the copies a cluster keeps of the subscriptions (the log's count).
	Replicas int
	// Client sends the requests; http.DefaultClient when nil.
	Client *http.Client
	Now    func() time.Time
}

// OpenPush opens the subscriptions bucket.
func OpenPush(ctx context.Context, js jetstream.JetStream, keys VAPIDKeys, opts PushOptions) (*Push, error) {
	subs, err := kv.Open[Device](ctx, js, SubscriptionsBucket, "Web Push subscriptions, one per device", opts.Replicas)
	if err != nil {
		return nil, err
	}
	p := &Push{subs: subs, keys: keys, subject: opts.Subject, client: http.DefaultClient, now: time.Now}
	if opts.Client != nil {
		p.client = opts.Client
	}
	if opts.Now != nil {
		p.now = opts.Now
	}
	if p.subject == "" {
		p.subject = "mailto:parley@localhost"
	}
	return p, nil
}

// PublicKey is the key a browser subscribes with.
func (p *Push) PublicKey() string { return p.keys.PublicKey }

// ErrBadSubscription is a subscription that cannot be sent to.
var ErrBadSubscription = errors.New("bad push subscription")

// Subscribe stores device's subscription, replacing its earlier one. Endpoints must be
// https: the server posts to them.
func (p *Push) Subscribe(ctx context.Context, device string, s protocol.PushSubscription) error {
	if !protocol.ValidSessionID(device) {
		return fmt.Errorf("%w: device %q is not an id of letters, digits, - and _", ErrBadSubscription, device)
	}
	if err := s.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrBadSubscription, err)
	}
	if !strings.HasPrefix(s.Endpoint, "https://") {
		return fmt.Errorf("%w: the endpoint must be an https URL", ErrBadSubscription)
	}
	return p.subs.Put(ctx, device, Device{ID: device, Subscription: s, Since: p.now()})
}

// Unsubscribe forgets device; an unknown one is no error.
func (p *Push) Unsubscribe(ctx context.Context, device string) error {
	if !protocol.ValidSessionID(device) {
		return fmt.Errorf("%w: device %q is not an id", ErrBadSubscription, device)
	}
	err := p.subs.Purge(ctx, device)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil
	}
	return err
}

// Devices lists the subscribed devices.
func (p *Push) Devices(ctx context.Context) ([]Device, error) { return p.subs.List(ctx, "") }

// SendAll pushes n to every subscribed device, removing those whose push service says the
// subscription is gone (404, 410).
func (p *Push) SendAll(ctx context.Context, n protocol.Notification) {
	devices, err := p.Devices(ctx)
	if err != nil {
		slog.Warn("listing push subscriptions", "err", err)
		return
	}
	// Each device's in the locale of the page that subscribed it.
	payloads := map[i18n.Locale][]byte{}
	// A withdrawal carries no Topic: it would replace, at the push service, a newer ask of
	// the same thread not yet delivered.
	topic := n.Tag
	if n.Withdrawn {
		topic = ""
	}
	for _, d := range devices {
		l, _ := i18n.Parse(d.Subscription.Locale)
		payload, ok := payloads[l]
		if !ok {
			payload, _ = json.Marshal(InLocale(l, n))
			payloads[l] = payload
		}
		if err := p.send(ctx, d, payload, topic); err != nil {
			slog.Warn("web push", "device", d.ID, "err", err)
		}
	}
}

func (p *Push) send(ctx context.Context, d Device, payload []byte, tag string) error {
	sub := &webpush.Subscription{Endpoint: d.Subscription.Endpoint, Keys: webpush.Keys{
		P256dh: d.Subscription.Keys.P256dh, Auth: d.Subscription.Keys.Auth}}
	opts := &webpush.Options{
		HTTPClient:      p.client,
		Subscriber:      p.subject,
		VAPIDPublicKey:  p.keys.PublicKey,
		VAPIDPrivateKey: p.keys.PrivateKey,
		TTL:             600, // a decision waits 10 minutes by default; later it is history
		Urgency:         webpush.UrgencyHigh,
	}
	if tag != "" && len(tag) <= 32 {
		opts.Topic = tag // a newer push of the same thread replaces one not yet delivered
	}
	resp, err := webpush.SendNotificationWithContext(ctx, payload, sub, opts)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		slog.Info("push subscription expired; removed", "device", d.ID, "status", resp.StatusCode)
		return p.Unsubscribe(ctx, d.ID)
	case resp.StatusCode >= 300:
		return fmt.Errorf("push service answered %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return nil
}
