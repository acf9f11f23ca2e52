package components

import (
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/stretchr/testify/assert"

	"parley/components/viewtest"
)

// TestAStarterDetailIsCutBetweenWords: a starter's detail is drawn as words that hold
// together, so the ellipsis that ends its second line follows a whole word; a word too long
// for a line (a path, a sentence written without spaces) stays text and breaks (docs/qa-round11.md #15).
func TestAStarterDetailIsCutBetweenWords(t *testing.T) {
	long := strings.Repeat("长", maxDetailWord+1)
	html := viewtest.Render(t, &host{ui: func() app.UI {
		return starterButton("/example ask-deploy", "Asks which environment (a single choice) "+long, nil, "k")
	}})
	assert.Contains(t, html, `<span class="detail-word">(a</span>`)
	assert.Contains(t, html, `<span class="detail-word">single</span>`)
	assert.NotContains(t, html, `<span class="detail-word">`+long)
	assert.Contains(t, html, long)
}
