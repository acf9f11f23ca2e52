package components

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"parley/app/socket"
	"parley/components/viewtest"
	mo "parley/machine/outbox"
)

// TestOneRetryNowOffline (QA round 12 #11): a session's page offline, whose session list could
// not be read and which holds a prompt waiting to be sent, offers one Retry now, in the
// strip; the list's failure is said there, not in a notice of its own.
func TestOneRetryNowOffline(t *testing.T) {
	c := &Conversation{session: "s1", unreachable: true, unsent: []mo.Entry{{ID: "a1", Text: "sent while away", State: mo.Waiting}}}
	c.link = socket.State{Status: socket.Reconnecting, Attempt: 3}
	c.setNotice("Could not list sessions: the server is not reachable.", true)
	c.listNotice = c.notice
	c.listRetry.at = time.Now().Add(time.Second)
	html := viewtest.Render(t, &host{ui: c.Render})
	assert.Equal(t, 1, strings.Count(html, "Retry now"), html)
	assert.NotContains(t, html, "Could not list sessions")
	assert.Contains(t, html, "sent while away")
	assert.Contains(t, html, "unsent-cancel")

	// Back online, a list that still fails says so, with its own Retry now.
	c.unreachable, c.unsent = false, nil
	c.link = socket.State{Status: socket.Live}
	html = viewtest.Render(t, &host{ui: c.Render})
	assert.Contains(t, html, "Could not list sessions")
	assert.Equal(t, 1, strings.Count(html, "Retry now"), html)
}
