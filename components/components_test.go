package components

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/app/store"
	"parley/components/composer"
	"parley/components/viewtest"
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

// A streaming message draws its finished chunks as Markdown and the chunk still growing as
// text, in the tail paintStream writes into; data-cut says where that tail begins, and
// data-resume where paintStream's scan for the next cut starts.
func TestAStreamingMessageDrawsItsFinishedChunksAsMarkdown(t *testing.T) {
	m := store.Message{Role: store.RoleAgent, Status: store.StatusStreaming, Stream: "4-1", Text: "# Plan\n\nI will **read** the"}
	html := viewtest.Render(t, &MessageItem{Message: m})
	assert.Contains(t, html, `<h2 class="md-h1">Plan</h2>`, "the finished chunk is Markdown (a heading a level down)")
	assert.NotContains(t, html, "# Plan")
	assert.NotContains(t, html, "<strong>")
	attrs, tail := streamTailOf(t, html)
	assert.Equal(t, "I will **read** the", tail, "the growing chunk is text")
	assert.Contains(t, attrs, `data-cut="8"`)
	assert.Contains(t, attrs, `data-resume="0"`, "the tail's first line has not ended: its cut may still move")

	m.Text = "# Plan\n\nFirst I will\n**read** the"
	attrs, tail = streamTailOf(t, viewtest.Render(t, &MessageItem{Message: m}))
	assert.Equal(t, "First I will\n**read** the", tail)
	assert.Contains(t, attrs, `data-resume="8"`, "the tail's first line has ended: its cut stands")

	one := viewtest.Render(t, &MessageItem{Message: store.Message{Role: store.RoleAgent, Status: store.StatusStreaming, Stream: "4-1", Text: "**hi"}})
	// go-app writes an element's attributes in no fixed order.
	assert.Regexp(t, `<div (?:class="msg-text" dir="auto"|dir="auto" class="msg-text")>\s*<span [^>]*class="`+tailClass+`"[^>]*>\*\*hi</span>\s*</div>`, one, "one chunk: all tail, no Markdown yet")
	attrs, _ = streamTailOf(t, one)
	assert.Contains(t, attrs, `data-cut="0"`)
}

// A code block still streaming is drawn as a code block, not as its fence in raw text: the
// words before it as Markdown, its lines in the code paintStream writes into, under its
// language. Once it closes it is the finished block, with Copy, and the tail is text again.
func TestAStreamingCodeBlockIsDrawnAsCode(t *testing.T) {
	m := store.Message{Role: store.RoleAgent, Status: store.StatusStreaming, Stream: "4-1", Text: "# Plan\n\nLike this:\n```go\nfmt.Println(1)\n``"}
	html := viewtest.Render(t, &MessageItem{Message: m})
	assert.Contains(t, html, "<p>Like this:</p>", "the words before the fence are Markdown")
	assert.NotContains(t, html, "```")
	code := regexp.MustCompile(`<code ([^>]*class="` + tailClass + ` language-go"[^>]*)>([^<]*)</code>`).FindStringSubmatch(html)
	require.NotNil(t, code, html)
	assert.Equal(t, "fmt.Println(1)\n", code[2], "the code so far, less a line that may be its closing fence")
	assert.Contains(t, code[1], `data-cut="8"`)
	assert.Contains(t, code[1], `data-shape="11,17,code,go"`)
	assert.Contains(t, html, `<span class="md-code-lang">go</span>`)

	m.Text += "`\nThen I"
	html = viewtest.Render(t, &MessageItem{Message: m})
	assert.Contains(t, html, `aria-label="Copy code"`, "the finished block, with its Copy")
	assert.NotContains(t, html, "```")
	attrs, tail := streamTailOf(t, html)
	assert.Equal(t, "Then I", tail)
	assert.Contains(t, attrs, `data-shape="36,36"`)
}

// streamTailOf is the attributes and the text of the stream tail in html.
func streamTailOf(t *testing.T, html string) (attrs, text string) {
	t.Helper()
	m := regexp.MustCompile(`<span ([^>]*class="` + tailClass + `"[^>]*)>([^<]*)</span>`).FindStringSubmatch(html)
	require.NotNil(t, m, html)
	return m[1], m[2]
}

// The hidden placeholder after the log (adoptStream): last in the log, hidden, and with no
// class or data-stream a real message has, so go-app's render over an adopted node sets
// both again; the class written on adoption is the one a streaming message renders with.
func TestThreadKeepsAHiddenPlaceholderLast(t *testing.T) {
	msgs := []store.Message{{Offset: 2, Role: store.RoleUser, Text: "hi"}, {Offset: 3, Role: store.RoleAgent, Text: "hello"}}
	html := viewtest.Render(t, &Thread{Messages: msgs})
	ph := regexp.MustCompile(`<div [^>]*class="` + pendingClass + `"[^>]*>`)
	loc := ph.FindStringIndex(html)
	require.NotNil(t, loc, html)
	tag := html[loc[0]:loc[1]]
	assert.Regexp(t, ` hidden[ >]`, tag)
	assert.Contains(t, tag, `data-stream="`+pendingStream+`"`)
	assert.Greater(t, loc[0], strings.Index(html, "hello"), "after the last message")
	assert.Equal(t, 1, len(ph.FindAllString(html, -1)))
	assert.NotContains(t, strings.Fields(pendingClass), "msg", "no list of messages counts it")

	streaming := store.Message{Role: store.RoleAgent, Status: store.StatusStreaming, Stream: "4-1", Text: "Hel"}
	one := viewtest.Render(t, &MessageItem{Message: streaming})
	assert.Contains(t, one, `class="`+messageClass(streaming)+`"`)
	assert.Contains(t, messageClass(streaming), "msg-streaming")
	assert.NotEqual(t, pendingStream, streaming.Stream)
}
