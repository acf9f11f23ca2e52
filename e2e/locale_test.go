package e2e

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

// Locales (docs/i18n.md): English and Chinese (Simplified), the browser's by default,
// switched in the page without losing anything typed; the page's views, and the server's
// fixed words, in Chinese with no English left over.

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
	require.Equal(t, "zh-Hans", evalString(t, ctx, `document.documentElement.lang`))
	require.Equal(t, "消息", evalString(t, ctx, `document.querySelector('#composer-input').getAttribute('aria-label')`))
	require.Equal(t, "1", evalString(t, ctx, `document.querySelector('#locale-pick').value`), "the switch shows it")
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
	require.Equal(t, "Chat about this", modeText(t, ctx, `.chat-about`))

	do(t, ctx, 10*time.Second, js(`parley.setLocale('zh-Hans')`), waitJS(`document.querySelector('#composer-mode .chat-about').textContent === '先聊聊'`))
	require.Equal(t, "kept", evalString(t, ctx, `document.activeElement.__mark || ''`), "the same field has the focus")
	require.Equal(t, "parley", evalString(t, ctx, `document.activeElement.value`))
	require.Equal(t, "3", evalString(t, ctx, `String(document.activeElement.selectionStart) + (document.activeElement.selectionEnd === 3 ? '' : '!')`))
	require.Equal(t, "Engine ✓|Theme|Name ✓", evalString(t, ctx, chipTexts), "every answer kept")
	require.Equal(t, "发送", modeText(t, ctx, `.send > span`))
	require.Equal(t, "拒绝回答", modeText(t, ctx, `.secondary`))
	require.Equal(t, "zh-Hans", evalString(t, ctx, `document.documentElement.lang`))

	// Typing on, then back to English with the page's own switch.
	do(t, ctx, 10*time.Second, chromedp.KeyEvent("X"))
	require.Equal(t, "parXley", evalString(t, ctx, `document.querySelector('#composer-mode .field:not(.is-hidden) input').value`))
	do(t, ctx, 10*time.Second, js(`(s => { s.value = '0'; s.dispatchEvent(new Event('change', {bubbles: true})) })(document.querySelector('#locale-pick'))`),
		waitJS(`document.querySelector('#composer-mode .chat-about').textContent === 'Chat about this'`))
	require.Equal(t, "parXley", evalString(t, ctx, `document.querySelector('#composer-mode .field:not(.is-hidden) input').value`))

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
	require.Empty(t, disagreements(l), "every character, CJK and chip, where the textarea puts it")
	do(t, ctx, 10*time.Second, pressEnter(0))
	msgs := waitMessages(t, ctx, 4)
	// The bubble names the session by its title, linked, as the chip did (QA round 26).
	require.Equal(t, "看看 @alpha notes 这个文件，谢谢！", msgs[2].Text, "the chip is a word of its own among the CJK")
	require.Regexp(t, `^/s/\w+$`, evalString(t, ctx, `document.querySelectorAll('.thread .msg-user')[1].querySelector('a.msg-ref').getAttribute('href')`))
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
	require.Equal(t, "zh-Hans", evalString(t, ctx, `document.documentElement.lang`))
	pre := get(t, ctx, chromedp.Evaluate[string](`fetch('/?lang=zh').then(r => r.text())`, chromedp.EvalAwaitPromise))
	require.Contains(t, pre, `lang="zh-Hans"`, "the pre-rendered page is Chinese")
	require.Contains(t, pre, "要做点什么？")
	do(t, ctx, 30*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.approvals-page')`))
	require.Equal(t, "审批", evalString(t, ctx, `document.querySelector('.approvals-page h1').textContent`), "the choice holds on the next page")
}

