package protocol

import (
	"errors"
	"fmt"
)

// Notification tells a person that a decision waits for them (docs/pwa.md). The server
// sends it to open pages (GET /api/notifications, a stream of server-sent events) and to
// subscribed devices (Web Push); the service worker shows it.
type Notification struct {
	Session  string `json:"session"`
	Decision string `json:"decision"`
	// Title and Body say what is asked, as text.
	Title string `json:"title"`
	Body  string `json:"body,omitempty"`
	// Tag is the thread's: a later ask in the same thread replaces the earlier one.
	Tag string `json:"tag"`
	// URL opens the thread, where the decision waits in the composer.
	URL string `json:"url"`
	// Withdrawn says the decision was answered or ended after it was notified: whoever
	// shows its notification closes it (the service worker, by tag and decision). A
	// withdrawal has no title.
	Withdrawn bool `json:"withdrawn,omitempty"`
	// Request and Thread are what Title and Body were worded from, for a server that words
	// them again in a reader's locale (runtime/notify.InLocale); never sent.
	Request *DecisionRequest `json:"-"`
	Thread  string           `json:"-"`
}

// Withdrawal is what takes n back once its decision is answered elsewhere: the same thread,
// tag and decision, nothing to show.
func (n Notification) Withdrawal() Notification {
	return Notification{Session: n.Session, Decision: n.Decision, Tag: n.Tag, URL: n.URL, Withdrawn: true}
}

// SeenClaim is the body of POST /api/notifications/seen: a page that shows the decision to
// a person who is looking says so, and no notification about it is sent.
type SeenClaim struct {
	Session  string `json:"session"`
	Decision string `json:"decision"`
}

// Validate checks both ids.
func (c SeenClaim) Validate() error {
	if !ValidSessionID(c.Session) {
		return fmt.Errorf("session %q is not a session id", c.Session)
	}
	if !ValidSessionID(c.Decision) {
		return fmt.Errorf("decision %q is not a decision id", c.Decision)
	}
	return nil
}

// PushKey answers GET /api/push: the server's VAPID public key, URL-safe base64 without
// padding, for PushManager.subscribe's applicationServerKey.
type PushKey struct {
	PublicKey string `json:"publicKey"`
}

// PushSubscription is the body of PUT /api/push/{device}: PushSubscription.toJSON() of the
// browser.
type PushSubscription struct {
	// Locale is the page's locale (a BCP 47 tag) its device's notifications are worded in.
	Locale         string   `json:"locale,omitempty"`
	Endpoint       string   `json:"endpoint"`
	ExpirationTime *float64 `json:"expirationTime,omitempty"`
	Keys           struct {
		P256dh string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
}

// Validate checks that the subscription can be sent to.
func (s PushSubscription) Validate() error {
	switch {
	case s.Endpoint == "":
		return errors.New("endpoint is missing")
	case len(s.Endpoint) > 2048:
		return errors.New("endpoint is longer than 2048 bytes")
	case s.Keys.P256dh == "" || s.Keys.Auth == "":
		return errors.New("keys.p256dh and keys.auth are both needed")
	}
	return nil
}

// NotificationFor words decision d of session for a person: what is asked, in the thread
// titled title.
func NotificationFor(session, title string, d QuestionAsked) Notification {
	return NotificationIn(EnglishNotification, session, title, d)
}

// NotificationWords are a notification's fixed words in one locale.
type NotificationWords struct {
	Question, Approval, Confirm string
	Sep                         string // between the kind and the question
	In                          string // before the thread's title
	After                       string // after it
}

// EnglishNotification are the words of NotificationFor.
var EnglishNotification = NotificationWords{Question: "A question", Approval: "Approval needed", Confirm: "Confirm", Sep: ": ", In: "In "}

// NotificationIn is NotificationFor in words w; d's request as it is to be read.
func NotificationIn(w NotificationWords, session, title string, d QuestionAsked) Notification {
	n := Notification{Session: session, Decision: d.ID, Tag: "parley-" + session, URL: "/s/" + session, Request: &d.Request, Thread: title}
	what := w.Question
	switch d.Request.Kind {
	case KindApproval:
		what = w.Approval
	case KindConfirm:
		what = w.Confirm
	}
	n.Title = what + w.Sep + firstLine(d.Request.Message, 120)
	n.Body = firstLine(d.Request.Details, 200)
	if title != "" {
		if n.Body != "" {
			n.Body += "\n"
		}
		n.Body += w.In + firstLine(title, 80) + w.After
	}
	return n
}

// firstLine is s's first line, cut to at most n runes with an ellipsis.
func firstLine(s string, n int) string {
	for i, r := range s {
		if r == '\n' {
			s = s[:i]
			break
		}
	}
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
