package components

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// paintStream writes a streaming message's text straight into the text node go-app mounted
// for it, and reports whether it could; the caller then skips go-app's render. At 50 tokens
// a second a render per token (the root, the thread, every mounted item compared) slowed the
// composer's keystrokes 2.5 times at p95 (BenchmarkStreamKeystroke); this costs one lookup
// and one string copy. go-app's own record of the node goes stale, which is harmless: its
// next render of the item compares the store's newer text with it and sets the node again.
// The node is the same one go-app holds (nodeValue, never textContent, which would replace
// it), so that next render still lands in the page.
func paintStream(stream, text string) bool {
	if !app.IsClient {
		return false
	}
	el := app.Window().Get("document").Call("querySelector", `.thread-inner > [data-stream="`+stream+`"] > .msg-text`)
	if !el.Truthy() {
		return false
	}
	node := el.Get("firstChild")
	if !node.Truthy() || node.Get("nodeType").Int() != 3 || el.Get("childNodes").Length() != 1 {
		return false // not the one text node this was written for (another renderer's markup)
	}
	node.Set("nodeValue", text)
	return true
}
