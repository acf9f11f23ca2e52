package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

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
	ws := dataWorkspace(t, data)
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".parley"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".parley", "mcp.json"),
		[]byte(`{"mcpServers": {"gone": {"command": "/nonexistent/parley-mcp-server"}}}`), 0o644))
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
	assert.Contains(t, text, "示例：")
	assert.NotContains(t, text, "Examples:")
	noParleyEnglish(t, ctx, "/example")
	noEnglish(t, ctx, "/example")

	send("/mcp", thread+`.includes('MCP 服务器（1 个）')`)
	text = evalString(t, ctx, thread)
	assert.Contains(t, text, "gone — 失败")
	assert.NotContains(t, text, "— failed")
	assert.Contains(t, text, `原因：无法启动 "/nonexistent/parley-mcp-server"：`)
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
	assert.True(t, strings.HasPrefix(evalString(t, ctx, `document.querySelector('.mcp-server[data-server="gone"] .mcp-reason').textContent`),
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
