package components

import (
	"strings"
	"testing"

	"parley/components/viewtest"

	"github.com/stretchr/testify/assert"

	"parley/app/store"
	"parley/components/composer"
)

func TestAgentTextIsRenderedAsText(t *testing.T) {
	html := viewtest.Render(t, &MessageItem{Message: store.Message{Offset: 7, Role: store.RoleAgent, Text: `<script>alert(1)</script> & <b>bold</b>`}})
	assert.NotContains(t, html, "<script>")
	assert.NotContains(t, html, "<b>")
	assert.Contains(t, html, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;")
	assert.Contains(t, html, `data-offset="7"`)
	assert.Contains(t, html, "msg-agent")
}

func TestThreadShowsMessagesInOrderAndTheWorkingIndicator(t *testing.T) {
	msgs := []store.Message{{Offset: 2, Role: store.RoleUser, Text: "hi"}, {Offset: 3, Role: store.RoleAgent, Text: "hello"}}
	html := viewtest.Render(t, &Thread{Messages: msgs})
	assert.Less(t, strings.Index(html, "hi"), strings.Index(html, "hello"))
	assert.Contains(t, html, `role="log"`)
	assert.NotContains(t, html, "working")
	working := viewtest.Render(t, &Thread{Messages: msgs[:1], Working: true})
	assert.Contains(t, working, `role="status"`)
	assert.Contains(t, working, "The agent is working…")
	assert.Contains(t, html, "You said:")
	assert.Contains(t, html, "The agent said:")
}

func TestConversationShowsTheHeroWithoutASession(t *testing.T) {
	html := viewtest.Render(t, &Conversation{})
	assert.Contains(t, html, `class="hero"`)
	assert.Contains(t, html, `id="composer-input"`)
	assert.Contains(t, html, "Ask anything to start a session")
	assert.NotContains(t, html, `class="thread"`)
}

func TestComposerSendButtonFollowsTheDraft(t *testing.T) {
	c := &composer.Composer{Placeholder: "Message the agent"}
	html := viewtest.Render(t, c)
	assert.Contains(t, html, `aria-label="Message"`)
	assert.Regexp(t, `<button[^>]*disabled`, html, "nothing to send")
	assert.NotContains(t, html, `disabled="false"`, "a browser reads any disabled attribute as disabled")
	assert.NotRegexp(t, `<textarea[^>]*disabled`, html)

	off := viewtest.Render(t, &composer.Composer{Session: "s1", Disabled: true})
	assert.Regexp(t, `<textarea[^>]*disabled`, off)
}

func TestSessionOfPath(t *testing.T) {
	for path, want := range map[string]string{"/": "", "/s/abc": "abc", "/s/": "", "/s/a.b": "", "/x/abc": ""} {
		assert.Equal(t, want, sessionOfPath(path), path)
	}
}

func TestOnlyTheAgentsOwnTextIsMarkdown(t *testing.T) {
	agent := viewtest.Render(t, &MessageItem{Message: store.Message{Role: store.RoleAgent, Text: "**hi** [x](https://e.x)"}})
	assert.Contains(t, agent, "<strong>hi</strong>")
	assert.Contains(t, agent, `href="https://e.x"`)
	for _, m := range []store.Message{
		{Role: store.RoleUser, Text: "**hi**"},
		{Role: store.RoleAgent, From: "parley", Text: "**hi**"},
		{Role: store.RoleAgent, From: "script", Text: "**hi**"},
	} {
		html := viewtest.Render(t, &MessageItem{Message: m})
		assert.Contains(t, html, "**hi**", m)
		assert.NotContains(t, html, "<strong>", m)
	}
}
