package notify_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"parley/i18n"
	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime/eventlog"
	"parley/runtime/notify"
)

// outcome is what a notifier made of a decision at the end of its window.
type outcome struct {
	decision string
	sent     bool
}

// instance is one runtime process's notifier on the shared JetStream.
type instance struct {
	n        *notify.Notifier
	outcomes chan outcome
	live     <-chan protocol.Notification
}

func start(t *testing.T, log *eventlog.Log, grace time.Duration) *instance {
	t.Helper()
	in := &instance{outcomes: make(chan outcome, 16)}
	n, err := notify.Start(t.Context(), log, notify.Options{
		Grace:   grace,
		Title:   func(session string) string { return "Thread " + session },
		Outcome: func(nt protocol.Notification, sent bool) { in.outcomes <- outcome{nt.Decision, sent} },
	})
	require.NoError(t, err)
	t.Cleanup(n.Close)
	in.n = n
	live, stop := n.Subscribe()
	t.Cleanup(stop)
	in.live = live
	return in
}

// within bounds the wait for what a notifier does at the end of a window.
const within = 20 * time.Second

func (in *instance) next(t *testing.T) outcome {
	t.Helper()
	return testkit.RecvWithin(t, in.outcomes, within, "no outcome")
}

func openLog(t *testing.T) *eventlog.Log {
	t.Helper()
	nc, _ := testkit.JetStream(t, "")
	log, err := eventlog.Open(t.Context(), nc, eventlog.Config{})
	require.NoError(t, err)
	return log
}

func ask(t *testing.T, log *eventlog.Log, session, decision, message string) {
	t.Helper()
	qa := protocol.QuestionAsked{ID: decision, Request: protocol.DecisionRequest{Kind: protocol.KindApproval, Message: message, Details: "rm -rf build\nmore"}}
	_, _, err := log.Publish(context.Background(), eventlog.DecisionSubject(session, decision), protocol.EventQuestionAsked, qa, "")
	require.NoError(t, err)
}

func reply(t *testing.T, log *eventlog.Log, session, decision string) {
	t.Helper()
	_, _, err := log.Publish(context.Background(), eventlog.DecisionSubject(session, decision), protocol.EventQuestionReplied,
		protocol.QuestionReplied{ID: decision, Action: protocol.ActionDecline}, "")
	require.NoError(t, err)
}

// TestNotifiedWhenNobodyClaims: a decision nobody claims is notified after its window, to
// every open page, saying what is asked and opening its thread.
func TestNotifiedWhenNobodyClaims(t *testing.T) {
	log := openLog(t)
	a := start(t, log, time.Second)
	ask(t, log, "s1", "d1", "Run a command?")
	require.Equal(t, outcome{"d1", true}, a.next(t))
	got := <-a.live
	require.NotNil(t, got.Request, "what it was worded from, for another locale")
	require.Equal(t, "Thread s1", got.Thread)
	zh := notify.InLocale(i18n.Chinese, got)
	require.Equal(t, "需要批准：Run a command?", zh.Title)
	require.Equal(t, "rm -rf build\n在“Thread s1”中", zh.Body)
	got.Request, got.Thread = nil, ""
	require.Equal(t, protocol.Notification{Session: "s1", Decision: "d1", Title: "Approval needed: Run a command?",
		Body: "rm -rf build\nIn Thread s1", Tag: "parley-s1", URL: "/s/s1"}, got)
}

// TestNotificationInLocale: the gate's question by its phrase and each kind's word in
// Chinese; English, and a withdrawal, as they are.
func TestNotificationInLocale(t *testing.T) {
	p, text := i18n.EnglishPhrase("gate_ask_run", "git")
	asked := protocol.QuestionAsked{ID: "d1", Request: protocol.DecisionRequest{Kind: protocol.KindApproval, Message: text, Phrase: &p, Details: "git push"}}
	n := protocol.NotificationFor("s1", "Release", asked)
	require.Equal(t, "Approval needed: Allow running git?", n.Title)
	require.Equal(t, n, notify.InLocale(i18n.English, n))
	zh := notify.InLocale(i18n.Chinese, n)
	require.Equal(t, "需要批准：允许运行 git 吗？", zh.Title)
	require.Equal(t, "git push\n在“Release”中", zh.Body)
	require.Equal(t, n.Tag, zh.Tag)
	require.Equal(t, n.URL, zh.URL)
	for kind, word := range map[protocol.DecisionKind]string{protocol.KindAsk: "一个问题", protocol.KindConfirm: "请确认"} {
		q := protocol.NotificationFor("s1", "", protocol.QuestionAsked{ID: "d2", Request: protocol.DecisionRequest{Kind: kind, Message: "Ship?"}})
		require.Equal(t, word+"：Ship?", notify.InLocale(i18n.Chinese, q).Title)
	}
	w := n.Withdrawal()
	require.Equal(t, w, notify.InLocale(i18n.Chinese, w))
}