// englishOnPage lists the Latin-letter words the page shows a person or a screen reader
// (text, aria-label, title, placeholder) outside what people, agents, scripts and the server
// wrote: messages, titles, details, option labels, the session's name, the draft, and the
// starters the workspace's own examples and functions describe. Product names,
// keys and commands are allowed.
const englishOnPage = `(() => {
	const content = '.msg-text, .msg-from + .msg-text, .entry-title, .entry-output, .session-title, .queue-thread, ' +
		'.thread-status span:not(.status-who), .choice-label, .choice-desc, .opt-label, .opt-desc, .session-header h1, ' +
		'.queue-workspace, .workspace-name, .workspace-path, .grant-words, .cmd-line, .cmd-code, .mode-details, ' +
		'.approval-details, .question-message, .choice-description, .ib-backdrop, .starter:not([data-starter="/help"]), pre, code, .model-button, select option:not([value=""]), ' +
		'script, style, noscript';
	const allowed = new Set(['Parley', 'MCP', 'Enter', 'Esc', 'Alt', 'Ctrl', 'Shift', 'Tab', 'English', 'token',
		'model', 'url', 'window', 'help', 'Alpha', 'OpenAI', 'Ollama']);
	const inContent = el => !!(el && el.closest && el.closest(content));
	// What people and programs wrote may also show inside a label ("Approval: <its message>").
	const written = new Set();
	for (const el of document.body.querySelectorAll(content)) {
		for (const w of el.textContent.match(/[A-Za-z]{2,}/g) || []) written.add(w);
	}
	const left = [];
	const add = (text, where, inLabel) => {
		for (const w of (text || '').replace(/\/[a-z]+/g, ' ').match(/[A-Za-z]{2,}/g) || []) {
			if (!allowed.has(w) && !(inLabel && written.has(w))) left.push(w + ' @ ' + where);
		}
	};
	const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = walker.nextNode(); n; n = walker.nextNode()) {
		const el = n.parentElement;
		if (inContent(el) || el.closest('[hidden], [lang="en"]')) continue;
		add(n.textContent, el.className || el.tagName, false);
	}
	for (const el of document.body.querySelectorAll('[aria-label], [title], [placeholder]')) {
		if (inContent(el) || el.closest('[hidden], [lang="en"]')) continue;
		for (const a of ['aria-label', 'title', 'placeholder']) {
			if (el.hasAttribute(a)) add(el.getAttribute(a), a + ' of ' + (el.className || el.tagName), true);
		}
	}
	return JSON.stringify(left);
})()`

func noEnglish(t *testing.T, ctx context.Context, state string) {
	t.Helper()
	noEnglishBy(t, ctx, englishOnPage, "the Chinese page", state)
}

// noEnglishBy runs probe, a script that lists the English words it finds as JSON, and fails
// if it found any: "<state>: English words left in <where>".
func noEnglishBy(t *testing.T, ctx context.Context, probe, where, state string) {
	t.Helper()
	var left []string
	require.NoError(t, json.Unmarshal([]byte(evalString(t, ctx, probe)), &left))
	require.Empty(t, left, "%s: English words left in %s", state, where)
}

