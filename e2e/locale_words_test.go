package e2e

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

// The server's fixed words in a Chinese page (docs/i18n.md, "Parley's own messages"): the
// approval gate's question, options and reaches, a grant's reach, the model's notices, a
// slash command's answer and a refused prompt, each in the page's locale, and reworded in
// place by a switch.

const choiceLabels = `[...document.querySelectorAll('#composer-mode .choices .choice-label')].map(e => e.textContent).join('|')`

// openChinese opens the server's page in a browser that prefers Chinese (Simplified).
func openChinese(t *testing.T, srv *server) context.Context {
	t.Helper()
	ctx := browser(t)
	do(t, ctx, 60*time.Second, acceptLanguage("zh-CN,zh;q=0.9,en;q=0.5"), chromedp.Navigate(srv.link), waitReady(),
		waitJS(`document.documentElement.lang === 'zh-Hans'`))
	return ctx
}

// TestChineseApprovalGateWords: the gate's question and its options in Chinese, English after
// a switch and Chinese again; the outcome of an "always" in the thread, and its grant on the
// approvals screen (history and grants), in the page's words.
func TestChineseApprovalGateWords(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := openChinese(t, srv)
	do(t, ctx, 30*time.Second, typeText(`/script write('notes/a.md', 'x'); send('written')`), pressEnter(0),
		waitJS(`location.pathname.startsWith('/s/')`))
	do(t, ctx, 30*time.Second, waitJS(`document.querySelector('#composer-mode .approval-message')?.textContent === '允许写入 notes/a.md 吗？'`))
	assert.Equal(t, "批准|批准，并且以后写入 notes/ 都允许|拒绝", evalString(t, ctx, choiceLabels))

	// A switch rewords the open approval in place, and back.
	do(t, ctx, 10*time.Second, js(`parley.setLocale('en')`),
		waitJS(`document.querySelector('#composer-mode .approval-message').textContent === 'Allow writing notes/a.md?'`))
	assert.Equal(t, "Approve|Approve, and always for writes in notes/|Reject", evalString(t, ctx, choiceLabels))
	do(t, ctx, 10*time.Second, js(`parley.setLocale('zh-Hans')`),
		waitJS(`document.querySelector('#composer-mode .approval-message').textContent === '允许写入 notes/a.md 吗？'`))

	// Approve, and always: the card's outcome says the reach in the page's words.
	do(t, ctx, 10*time.Second, js(`[...document.querySelectorAll('#composer-mode .choices button.choice')][1].click()`))
	const outcome = `[...document.querySelectorAll('.thread .entry-decision .entry-outcome')].map(e => e.textContent).join('|')`
	do(t, ctx, 30*time.Second, waitJS(outcome+` === '已批准，以后写入 notes/ 都允许'`),
		waitJS(`document.querySelector('.thread').innerText.includes('written')`))
	assert.Equal(t, "允许写入 notes/a.md 吗？", evalString(t, ctx, `document.querySelector('.thread .entry-decision .entry-title').textContent`))
	do(t, ctx, 10*time.Second, js(`parley.setLocale('en')`), waitJS(outcome+` === 'Approved, always for writes in notes/'`))
	assert.Equal(t, "Allow writing notes/a.md?", evalString(t, ctx, `document.querySelector('.thread .entry-decision .entry-title').textContent`))
	do(t, ctx, 10*time.Second, js(`parley.setLocale('zh-Hans')`), waitJS(outcome+` === '已批准，以后写入 notes/ 都允许'`))

	// The approvals screen: the history says what was asked and the reach granted; the
	// grants tab names the grant's reach; a switch rewords both.
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.approvals-page')`))
	do(t, ctx, 30*time.Second, clickJS(`.tab-history`), waitJS(`!!document.querySelector('.history-entry .history-grant')`))
	assert.Equal(t, "允许写入 notes/a.md 吗？", evalString(t, ctx, `document.querySelector('.history-entry .entry-title').textContent`))
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.history-entry .history-outcome').textContent`), "以后写入 notes/ 都允许")
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.history-entry .history-grant').textContent`), "在 notes/ 中写入")
	do(t, ctx, 30*time.Second, clickJS(`.tab-grants`), waitJS(`document.querySelector('.grant-words')?.textContent === 'write: 在 notes/ 中写入'`))
	do(t, ctx, 10*time.Second, js(`parley.setLocale('en')`), waitJS(`document.querySelector('.grant-words').textContent === 'write: writes in notes/'`))
}

