package components

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/app/socket"
	"parley/components/viewtest"
	mo "parley/machine/outbox"
	"parley/protocol"
)

// TestUnsentShowsItsState: a prompt that waits says so and offers Retry now and Cancel; a
// refused one says why; one being sent is the person's message with no words.
func TestUnsentShowsItsState(t *testing.T) {
	html := viewtest.Render(t, &Thread{Unsent: []mo.Entry{
		{ID: "a1", Text: "first", State: mo.Waiting},
		{ID: "a2", Text: "second", State: mo.Refused, Err: "the session is gone"},
		{ID: "a3", Text: "third", State: mo.Sending},
	}})
	assert.Contains(t, html, "Not sent yet — sends when Parley is reachable")
	assert.Contains(t, html, "Not sent: the session is gone")
	assert.Equal(t, 1, strings.Count(html, "Retry now"), "only the waiting one is retried")
	assert.Equal(t, 2, strings.Count(html, ">Cancel<"))
	assert.Equal(t, 3, strings.Count(html, "msg msg-user msg-unsent"))
	assert.Less(t, strings.Index(html, "first"), strings.Index(html, "second"))
	assert.Less(t, strings.Index(html, "second"), strings.Index(html, "third"))
	assert.Equal(t, 2, strings.Count(html, `class="unsent-state"`))
}

// TestOneStripWhileOffline: a session's page that counts the server as away draws one strip,
// the link's, with the socket's reason and one Retry now; the hero draws the banner.
func TestOneStripWhileOffline(t *testing.T) {
	c := &Conversation{session: "s1", unreachable: true}
	c.link = socket.State{Status: socket.Reconnecting, Attempt: 3, Error: "the runtime behind this server is not reachable"}
	assert.True(t, c.offline())
	html := viewtest.Render(t, &host{ui: c.Render})
	assert.Equal(t, 1, strings.Count(html, "Retry now"), html)
	assert.Contains(t, html, "link link-reconnecting offline")
	assert.Contains(t, html, "the runtime behind this server is not reachable")
	assert.NotContains(t, html, `class="offline"`)

	hero := &Conversation{unreachable: true}
	hero.link = socket.State{Status: socket.Reconnecting, Attempt: 3}
	html = viewtest.Render(t, &host{ui: hero.Render})
	assert.Equal(t, 1, strings.Count(html, "Retry now"), html)
	assert.Contains(t, html, `class="offline"`)
}

// TestAFirstPromptSentOfflineKeepsItsTitle (QA round 16 #11): the hero's session whose first
// prompt waited in the outbox is listed and titled by that prompt (engagedBy); a session list
// read as the server comes back, before the prompt is stored, still calls it a blank "New
// session": the page keeps the title its prompt gives it, which the server gives it too once
// the prompt lands. A list that no longer calls it blank is the server's word.
func TestAFirstPromptSentOfflineKeepsItsTitle(t *testing.T) {
	c := &Conversation{session: "s1"}
	c.sessions = []protocol.SessionInfo{{ID: "s1", Title: "fix the login bug", Created: 50}}
	c.thread.Title = "fix the login bug"

	c.listed([]protocol.SessionInfo{{ID: "s2", Title: "other", Created: 40}, {ID: "s1", Title: protocol.Untitled, Blank: true, Created: 10}})
	assert.Equal(t, "fix the login bug", c.titleOf("s1"), "not New session before the prompt is stored")
	assert.Equal(t, "fix the login bug", c.thread.Title)
	assert.Len(t, c.sessions, 2)

	c.listed([]protocol.SessionInfo{{ID: "s1", Title: "fix the login bug", Created: 60}, {ID: "s2", Title: "other", Created: 40}})
	assert.Equal(t, "fix the login bug", c.titleOf("s1"))
	c.listed([]protocol.SessionInfo{{ID: "s1", Title: "Renamed elsewhere", Created: 60}, {ID: "s2", Title: "other", Created: 40}})
	assert.Equal(t, "Renamed elsewhere", c.titleOf("s1"), "the server's title once it has one")
	assert.Equal(t, "Renamed elsewhere", c.thread.Title)
}