// TestChineseSessionSidebarAndApprovals switches a page to Chinese on a session with a thread,
// a sidebar and a decision waiting, then opens the approvals screen: every word a person reads
// is Chinese but for names and what people and programs wrote, <html lang> follows, and axe
// finds nothing.
func TestChineseSessionSidebarAndApprovals(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	a := alphaAsks(t, srv)

	ctx := openPage(t, srv, "/s/"+a)
	do(t, ctx, 60*time.Second, waitJS(`!!document.querySelector('#composer-mode') && !!document.querySelector('.entry-waiting') && document.querySelector('.pending-count')?.textContent === '1' && !!document.querySelector('.session-group-name')`))
	require.Equal(t, "Approvals", evalString(t, ctx, `document.querySelector('.approvals-link span').textContent`))
	require.Equal(t, "Today", evalString(t, ctx, `document.querySelector('.session-group-name').textContent`))

	do(t, ctx, 20*time.Second, js(`parley.setLocale('zh-Hans')`),
		waitJS(`document.documentElement.lang === 'zh-Hans' && document.querySelector('.session-group-name')?.textContent === '今天'`))
	do(t, ctx, 20*time.Second, waitJS(`document.querySelector('.approvals-link span')?.textContent === '审批' && document.querySelector('.entry-waiting .entry-kind')?.textContent === '审批'`))
	require.Equal(t, "新会话", evalString(t, ctx, `document.querySelector('.new-session').textContent`))
	require.Equal(t, "脚本", evalString(t, ctx, `document.querySelector('.entry-run .entry-title').textContent`), "a run card's kind is Parley's word")
	require.Equal(t, "智能体说：", evalString(t, ctx, `[...document.querySelectorAll('.msg-agent .sr-only')][0].textContent`))
	require.Equal(t, "1 个决定等你处理", evalString(t, ctx, `document.querySelector('.pending-count').title`))
	noEnglish(t, ctx, "the session")
	noViolations(t, ctx, "the session in Chinese")

	// The approvals screen, opened from the sidebar: the choice is kept.
	do(t, ctx, 30*time.Second, clickJS(`.approvals-link`),
		waitJS(`document.documentElement.hasAttribute('data-ready') && document.querySelectorAll('.queue-entry').length === 1`))
	do(t, ctx, 10*time.Second, waitJS(`document.querySelector('.approvals-page h1')?.textContent === '审批' && document.querySelector('.tab-queue').textContent === '队列（1）'`))
	require.Equal(t, "zh-Hans", evalString(t, ctx, `document.documentElement.lang`))
	require.Contains(t, evalString(t, ctx, `document.querySelector('.queue-entry .queue-where').textContent`), "提问于")
	noEnglish(t, ctx, "the approvals queue")
	noViolations(t, ctx, "the approvals queue in Chinese")

	do(t, ctx, 10*time.Second, clickJS(`.tab-history`), waitJS(`document.querySelector('.tab-history').getAttribute('aria-selected') === 'true' && !!document.querySelector('.filter-outcome')`))
	noEnglish(t, ctx, "the approvals history")
	do(t, ctx, 10*time.Second, clickJS(`.tab-grants`), waitJS(`!!document.querySelector('.grants-empty')`))
	require.Equal(t, "没有“始终允许”的授权：每个请求都会询问。", evalString(t, ctx, `document.querySelector('.grants-empty').textContent`))
	noEnglish(t, ctx, "the approvals grants")

	// Back to English with the screen's own switch.
	do(t, ctx, 10*time.Second, js(`(s => { s.value = '0'; s.dispatchEvent(new Event('change', {bubbles: true})) })(document.querySelector('#locale-pick'))`),
		waitJS(`document.documentElement.lang === 'en' && document.querySelector('.approvals-page h1')?.textContent === 'Approvals'`))
}

// TestLocaleSwitchKeepsTheDraft: on the empty page, a switch relabels the hero and its
// starters around a half-typed draft, which keeps its text, focus and caret; emptied, the
// bar shows the new locale's placeholder.
func TestLocaleSwitchKeepsTheDraft(t *testing.T) {
	t.Parallel()
	_, ctx := openHome(t)
	do(t, ctx, 20*time.Second, typeText("draft to keep"), waitJS(`document.querySelector('#composer-input').value === 'draft to keep'`))
	evalBool(t, ctx, `(e => { e.focus(); e.setSelectionRange(5, 5); e.__mark = 'kept'; return true })(document.querySelector('#composer-input'))`)
	require.Equal(t, "What should we do?", evalString(t, ctx, `document.querySelector('.hero h1').textContent`))

	do(t, ctx, 20*time.Second, js(`parley.setLocale('zh-Hans')`),
		waitJS(`document.querySelector('.hero h1')?.textContent === '要做点什么？' && document.querySelector('.starter[data-starter="/help"] .starter-detail')?.textContent === 'Parley 在这里能做什么'`))
	require.Equal(t, "kept", evalString(t, ctx, `document.activeElement.__mark || ''`), "the same textarea has the focus")
	require.Equal(t, "draft to keep", evalString(t, ctx, `document.activeElement.value`))
	require.Equal(t, "5", evalString(t, ctx, `String(document.activeElement.selectionStart) + (document.activeElement.selectionEnd === 5 ? '' : '!')`))
	// The placeholder is there only over an empty draft (docs/composer.md, "The keystroke
	// budget against the floor"): emptied, the box shows the new locale's.
	require.False(t, evalBool(t, ctx, `document.querySelector('#composer-input').hasAttribute('placeholder')`), "no placeholder over a draft")
	selectRange(t, ctx, 0, len("draft to keep"))
	do(t, ctx, 10*time.Second, backspace, waitDraft(""), waitJS(`document.querySelector('#composer-input').placeholder === '随便问点什么，开始一个会话'`))
	noEnglish(t, ctx, "the empty page")
	noViolations(t, ctx, "the empty page in Chinese")
}

