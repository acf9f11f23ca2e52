package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Locales (docs/i18n.md): English and Chinese (Simplified), the browser's by default,
// switched in the page without losing anything typed.

// acceptLanguage makes the browser prefer lang, as its settings would.
func acceptLanguage(lang string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{
			UserAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/130 Safari/537.36", AcceptLanguage: lang})
		return err
	})
}

// TestLocaleFollowsTheBrowser: a browser that prefers Chinese gets the composer in Chinese.
func TestLocaleFollowsTheBrowser(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, acceptLanguage("zh-CN,zh;q=0.9,en;q=0.5"), chromedp.Navigate(srv.link), waitReady())
	do(t, ctx, 10*time.Second, waitJS(`document.querySelector('.composer-hint').textContent === 'Enter 发送 · Shift+Enter 换行'`))
	assert.Equal(t, "zh-Hans", evalString(t, ctx, `document.documentElement.lang`))
	assert.Equal(t, "消息", evalString(t, ctx, `document.querySelector('#composer-input').getAttribute('aria-label')`))
	assert.Equal(t, "1", evalString(t, ctx, `document.querySelector('#locale-pick').value`), "the switch shows it")
}

// TestLocaleSwitchKeepsTheForm switches the locale in the middle of a form: every answer, the
// focused field and its caret stay, and the words change in place.
func TestLocaleSwitchKeepsTheForm(t *testing.T) {
	t.Parallel()
	_, ctx := openSession(t, threeQuestions)
	do(t, ctx, 60*time.Second, waitJS(modeShown), waitJS(`document.activeElement.type === 'radio'`), space(),
		waitJS(`document.querySelector('#composer-mode .chip').textContent === 'Engine ✓'`))
	do(t, ctx, 10*time.Second, js(`[...document.querySelectorAll('#composer-mode [role=tab]')][2].click()`),
		waitJS(`document.activeElement.type === 'text'`), chromedp.KeyEvent("parley"))
	// The caret inside the word, and the element marked: a relabel must not rebuild it.
	evalBool(t, ctx, `(e => { e.setSelectionRange(3, 3); e.__mark = 'kept'; return true })(document.activeElement)`)
	assert.Equal(t, "Chat about this", modeText(t, ctx, `.chat-about`))

	do(t, ctx, 10*time.Second, js(`parley.setLocale('zh-Hans')`), waitJS(`document.querySelector('#composer-mode .chat-about').textContent === '先聊聊'`))
	assert.Equal(t, "kept", evalString(t, ctx, `document.activeElement.__mark || ''`), "the same field has the focus")
	assert.Equal(t, "parley", evalString(t, ctx, `document.activeElement.value`))
	assert.Equal(t, "3", evalString(t, ctx, `String(document.activeElement.selectionStart) + (document.activeElement.selectionEnd === 3 ? '' : '!')`))
	assert.Equal(t, "Engine ✓|Theme|Name ✓", evalString(t, ctx, chipTexts), "every answer kept")
	assert.Equal(t, "发送", modeText(t, ctx, `.send`))
	assert.Equal(t, "拒绝回答", modeText(t, ctx, `.secondary`))
	assert.Equal(t, "zh-Hans", evalString(t, ctx, `document.documentElement.lang`))

	// Typing on, then back to English with the page's own switch.
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("X"))
	assert.Equal(t, "parXley", evalString(t, ctx, `document.querySelector('#composer-mode .field:not(.is-hidden) input').value`))
	do(t, ctx, 10*time.Second, js(`(s => { s.value = '0'; s.dispatchEvent(new Event('change', {bubbles: true})) })(document.querySelector('#locale-pick'))`),
		waitJS(`document.querySelector('#composer-mode .chat-about').textContent === 'Chat about this'`))
	assert.Equal(t, "parXley", evalString(t, ctx, `document.querySelector('#composer-mode .field:not(.is-hidden) input').value`))

	// The choice is kept: a reload comes back in it.
	do(t, ctx, 10*time.Second, js(`parley.setLocale('zh')`), waitJS(`document.documentElement.lang === 'zh-Hans'`))
	do(t, ctx, 30*time.Second, chromedp.Reload(), waitReady(), waitJS(modeShown))
	do(t, ctx, 10*time.Second, waitJS(`document.querySelector('#composer-mode .chat-about').textContent === '先聊聊'`))
}

// TestCJKInTheComposerAndTheThread: Chinese text typed around a chip lays out in the textarea
// exactly where the backdrop draws it, and the message reads the same in the thread.
func TestCJKInTheComposerAndTheThread(t *testing.T) {
	t.Parallel()
	_, ctx, _ := openAmong(t, "alpha notes")
	do(t, ctx, 10*time.Second, typeText("看看 @alp"), menuOpen("@alpha notes"), pick("@alpha notes"), menuClosed)
	do(t, ctx, 10*time.Second, typeText("这个文件，谢谢！"), waitDraft("看看 "+chip+"这个文件，谢谢！"))
	do(t, ctx, 10*time.Second, waitJS(`document.fonts.status === 'loaded'`))
	l := measureLayout(t, ctx, false)
	require.NotEmpty(t, l.Chars)
	assert.Empty(t, disagreements(l), "every character, CJK and chip, where the textarea puts it")
	do(t, ctx, 10*time.Second, pressEnter(0))
	msgs := waitMessages(t, ctx, 4)
	assert.Regexp(t, `^看看 @session:\w+ 这个文件，谢谢！$`, msgs[2].Text, "the chip is a word of its own among the CJK")
}

// TestALinkWithLangOpensInThatLanguage: the printed link with ?lang=zh added opens Parley in
// Chinese in an English browser, the pre-rendered page too, and the next page, reached
// without the parameter, stays Chinese (QA round 10).
func TestALinkWithLangOpensInThatLanguage(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link+"&lang=zh"), waitReady())
	waitShowing(t, ctx, 30*time.Second, `document.querySelector('.hero h1')?.textContent === '要做点什么？'`, `document.documentElement.lang + ' ' + document.querySelector('.hero h1')?.textContent`)
	assert.Equal(t, "zh-Hans", evalString(t, ctx, `document.documentElement.lang`))
	pre := get(t, ctx, chromedp.Evaluate[string](`fetch('/?lang=zh').then(r => r.text())`, chromedp.EvalAwaitPromise))
	assert.Contains(t, pre, `lang="zh-Hans"`, "the pre-rendered page is Chinese")
	assert.Contains(t, pre, "要做点什么？")
	do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.approvals-page')`))
	assert.Equal(t, "审批", evalString(t, ctx, `document.querySelector('.approvals-page h1').textContent`), "the choice holds on the next page")
}