// TestChineseModelNoticeAndServerWords: with the model's endpoint down, the notice in the
// thread reads Chinese and turns English on a switch; a slash command's argument error and a
// prompt the protocol refuses (a NUL byte) read Chinese too.
func TestChineseModelNoticeAndServerWords(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := "http://" + l.Addr().String() + "/v1"
	require.NoError(t, l.Close()) // nothing listens there: connection refused
	srv := startServerModel(t, t.TempDir(), down)
	ctx := openChinese(t, srv)
	do(t, ctx, 30*time.Second, typeText("你好"), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`))
	const thread = `document.querySelector('.thread').innerText`
	do(t, ctx, 60*time.Second, waitJS(thread+`.includes('无法连接 `+down+` 的模型服务器')`))
	do(t, ctx, 10*time.Second, js(`parley.setLocale('en')`), waitJS(thread+`.includes('The model server at `+down+` cannot be reached')`))
	assert.NotContains(t, evalString(t, ctx, thread), "无法连接")
	do(t, ctx, 10*time.Second, js(`parley.setLocale('zh-Hans')`), waitJS(thread+`.includes('无法连接 `+down+` 的模型服务器')`))

	// A slash command's argument error, in Chinese.
	do(t, ctx, 30*time.Second, waitJS(`!document.querySelector('#composer-input').disabled`), typeText("/example nosuch"), pressEnter(0),
		waitJS(thread+`.includes('没有示例 "nosuch"。')`))

	// A prompt the protocol refuses, in Chinese, the draft kept.
	setDraftJS(t, ctx, "a\x00b")
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(`document.querySelector('.notice-slot').innerText.includes('含有 NUL 字节（U+0000）')`))
}

// TestThePreRenderSpeaksTheBrowsersLanguage: the page the server sends before the wasm runs
// is in the request's Accept-Language: Chinese for zh-CN (its lang, the hero, the bar's
// placeholder), English otherwise.
func TestThePreRenderSpeaksTheBrowsersLanguage(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	page := func(lang string) string {
		// The token link itself, no bearer token: what a browser asks first.
		resp, b := testkit.Client{T: t, Base: srv.link}.Do(http.MethodGet, "", nil, http.Header{"Accept-Language": {lang}})
		assert.Contains(t, resp.Header.Values("Vary"), "Accept-Language")
		return string(b)
	}
	zh := page("zh-CN,zh;q=0.9,en;q=0.8")
	assert.Contains(t, zh, `lang="zh-Hans"`)
	en := page("en-US,en;q=0.9")
	assert.Contains(t, en, `lang="en"`)
	require.Contains(t, zh, `class="hero"`, "the pre-render draws the hero")
	// The hero's words and the bar's placeholder, as the catalogue words them.
	for _, w := range []struct{ zh, en string }{
		{"要做点什么？", "What should we do?"},
		{`placeholder="随便问点什么，开始一个会话"`, `placeholder="Ask anything to start a session"`},
	} {
		assert.Contains(t, zh, w.zh)
		assert.NotContains(t, zh, w.en)
		assert.Contains(t, en, w.en)
		assert.NotContains(t, en, w.zh)
	}
}

// TestASessionNamedByACommandReadsInTheLocale: in Chinese, a session named after the
// command that began it ("Example hello", as the server titles it) reads "示例 hello" in the
// sidebar, the session's header and the tab's title, as its run card does; a title a person
// wrote stays as written (QA round 10).
func TestASessionNamedByACommandReadsInTheLocale(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	mine := seedSession(t, srv, "Example of my own words", 1)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link+"&lang=zh"), waitReady())
	typeAt(t, ctx, newRand(), "/example hello⏎", typingPaces[1])
	do(t, ctx, 60*time.Second, waitJS(`location.pathname.startsWith('/s/')`), waitJS(`!!document.querySelector('.entry-run.status-done')`))
	id := sessionOf(t, ctx)
	title := `document.querySelector('#sidebar .session-item[data-session="` + id + `"] .session-title')?.textContent`
	waitShowing(t, ctx, 30*time.Second, title+` === '示例 hello'`, title)
	assert.Equal(t, "示例 hello", evalString(t, ctx, `document.querySelector('.session-header h1, main h1').textContent`))
	assert.Contains(t, evalString(t, ctx, `document.title`), "示例 hello")
	assert.Equal(t, "Example of my own words", evalString(t, ctx, `document.querySelector('#sidebar .session-item[data-session="`+mine+`"] .session-title')?.textContent`))
}

// TestChineseHistorySaysAConfirmsAnswerInChinese: in Chinese, /approvals' history says a
// confirm answered No as "已回答：否", with the Chinese colon, where it said "已回答: No" (QA round 10).
func TestChineseHistorySaysAConfirmsAnswerInChinese(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	id := newSession(t, srv, "Confirm", "")
	sendTo(t, srv, id, `/script confirm('Deploy now?')`)
	q := waitQueue(t, srv, 1)
	_, err := apiClient(srv).Reply(context.Background(), id, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: json.RawMessage("false")})
	require.NoError(t, err)
	waitQueue(t, srv, 0)
	ctx := browser(t)
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link+"&lang=zh"), waitReady(),
		chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.approvals-page')`),
		clickJS(`.tab-history`), waitJS(`document.querySelectorAll('.history-entry').length === 1`))
	assert.Equal(t, "已回答：否", evalString(t, ctx, `document.querySelector('.history-entry .history-outcome').textContent`))
}
