package components

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/components/internal/domtest"
	"parley/protocol"
)

func TestSessionRefs(t *testing.T) {
	for _, c := range []struct {
		text string
		want []refPart
	}{
		{"plain", []refPart{{text: "plain"}}},
		{"see @session:abc123, then go", []refPart{{text: "see "}, {session: "abc123"}, {text: ", then go"}}},
		{"@session:a @session:b", []refPart{{session: "a"}, {text: " "}, {session: "b"}}},
		{"no id @session: here", []refPart{{text: "no id @session:"}, {text: " here"}}},
		{"", nil},
	} {
		assert.Equal(t, c.want, sessionRefs(c.text), c.text)
	}
}

// TestAPromptNamesASessionByItsTitle: the bubble shows a session reference as the chip did,
// by title, linked to it (QA round 26: it showed "@session:aauwqxyud0afeb8l").
func TestAPromptNamesASessionByItsTitle(t *testing.T) {
	was := knownSessions
	t.Cleanup(func() { knownSessions = was })
	knownSessions = []protocol.SessionInfo{{ID: "aauwqxyud0afeb8l", Title: "writeit please"}}
	page := domtest.Render(t, promptText("compare with @session:aauwqxyud0afeb8l <b>now</b>"))
	link := page.One(t, "a.msg-ref")
	assert.Equal(t, "@writeit please", link.TextContent())
	assert.Equal(t, "/s/aauwqxyud0afeb8l", link.Attrs["href"])
	assert.Contains(t, page.One(t, ".msg-text").TextContent(), "<b>now</b>", "the rest is text")
}
