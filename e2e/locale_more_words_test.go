package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// More of the server's fixed words in a Chinese page (docs/i18n.md): /help's answer, a
// form's schema check, and the approvals history's batch answer and abort reason, each in
// the page's locale and reworded in place by a switch.

// TestChineseHelpChecksAndHistory: /help reads Chinese (its commands, headings and the
// line on other text; the workspace's examples are content), and /mcp; a refused prompt's notice is
// reworded by a switch while it shows; 9 in a 1–5 field shows its
// error in Chinese; the form stopped and a batch answered request by request read Chinese on
// the approvals screen; a switch rewords each.
func TestChineseHelpChecksAndHistory(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := openChinese(t, srv)
	const thread = `document.querySelector('.thread').innerText`
	do(t, ctx, 30*time.Second, typeText("/help"), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`),
		waitJS(thread+`.includes('命令：')`))
	help := evalString(t, ctx, thread)
	for _, s := range []string{"/help: 列出命令和示例。", "/script <code>: 在工作区的沙箱中运行 Starlark 代码。", "其他任何文字，包括其他以 / 开头的词，都会发给智能体。"} {
		assert.Contains(t, help, s)
	}
	assert.NotContains(t, help, "Commands:")
	do(t, ctx, 10*time.Second, js(`parley.setLocale('en')`),
		waitJS(thread+`.includes('Commands:') && `+thread+`.includes('/help: List the commands and the examples.')`))
	do(t, ctx, 10*time.Second, js(`parley.setLocale('zh-Hans')`), waitJS(thread+`.includes('命令：') && !`+thread+`.includes('Commands:')`))

	// /mcp, with no server configured.
	do(t, ctx, 30*time.Second, waitJS(`!document.querySelector('#composer-input').disabled`), typeText("/mcp"), pressEnter(0),
		waitJS(thread+`.includes('这个工作区没有配置 MCP 服务器。')`))

	// A refused prompt's notice, already shown, is reworded by a switch.
	do(t, ctx, 30*time.Second, waitJS(`!document.querySelector('#composer-input').disabled`))
	setDraftJS(t, ctx, "a\x00b")
	const notice = `document.querySelector('.notice-slot').innerText`
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(notice+`.includes('含有 NUL 字节（U+0000）')`))
	do(t, ctx, 10*time.Second, js(`parley.setLocale('en')`), waitJS(notice+`.includes('holds a NUL byte (U+0000)') && !`+notice+`.includes('未发送')`))
	do(t, ctx, 10*time.Second, js(`parley.setLocale('zh-Hans')`), waitJS(notice+`.includes('含有 NUL 字节（U+0000）')`))

	// A schema check, in Chinese, and reworded in place.
	setDraftJS(t, ctx, ratedForm)
	do(t, ctx, 60*time.Second, pressEnter(0), waitJS(modeShown), waitJS(`document.activeElement.type === 'number'`))
	const fieldError = `document.querySelector('#composer-mode .field-error')?.textContent`
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("9"), pressEnter(0), waitJS(fieldError+` === '不能大于 5。'`))
	do(t, ctx, 10*time.Second, js(`parley.setLocale('en')`), waitJS(fieldError+` === 'Must be at most 5.'`))
	do(t, ctx, 10*time.Second, js(`parley.setLocale('zh-Hans')`), waitJS(fieldError+` === '不能大于 5。'`))

	// Stopped: the form ends aborted, its turn stopped.
	session := evalString(t, ctx, `location.pathname.slice(3)`)
	cl := apiClient(srv)
	_, err := cl.Stop(context.Background(), session, 0)
	require.NoError(t, err)
	do(t, ctx, 30*time.Second, waitJS(`!document.querySelector('#composer-mode') && !document.querySelector('#composer-input').disabled`))

	// A batch answered request by request: one approved of two.
	setDraftJS(t, ctx, `/script run_batch([['echo', 'one'], ['echo', 'two']])`)
	do(t, ctx, 30*time.Second, pressEnter(0), waitJS(modeShown))
	batch := onlyDecision(t, srv, session)
	items, _ := json.Marshal(protocol.ApprovalAnswer{Items: []string{protocol.OptionAllow, protocol.OptionDeny}})
	_, err = cl.Reply(context.Background(), session, batch.ID, protocol.ReplyRequest{Action: protocol.ActionAccept, Content: items})
	require.NoError(t, err)
	do(t, ctx, 30*time.Second, waitJS(`!document.querySelector('#composer-mode')`))

	// The approvals screen's history, in Chinese, then English.
	const outcomes = `[...document.querySelectorAll('.history-entry .history-outcome')].map(e => e.textContent).join('|')`
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.approvals-page')`))
	do(t, ctx, 30*time.Second, clickJS(`.tab-history`), waitJS(`document.querySelectorAll('.history-entry').length === 2`))
	do(t, ctx, 10*time.Second, waitJS(outcomes+`.includes('批准了 2 个中的 1 个') && `+outcomes+`.includes('它所在的这一轮被停止了')`))
	zh := evalString(t, ctx, outcomes)
	assert.False(t, strings.Contains(zh, "Approved") || strings.Contains(zh, "its turn"), zh)
	do(t, ctx, 10*time.Second, js(`parley.setLocale('en')`),
		waitJS(outcomes+`.includes('Approved 1 of 2') && `+outcomes+`.includes('its turn was stopped')`))
}

// TestTheLoadingLabelInChinese: while the wasm loads, a Chinese browser reads the loading
// label in Chinese, from the pre-rendered page and from app.js, which picked it by the page's
// lang; then the app takes over.
func TestTheLoadingLabelInChinese(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	ctx := browser(t)
	do(t, ctx, 10*time.Second, acceptLanguage("zh-CN,zh;q=0.9,en;q=0.5"))
	release := holdWasm(t, ctx)
	defer release()
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.link),
		waitJS(`typeof goappLoadingLabel === 'string' && !!document.getElementById('app-wasm-loader-label')`))
	assert.Equal(t, "正在加载 Parley {progress}%", evalString(t, ctx, `goappLoadingLabel`))
	assert.Equal(t, "zh-Hans", evalString(t, ctx, `document.documentElement.lang`))
	do(t, ctx, 10*time.Second, waitJS(`document.getElementById('app-wasm-loader-label').innerText === '正在加载 Parley 0%'`))
	release()
	do(t, ctx, 60*time.Second, waitReady(), waitJS(`!document.getElementById('app-wasm-loader-label')`))
}