// TestTheOfflineAgentSpeaksThePagesLocale: the offline agent's reply is Parley's fixed words,
// stored once in the log for every page; each page shows it in its own locale, and a switch
// rewords it in place.
func TestTheOfflineAgentSpeaksThePagesLocale(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	a := answeredSession(t, srv, "Alpha", "你好")

	ctx := browser(t)
	do(t, ctx, 60*time.Second, acceptLanguage("zh-CN,zh;q=0.9"), chromedp.Navigate(srv.link), waitReady(),
		chromedp.Navigate(srv.base()+"/s/"+a), waitReady(), waitJS(`!!document.querySelector('.thread .msg-agent .msg-text')`))
	const reply = `document.querySelector('.thread .msg-agent .msg-text').textContent`
	do(t, ctx, 10*time.Second, waitJS(reply+`.startsWith('尚未配置模型，所以还没有智能体能处理“你好”')`))
	require.Contains(t, evalString(t, ctx, reply), "PARLEY_MODEL_KEY", "the same reply, the flags and names as they are")

	do(t, ctx, 10*time.Second, js(`parley.setLocale('en')`),
		waitJS(reply+`.startsWith('No model is configured, so no agent can work on “你好” yet.')`))
}

// parleyEnglish lists the Latin-letter words of Parley's own messages in the thread (its
// notices and its answers to commands, .msg-notice), which englishOnPage leaves to content:
// the lines that list the workspace's examples, functions and tools ("• …", "  – …") and
// what is quoted are content; the rest is Parley's words and must read in the page's locale.
const parleyEnglish = `(() => {
	const allowed = new Set(['Parley', 'MCP', 'JSON', 'Starlark', 'Enter', 'Esc', 'stdio', 'stderr', 'http', 'https', 'url',
		'command', 'args', 'mcpServers', 'name', 'parley', 'json', 'mcp', 'config', 'reconnect']);
	const left = [];
	for (const el of document.querySelectorAll('.thread .msg-notice .msg-text')) {
		let listed = false; // a list's item and the lines that go on with it, up to a blank line
		for (let line of el.innerText.split('\n')) {
			listed = /^\s*[•–]/.test(line) || listed && line.trim() !== '';
			if (listed) continue;
			line = line.replace(/“[^”]*”|"[^"]*"|\S*[\/.]\S*/g, ' ');
			for (const w of line.match(/[A-Za-z]{2,}/g) || []) if (!allowed.has(w)) left.push(w + ' @ ' + line.trim());
		}
	}
	return JSON.stringify(left);
})()`

// noEnglishBut is noEnglish with more of the page taken as content (sel).
func noEnglishBut(t *testing.T, ctx context.Context, state, sel string) {
	t.Helper()
	js := strings.Replace(englishOnPage, "'script, style, noscript'", "'script, style, noscript, "+sel+"'", 1)
	js = strings.Replace(js, "'Alpha'", "'Alpha', 'KiB'", 1) // a unit
	noEnglishBy(t, ctx, js, "the Chinese page", state)
}

func noParleyEnglish(t *testing.T, ctx context.Context, state string) {
	t.Helper()
	noEnglishBy(t, ctx, parleyEnglish, "Parley's messages of the Chinese page", state)
}

