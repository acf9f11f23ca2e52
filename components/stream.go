package components

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"parley/app/store"
	md "parley/markdown"
)

// paintStream writes a streaming message's growing chunk straight into the text node go-app
// mounted for its tail (messageText), and reports whether it could; the caller then skips
// go-app's render. At 50 tokens a second a render per token (the root, the thread, every
// mounted item compared) slowed the composer's keystrokes 2.5 times at p95
// (BenchmarkStreamKeystroke); this costs a scan of the last chunks for the cut (from where
// the tail's data-resume says), a lookup and a string copy. It cannot when a chunk finished
// (the cut moved) or a code block opened or closed in the last (its shape changed): go-app
// then draws the finished chunk as Markdown, or the code box. go-app's own record of the
// node goes stale, which is harmless: its next render of the item compares the store's newer
// text with it and sets the node again. The node is the same one go-app holds (nodeValue, never textContent, which would
// replace it), so that next render still lands in the page.
func paintStream(stream, text string) bool {
	if !app.IsClient {
		return false
	}
	el := app.Window().Get("document").Call("querySelector", `.thread-inner > [data-stream="`+stream+`"] > .msg-text .`+tailClass)
	if !el.Truthy() {
		return false
	}
	data := el.Get("dataset")
	resume, _ := strconv.Atoi(data.Get("resume").String())
	cut, _ := md.StreamCutFrom(text, resume)
	if data.Get("cut").String() != strconv.Itoa(cut) {
		return false
	}
	tail := text[cut:]
	shape := md.ShapeTail(tail)
	if data.Get("shape").String() != shape.Key() {
		return false // a fence opened or closed: go-app draws the code box or the finished block
	}
	return writeTail(el, tail[shape.Body:shape.End])
}

// tailClass marks a streaming message's growing chunk.
const tailClass = "msg-tail"

// writeTail writes text into the tail's one text node, and reports whether it had one.
func writeTail(el app.Value, text string) bool {
	node := el.Get("firstChild")
	if !node.Truthy() || node.Get("nodeType").Int() != 3 || el.Get("childNodes").Length() != 1 {
		return false // not the one text node this was written for (another renderer's markup)
	}
	node.Set("nodeValue", text)
	return true
}

// The hidden placeholder the thread keeps after its log (MessageItem.Pending).
const (
	pendingClass  = "msg-pending"
	pendingStream = "pending"
)

// adoptStream writes a message's first streamed text into the hidden placeholder after the
// log, making it that message's entry, and reports whether it could. A new entry mounted by
// go-app waits for its next frame (8 ms after an idle dispatch at 120 fps) and a render of
// the page; this paints with the token. It writes only what differs between the two: the
// class, hidden, data-stream and the text. The caller lets go-app's render follow: it draws
// the store's message over the same node, which it still records as the placeholder, so it
// sets each of those again, and from then on the entry is go-app's as if it had mounted it.
func adoptStream(m store.Message) bool {
	if !app.IsClient {
		return false
	}
	el := app.Window().Get("document").Call("querySelector", `.thread-inner > .`+pendingClass+`[data-stream="`+pendingStream+`"]`)
	if !el.Truthy() {
		return false
	}
	tail := el.Call("querySelector", ".msg-text > ."+tailClass)
	// A first piece of several chunks (a reload mid-stream), or one that opens a code block,
	// is go-app's to draw.
	if !tail.Truthy() || md.StreamCut(m.Text) != 0 || md.ShapeTail(m.Text) != (md.TailShape{End: len(m.Text)}) || !writeTail(tail, m.Text) {
		return false
	}
	el.Set("className", messageClass(m))
	el.Set("hidden", false)
	el.Get("dataset").Set("stream", m.Stream)
	return true
}
