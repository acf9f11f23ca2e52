package controls

import (
	"testing"

	"parley/components/viewtest"

	"github.com/stretchr/testify/assert"

	"parley/app/store"
	"parley/protocol"
)

func TestRingLabel(t *testing.T) {
	assert.Equal(t, "12,340 of 32,768 tokens (38%)", RingLabel(12340, 32768))
	assert.Equal(t, "0 of 8,192 tokens (0%)", RingLabel(0, 8192))
	assert.Equal(t, "1,000 tokens used", RingLabel(1000, 0))
	assert.Equal(t, "1,234,567", Thousands(1234567))
	assert.Equal(t, "999", Thousands(999))
}

// TestRingShare: the share the ring writes beside its arc (QA round 12 #19).
func TestRingShare(t *testing.T) {
	for _, tt := range []struct {
		used, window int
		want         string
	}{
		{0, 8192, "0%"},
		{10, 32768, "<1%"},
		{1000, 32768, "3%"},
		{16384, 32768, "50%"},
		{32768, 32768, "100%"},
		{1000, 0, ""},
	} {
		assert.Equal(t, tt.want, RingShare(tt.used, tt.window), "%d of %d", tt.used, tt.window)
	}
}

func TestModelPicker(t *testing.T) {
	list := protocol.ModelList{Configured: true, Default: "small", Window: 32768,
		Models: []protocol.ModelInfo{{ID: "small"}, {ID: "large", Window: 131072}}}

	t.Run("offline", func(t *testing.T) {
		html := viewtest.Render(t, &Model{Session: "s", list: protocol.ModelList{}, loaded: true})
		assert.Contains(t, html, ">offline<")
		assert.NotContains(t, html, "listbox")
	})
	t.Run("the default, closed, with the ring counting against the flag's window", func(t *testing.T) {
		html := viewtest.Render(t, &Model{Session: "s", Controls: store.Controls{Used: 12340}, list: list, loaded: true})
		assert.Contains(t, html, `aria-haspopup="listbox"`)
		assert.Contains(t, html, `aria-expanded="false"`)
		assert.Contains(t, html, "small ▾")
		assert.NotContains(t, html, `role="listbox"`)
		assert.Contains(t, html, `aria-label="12,340 of 32,768 tokens (38%)"`)
		assert.Contains(t, html, `<span class="ring-share">38%</span>`)
		assert.Contains(t, html, "-model-window")
	})
	t.Run("open, on the session's pick, whose window the list says", func(t *testing.T) {
		html := viewtest.Render(t, &Model{Session: "s", Controls: store.Controls{Model: "large", Used: 1000}, list: list, loaded: true, open: true, active: 1})
		assert.Contains(t, html, `role="listbox"`)
		assert.Contains(t, html, `aria-activedescendant="model-option-1"`)
		// (HTMLString writes aria-selected="true" bare; the browser gets the value.)
		assert.Contains(t, html, `class="model-option active"`)
		assert.Regexp(t, `<li [^>]*class="model-option active"[^>]*>large</li>`, html)
		assert.Regexp(t, `<li [^>]*aria-selected="false"[^>]*>small</li>`, html)
		assert.Contains(t, html, `aria-label="1,000 of 131,072 tokens (1%)"`)
		assert.Contains(t, html, "the endpoint's model list")
	})
	t.Run("a pick sent in another session does not show here", func(t *testing.T) {
		html := viewtest.Render(t, &Model{Session: "b", list: list, loaded: true, picked: "large", pickedIn: "a"})
		assert.Contains(t, html, "small ▾")
	})
	t.Run("a list that failed keeps the default and says why", func(t *testing.T) {
		html := viewtest.Render(t, &Model{Session: "s", list: protocol.ModelList{Configured: true, Default: "small", Error: "cannot be reached"}, loaded: true})
		assert.Contains(t, html, "small ▾")
		assert.Contains(t, html, "the list could not be read: cannot be reached")
	})
}

func TestPermissionsSelector(t *testing.T) {
	html := viewtest.Render(t, &Permissions{Session: "s", Mode: protocol.PermissionEdits})
	assert.Contains(t, html, `aria-label="Permission mode"`)
	for _, m := range protocol.PermissionModes {
		assert.Contains(t, html, m.Label())
	}
	// HTMLString writes a true boolean attribute bare, in any order.
	assert.Regexp(t, `<option ([^>]* )?selected( [^>]*)?>Allow edits</option>`, html)
	assert.Regexp(t, `<option [^>]*selected="false"[^>]*>Allow reads</option>`, html)
}

// TestKeysOnThePermissionSelect: the arrows walk the modes in place; a character is the
// person writing, not a type-ahead pick of a mode; the rest is the select's own (QA round 13
// #3).
func TestKeysOnThePermissionSelect(t *testing.T) {
	for _, tt := range []struct {
		key   string
		chord bool
		want  selectKey
	}{
		{"ArrowDown", false, selectStep},
		{"ArrowUp", false, selectStep},
		{"ArrowRight", false, selectStep},
		{"Home", false, selectStep},
		{"PageDown", false, selectStep},
		{"a", false, selectType},
		{"A", false, selectType},
		{"é", false, selectType},
		{"中", false, selectType},
		{" ", false, selectOwn}, // opens the list
		{"Enter", false, selectOwn},
		{"Tab", false, selectOwn},
		{"Escape", false, selectOwn},
		{"ArrowDown", true, selectOwn}, // Alt+↓ opens the list
		{"a", true, selectOwn},         // a chord is someone else's
	} {
		assert.Equal(t, tt.want, keyOnSelect(tt.key, tt.chord), "%q chord=%v", tt.key, tt.chord)
	}
}
