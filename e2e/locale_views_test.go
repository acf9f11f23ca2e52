package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	assert.Empty(t, left, "%s: English words left in %s", state, where)
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
	assert.Equal(t, "Approvals", evalString(t, ctx, `document.querySelector('.approvals-link span').textContent`))
	assert.Equal(t, "Today", evalString(t, ctx, `document.querySelector('.session-group-name').textContent`))

	do(t, ctx, 20*time.Second, js(`parley.setLocale('zh-Hans')`),
		waitJS(`document.documentElement.lang === 'zh-Hans' && document.querySelector('.session-group-name')?.textContent === '今天'`))
	do(t, ctx, 20*time.Second, waitJS(`document.querySelector('.approvals-link span')?.textContent === '审批' && document.querySelector('.entry-waiting .entry-kind')?.textContent === '审批'`))
	assert.Equal(t, "新会话", evalString(t, ctx, `document.querySelector('.new-session').textContent`))
	assert.Equal(t, "脚本", evalString(t, ctx, `document.querySelector('.entry-run .entry-title').textContent`), "a run card's kind is Parley's word")
	assert.Equal(t, "智能体说：", evalString(t, ctx, `[...document.querySelectorAll('.msg-agent .sr-only')][0].textContent`))
	assert.Equal(t, "1 个决定等你处理", evalString(t, ctx, `document.querySelector('.pending-count').title`))
	noEnglish(t, ctx, "the session")
	noViolations(t, ctx, "the session in Chinese")

	// The approvals screen, opened from the sidebar: the choice is kept.
	do(t, ctx, 30*time.Second, clickJS(`.approvals-link`),
		waitJS(`document.documentElement.hasAttribute('data-ready') && document.querySelectorAll('.queue-entry').length === 1`))
	do(t, ctx, 10*time.Second, waitJS(`document.querySelector('.approvals-page h1')?.textContent === '审批' && document.querySelector('.tab-queue').textContent === '队列（1）'`))
	assert.Equal(t, "zh-Hans", evalString(t, ctx, `document.documentElement.lang`))
	assert.Contains(t, evalString(t, ctx, `document.querySelector('.queue-entry .queue-where').textContent`), "提问于")
	noEnglish(t, ctx, "the approvals queue")
	noViolations(t, ctx, "the approvals queue in Chinese")

	do(t, ctx, 10*time.Second, clickJS(`.tab-history`), waitJS(`document.querySelector('.tab-history').getAttribute('aria-selected') === 'true' && !!document.querySelector('.filter-outcome')`))
	noEnglish(t, ctx, "the approvals history")
	do(t, ctx, 10*time.Second, clickJS(`.tab-grants`), waitJS(`!!document.querySelector('.grants-empty')`))
	assert.Equal(t, "没有“始终允许”的授权：每个请求都会询问。", evalString(t, ctx, `document.querySelector('.grants-empty').textContent`))
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
	assert.Equal(t, "What should we do?", evalString(t, ctx, `document.querySelector('.hero h1').textContent`))

	do(t, ctx, 20*time.Second, js(`parley.setLocale('zh-Hans')`),
		waitJS(`document.querySelector('.hero h1')?.textContent === '要做点什么？' && document.querySelector('.starter[data-starter="/help"] .starter-detail')?.textContent === 'Parley 在这里能做什么'`))
	assert.Equal(t, "kept", evalString(t, ctx, `document.activeElement.__mark || ''`), "the same textarea has the focus")
	assert.Equal(t, "draft to keep", evalString(t, ctx, `document.activeElement.value`))
	assert.Equal(t, "5", evalString(t, ctx, `String(document.activeElement.selectionStart) + (document.activeElement.selectionEnd === 5 ? '' : '!')`))
	// The placeholder is there only over an empty draft (docs/composer.md, "The keystroke
	// budget against the floor"): emptied, the box shows the new locale's.
	assert.False(t, evalBool(t, ctx, `document.querySelector('#composer-input').hasAttribute('placeholder')`), "no placeholder over a draft")
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
	assert.Contains(t, evalString(t, ctx, reply), "PARLEY_MODEL_KEY", "the same reply, the flags and names as they are")

	do(t, ctx, 10*time.Second, js(`parley.setLocale('en')`),
		waitJS(reply+`.startsWith('No model is configured, so no agent can work on “你好” yet.')`))
}
