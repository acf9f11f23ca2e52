package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"

	"parley/internal/testkit"
)

// TestAStreamTakesTheHiddenPlaceholder: the thread keeps a hidden, empty entry after its
// log, and a message's first token is written into it (components/stream.go, adoptStream);
// go-app's render after it makes the entry its own. Whatever the path, the page ends as if
// go-app had drawn it all: the entry holds the message, one placeholder waits at the end,
// hidden and out of every count of messages, and the next turn's stream takes the new one.
func TestAStreamTakesTheHiddenPlaceholder(t *testing.T) {
	t.Parallel()
	start, more := make(chan struct{}), make(chan struct{})
	_, _, ctx := openModel(t,
		testkit.Reply{Steps: []testkit.Step{{Hold: start}, testkit.TextChunk("First "), {Hold: more}, testkit.TextChunk("words."), testkit.Finish("stop")}},
		testkit.Reply{Steps: []testkit.Step{testkit.TextChunk("Second "), testkit.TextChunk("reply."), testkit.Finish("stop")}},
	)
	const onePlaceholderLast = `(() => {
		const inner = document.querySelector('.thread-inner');
		const ph = inner.querySelectorAll(':scope > .msg-pending');
		return ph.length === 1 && inner.lastElementChild === ph[0] && ph[0].hidden && ph[0].offsetHeight === 0;
	})()`
	prompt(t, ctx, "hi")
	do(t, ctx, 60*time.Second, waitJS(`[...document.querySelectorAll('.thread .msg-user .msg-text')].some(e => e.textContent === 'hi')`), waitJS(onePlaceholderLast))
	evalBool(t, ctx, `(window.__ph = document.querySelector('.thread-inner > .msg-pending'), true)`)
	assert.Zero(t, int(get(t, ctx, chromedp.Evaluate[float64](`document.querySelectorAll('.thread-inner .msg-agent, .thread-inner .msg[data-offset]:not(.msg-user)').length`))), "the placeholder is no message")

	close(start)
	do(t, ctx, 20*time.Second, waitJS(`(document.querySelector('.thread .msg-streaming .msg-text') || {}).textContent === 'First '`))
	assert.True(t, evalBool(t, ctx, `document.querySelector('.thread .msg-streaming') === window.__ph`), "the stream is drawn in the placeholder's node")
	do(t, ctx, 20*time.Second, waitJS(onePlaceholderLast))

	close(more)
	do(t, ctx, 20*time.Second, waitJS(`!document.querySelector('.thread .msg-streaming') && !document.querySelector('.thread .stop')`))
	assert.Equal(t, "First words.", lastAgentText(t, ctx))
	assert.True(t, evalBool(t, ctx, `window.__ph.isConnected && window.__ph.classList.contains('msg-agent') && !window.__ph.hidden && window.__ph.dataset.stream !== 'pending'`), "the placeholder became the message")
	assert.True(t, evalBool(t, ctx, onePlaceholderLast))

	prompt(t, ctx, "again")
	do(t, ctx, 20*time.Second, waitJS(`document.querySelectorAll('.thread .msg-agent').length === 2 && !document.querySelector('.thread .msg-streaming') && !document.querySelector('.thread .stop')`))
	assert.Equal(t, "Second reply.", lastAgentText(t, ctx))
	assert.Equal(t, `["First words.","Second reply."]`, evalString(t, ctx, `JSON.stringify([...document.querySelectorAll('.thread .msg-agent .msg-text')].map(e => e.textContent))`))
	assert.True(t, evalBool(t, ctx, onePlaceholderLast))
}