// TestZhWalkHasNoEnglish walks a Chinese page through the states a person meets and reads
// every word Parley shows in each: the hero, /help, /example without a slug and with an
// unknown one, /mcp with a server that cannot start, a script that fails, a prompt too long,
// and the MCP screen. Names, commands and what people and programs wrote are allowed
// (englishOnPage); Parley's own messages are read too (parleyEnglish).
func TestZhWalkHasNoEnglish(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	testkit.WriteTree(t, dataWorkspace(t, data), map[string]string{
		".parley/mcp.json": `{"mcpServers": {"gone": {"command": "/nonexistent/parley-mcp-server"}}}`})
	srv := startServer(t, data, "127.0.0.1:0")
	ctx := openChinese(t, srv)
	noEnglish(t, ctx, "the hero")

	const thread = `document.querySelector('.thread').innerText`
	ready := waitJS(`!document.querySelector('#composer-input').disabled`)
	do(t, ctx, 60*time.Second, typeText("/help"), pressEnter(0), waitJS(`location.pathname.startsWith('/s/')`),
		waitJS(thread+`.includes('命令：')`))
	session := evalString(t, ctx, `location.pathname.slice(3)`)
	// The commands are sent as a script would, past the / menu, and read in the page.
	send := func(text, until string) {
		t.Helper()
		sendTo(t, srv, session, text)
		do(t, ctx, 60*time.Second, waitJS(until))
	}
	noParleyEnglish(t, ctx, "/help")

	send("/example", thread+`.includes('用法：/example')`)
	send("/example nosuch", thread+`.includes('没有示例 "nosuch"。')`)
	text := evalString(t, ctx, thread)
	require.Contains(t, text, "示例：")
	require.NotContains(t, text, "Examples:")
	noParleyEnglish(t, ctx, "/example")
	noEnglish(t, ctx, "/example")

	send("/mcp", thread+`.includes('MCP 服务器（1 个）')`)
	text = evalString(t, ctx, thread)
	require.Contains(t, text, "gone — 失败")
	require.NotContains(t, text, "— failed")
	require.Contains(t, text, `原因：无法启动 "/nonexistent/parley-mcp-server"：`)
	noParleyEnglish(t, ctx, "/mcp")

	send("/script fail('boom')", `!!document.querySelector('.thread .entry-run .entry-status')?.textContent.includes('失败')`)
	noEnglishBut(t, ctx, "a script that failed", ".entry-result") // the script's own error

	do(t, ctx, 60*time.Second, ready)
	setDraftJS(t, ctx, strings.Repeat("长", protocol.MaxPromptBytes/3+1))
	do(t, ctx, 10*time.Second, pressEnter(0), waitJS(`document.querySelector('.notice-slot').innerText.includes('上限是 128 KiB')`))
	noEnglishBut(t, ctx, "a prompt too long", ".entry-result")

	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/mcp"),
		waitJS(`document.querySelector('.mcp-server[data-server="gone"] .mcp-status')?.textContent === '失败'`))
	// Why it failed is Parley's words around the system's error (content).
	require.True(t, strings.HasPrefix(evalString(t, ctx, `document.querySelector('.mcp-server[data-server="gone"] .mcp-reason').textContent`),
		`无法启动 "/nonexistent/parley-mcp-server"：`))
	noEnglishBut(t, ctx, "the MCP screen", ".mcp-name, .mcp-target, .mcp-source, .mcp-tools code, .mcp-reason")

	// The server goes away: the reconnecting strip, then the offline one.
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/s/"+session), waitReady(), waitJS(`!!document.querySelector('.link-live')`))
	srv.kill()
	do(t, ctx, 60*time.Second, waitJS(`!!document.querySelector('.link-reconnecting')`))
	noEnglishBut(t, ctx, "reconnecting", ".entry-result")
	do(t, ctx, 90*time.Second, waitJS(`!!document.querySelector('.link-reconnecting.offline')`))
	noEnglishBut(t, ctx, "offline", ".entry-result")
}

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
	require.Equal(t, "批准|批准，并且以后写入 notes/ 都允许|拒绝", evalString(t, ctx, choiceLabels))

	// A switch rewords the open approval in place, and back.
	do(t, ctx, 10*time.Second, js(`parley.setLocale('en')`),
		waitJS(`document.querySelector('#composer-mode .approval-message').textContent === 'Allow writing notes/a.md?'`))
	require.Equal(t, "Approve|Approve, and always for writes in notes/|Reject", evalString(t, ctx, choiceLabels))
	do(t, ctx, 10*time.Second, js(`parley.setLocale('zh-Hans')`),
		waitJS(`document.querySelector('#composer-mode .approval-message').textContent === '允许写入 notes/a.md 吗？'`))

	// Approve, and always: the card's outcome says the reach in the page's words.
	do(t, ctx, 10*time.Second, js(`[...document.querySelectorAll('#composer-mode .choices button.choice')][1].click()`))
	const outcome = `[...document.querySelectorAll('.thread .entry-decision .entry-outcome')].map(e => e.textContent).join('|')`
	do(t, ctx, 30*time.Second, waitJS(outcome+` === '已批准，以后写入 notes/ 都允许'`),
		waitJS(`document.querySelector('.thread').innerText.includes('written')`))
	require.Equal(t, "允许写入 notes/a.md 吗？", evalString(t, ctx, `document.querySelector('.thread .entry-decision .entry-title').textContent`))
	do(t, ctx, 10*time.Second, js(`parley.setLocale('en')`), waitJS(outcome+` === 'Approved, always for writes in notes/'`))
	require.Equal(t, "Allow writing notes/a.md?", evalString(t, ctx, `document.querySelector('.thread .entry-decision .entry-title').textContent`))
	do(t, ctx, 10*time.Second, js(`parley.setLocale('zh-Hans')`), waitJS(outcome+` === '已批准，以后写入 notes/ 都允许'`))

	// The approvals screen: the history says what was asked and the reach granted; the
	// grants tab names the grant's reach; a switch rewords both.
	do(t, ctx, 60*time.Second, chromedp.Navigate(srv.base()+"/approvals"),
		waitJS(`document.documentElement.hasAttribute('data-ready') && !!document.querySelector('.approvals-page')`))
	do(t, ctx, 30*time.Second, clickJS(`.tab-history`), waitJS(`!!document.querySelector('.history-entry .history-grant')`))
	require.Equal(t, "允许写入 notes/a.md 吗？", evalString(t, ctx, `document.querySelector('.history-entry .entry-title').textContent`))
	require.Contains(t, evalString(t, ctx, `document.querySelector('.history-entry .history-outcome').textContent`), "以后写入 notes/ 都允许")
	require.Contains(t, evalString(t, ctx, `document.querySelector('.history-entry .history-grant').textContent`), "在 notes/ 中写入")
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
	require.NotContains(t, evalString(t, ctx, thread), "无法连接")
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
		require.Contains(t, resp.Header.Values("Vary"), "Accept-Language")
		return string(b)
	}
	zh := page("zh-CN,zh;q=0.9,en;q=0.8")
	require.Contains(t, zh, `lang="zh-Hans"`)
	en := page("en-US,en;q=0.9")
	require.Contains(t, en, `lang="en"`)
	require.Contains(t, zh, `class="hero"`, "the pre-render draws the hero")
	// The hero's words and the bar's placeholder, as the catalogue words them.
	for _, w := range []struct{ zh, en string }{
		{"要做点什么？", "What should we do?"},
		{`placeholder="随便问点什么，开始一个会话"`, `placeholder="Ask anything to start a session"`},
	} {
		require.Contains(t, zh, w.zh)
		require.NotContains(t, zh, w.en)
		require.Contains(t, en, w.en)
		require.NotContains(t, en, w.zh)
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
	require.Equal(t, "示例 hello", evalString(t, ctx, `document.querySelector('.session-header h1, main h1').textContent`))
	require.Contains(t, evalString(t, ctx, `document.title`), "示例 hello")
	require.Equal(t, "Example of my own words", evalString(t, ctx, `document.querySelector('#sidebar .session-item[data-session="`+mine+`"] .session-title')?.textContent`))
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
	require.Equal(t, "已回答：否", evalString(t, ctx, `document.querySelector('.history-entry .history-outcome').textContent`))
}

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
		require.Contains(t, help, s)
	}
	require.NotContains(t, help, "Commands:")
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
	require.False(t, strings.Contains(zh, "Approved") || strings.Contains(zh, "its turn"), zh)
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
	require.Equal(t, "正在加载 Parley {progress}%", evalString(t, ctx, `goappLoadingLabel`))
	require.Equal(t, "zh-Hans", evalString(t, ctx, `document.documentElement.lang`))
	do(t, ctx, 10*time.Second, waitJS(`document.getElementById('app-wasm-loader-label').innerText === '正在加载 Parley 0%'`))
	release()
	do(t, ctx, 60*time.Second, waitReady(), waitJS(`!document.getElementById('app-wasm-loader-label')`))
}
