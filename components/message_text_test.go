package components

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/app/store"
	"parley/components/viewtest"
)

// TestALongPromptIsDrawnFolded (QA round 12 #15): a 100 KB prompt is drawn as its first
// lines and a toggle; the page holds the head only. Open, it is drawn whole; Copy copies it
// whole either way. A short prompt is a text node, as before.
func TestALongPromptIsDrawnFolded(t *testing.T) {
	long := strings.Repeat("a line of a long paste\n", 5000)
	html := viewtest.Render(t, &Thread{Messages: []store.Message{{Offset: 1, Role: store.RoleUser, Text: long}}})
	assert.Less(t, len(html), 3000, "the folded bubble holds its head only")
	assert.Contains(t, html, "Show all")
	assert.Contains(t, html, `aria-expanded="false"`)
	assert.Contains(t, html, "a line of a long paste\na line")

	html = viewtest.Render(t, &MessageItem{Message: store.Message{Offset: 1, Role: store.RoleUser, Text: long}, showAll: true})
	assert.True(t, strings.Contains(html, "Show less"), "the toggle folds it again")
	// (HTMLString writes a true aria-expanded bare; the browser gets the value.)
	assert.False(t, strings.Contains(html, `aria-expanded="false"`), "the toggle says it is open")
	assert.Equal(t, 5000, strings.Count(html, "a line of a long paste"))

	html = viewtest.Render(t, &Thread{Messages: []store.Message{{Offset: 1, Role: store.RoleUser, Text: "short\nprompt"}}})
	assert.NotContains(t, html, "msg-toggle")
}
