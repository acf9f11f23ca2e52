package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRightToLeftTextIsLaidOutRightToLeft (QA round 12 #13): Arabic typed into the composer
// is laid out right to left, in the textarea and in the backdrop that draws it, and so is the
// message it becomes and the session's title; an English message beside it stays left to
// right. dir="auto" leaves the computed direction alone, so the test asks :dir().
func TestRightToLeftTextIsLaidOutRightToLeft(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	const arabic = "مرحبا بالعالم، كيف حالك؟ test 123"

	typeAt(t, ctx, newRand(), arabic, typingPaces[0])
	do(t, ctx, 10*time.Second, waitDraft(arabic))
	assert.True(t, evalBool(t, ctx, `document.querySelector('#composer-input').matches(':dir(rtl)')`), "the textarea")
	assert.True(t, evalBool(t, ctx, `document.querySelector('.ib-backdrop').matches(':dir(rtl)')`), "the backdrop, which draws the same text")
	// The two layers still line up: the drawn text ends at the textarea's right edge, where
	// its caret started.
	gap := evalString(t, ctx, `(() => {
		const ta = document.querySelector('#composer-input'), bd = document.querySelector('.ib-backdrop');
		const r = document.createRange(); r.selectNodeContents(bd.firstChild);
		const text = r.getBoundingClientRect(), box = ta.getBoundingClientRect();
		return String(Math.round(box.left + ta.clientLeft + ta.clientWidth - text.right));
	})()`)
	assert.Contains(t, []string{"0", "1", "-1"}, gap, "the backdrop's text ends at the textarea's right edge")

	do(t, ctx, 10*time.Second, pressEnter(0))
	waitMessages(t, ctx, 2)
	do(t, ctx, 10*time.Second, waitJS(`document.querySelector('.session-header h1').textContent.startsWith('مرحبا')`))
	assert.True(t, evalBool(t, ctx, `document.querySelector('.thread .msg-user .msg-text').matches(':dir(rtl)')`), "the message")
	assert.True(t, evalBool(t, ctx, `document.querySelector('.session-header h1').matches(':dir(rtl)')`), "the session's title")
	assert.True(t, evalBool(t, ctx, `document.querySelector('.session-link[aria-current="page"] .session-title').matches(':dir(rtl)')`), "its title in the list")
	assert.True(t, evalBool(t, ctx, `document.querySelector('.session-header').matches(':dir(ltr)')`), "the page's chrome stays left to right")
	assert.True(t, evalBool(t, ctx, `document.querySelector('#composer-input').matches(':dir(ltr)')`), "the emptied textarea is left to right again")

	typeAt(t, ctx, newRand(), "hello there", typingPaces[0])
	do(t, ctx, 10*time.Second, waitDraft("hello there"))
	assert.True(t, evalBool(t, ctx, `document.querySelector('#composer-input').matches(':dir(ltr)')`))
	do(t, ctx, 10*time.Second, pressEnter(0))
	msgs := waitMessages(t, ctx, 4)
	require.Equal(t, "hello there", msgs[2].Text)
	dirs := evalString(t, ctx, `[...document.querySelectorAll('.thread .msg-user .msg-text')].map(e => e.matches(':dir(rtl)') ? 'rtl' : 'ltr').join(' ')`)
	assert.Equal(t, "rtl ltr", dirs, "each message by its own words")
}