// TestOneClaimSilencesEveryProcess: a page of process B claims the decision inside the
// window; process A, whose pages would notify, reads the claim from the KV bucket and drops
// it, and B drops it at once.
func TestOneClaimSilencesEveryProcess(t *testing.T) {
	log := openLog(t)
	a := start(t, log, time.Second)
	b := start(t, log, time.Second)
	ask(t, log, "s1", "d1", "Run a command?")
	require.NoError(t, b.n.Seen(t.Context(), protocol.SeenClaim{Session: "s1", Decision: "d1"}))
	require.Equal(t, outcome{"d1", false}, b.next(t), "the claiming process drops it")
	require.Equal(t, outcome{"d1", false}, a.next(t), "the other process reads the claim")
	require.Empty(t, a.live)
	require.Empty(t, b.live)

	// A later decision in the same thread, unclaimed, is notified.
	ask(t, log, "s1", "d2", "And this one?")
	require.Equal(t, outcome{"d2", true}, a.next(t))
	require.Equal(t, "d2", (<-a.live).Decision)
}

// TestAnsweredInsideTheWindowIsNotNotified: a decision answered before its window ends is
// never notified; the one asked after it is.
func TestAnsweredInsideTheWindowIsNotNotified(t *testing.T) {
	log := openLog(t)
	a := start(t, log, time.Second)
	ask(t, log, "s1", "d1", "First?")
	reply(t, log, "s1", "d1")
	ask(t, log, "s1", "d2", "Second?")
	require.Equal(t, outcome{"d2", true}, a.next(t), "d1 was answered: only d2 comes out")
}

// TestClaimsExpire: the claims bucket keeps a claim for its TTL (JetStream's minimum is a
// second), then forgets it.
func TestClaimsExpire(t *testing.T) {
	nc, _ := testkit.JetStream(t, "")
	log, err := eventlog.Open(t.Context(), nc, eventlog.Config{})
	require.NoError(t, err)
	c, err := notify.OpenClaims(t.Context(), log.JetStream(), notify.MinClaimTTL, 1)
	require.NoError(t, err)
	require.NoError(t, c.Claim(t.Context(), "s1", "d1"))
	seen, err := c.Seen(t.Context(), "s1", "d1")
	require.NoError(t, err)
	require.True(t, seen)
	other, err := c.Seen(t.Context(), "s1", "d2")
	require.NoError(t, err)
	require.False(t, other)
	require.Eventually(t, func() bool {
		seen, err := c.Seen(context.Background(), "s1", "d1")
		return err == nil && !seen
	}, 15*time.Second, 50*time.Millisecond, "the claim expires with the bucket's TTL")
}

// TestBadClaim: a claim must name a session and a decision.
func TestBadClaim(t *testing.T) {
	log := openLog(t)
	a := start(t, log, time.Second)
	require.Error(t, a.n.Seen(t.Context(), protocol.SeenClaim{Session: "s1", Decision: "a.b"}))
	require.Error(t, a.n.Seen(t.Context(), protocol.SeenClaim{Session: "", Decision: "d"}))
}

// TestAnsweredAfterTheNotificationIsWithdrawn: a decision answered after it was notified
// (on another device, say) is taken back: every open page hears a withdrawal with its tag.
// One answered inside its window was never notified and is not withdrawn.
func TestAnsweredAfterTheNotificationIsWithdrawn(t *testing.T) {
	log := openLog(t)
	a := start(t, log, time.Second)
	ask(t, log, "s1", "d1", "First?")
	reply(t, log, "s1", "d1") // inside the window
	ask(t, log, "s1", "d2", "Second?")
	require.Equal(t, outcome{"d2", true}, a.next(t))
	got := <-a.live
	require.Equal(t, "d2", got.Decision)
	require.False(t, got.Withdrawn)

	reply(t, log, "s1", "d2")
	w := testkit.RecvWithin(t, a.live, within, "no withdrawal")
	require.Equal(t, protocol.Notification{Session: "s1", Decision: "d2", Tag: "parley-s1", URL: "/s/s1", Withdrawn: true}, w,
		"the first thing heard after the notification is its withdrawal, not d1's")
}
