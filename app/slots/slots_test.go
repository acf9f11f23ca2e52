package slots

import (
	"errors"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func text(s string) Entry[string] {
	return Entry[string]{Render: func(p string) app.UI { return app.Text(s + p) }}
}

func rendered(r *Registry[string], name, session string) []string {
	var out []string
	for _, e := range r.Entries(name, session) {
		out = append(out, app.HTMLString(e.Render("")))
	}
	return out
}

func TestRegisterAndOrder(t *testing.T) {
	r := New[string]()
	require.NoError(t, r.Declare("dock", Multi, Root))
	require.NoError(t, r.Declare("bar", Single, Root))
	require.NoError(t, r.Declare("left", Multi, Session))

	reg := func(name, session, label string, order int) (func(), error) {
		e := text(label)
		e.Order = order
		return r.Register(name, session, e)
	}
	_, err := reg("nope", "", "x", 0)
	assert.ErrorIs(t, err, ErrUnknownSlot)

	_, err = reg("dock", "", "b", 2)
	require.NoError(t, err)
	_, err = reg("dock", "", "a", 1)
	require.NoError(t, err)
	removeC, err := reg("dock", "", "c", 2)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, rendered(r, "dock", ""), "by order, then by registration")
	assert.Equal(t, []string{"a", "b", "c"}, rendered(r, "dock", "s1"), "root entries serve every session")
	removeC()
	assert.Equal(t, []string{"a", "b"}, rendered(r, "dock", ""))
	removeC()
	assert.Equal(t, []string{"a", "b"}, rendered(r, "dock", ""), "removing twice changes nothing")

	_, err = reg("bar", "", "bar", 0)
	require.NoError(t, err)
	_, err = reg("bar", "", "other", 0)
	assert.ErrorIs(t, err, ErrSlotTaken)
	_, err = reg("bar", "", "first", -1)
	require.NoError(t, err)
	assert.Equal(t, []string{"first"}, rendered(r, "bar", ""), "a single slot shows its lowest order")

	_, err = reg("left", "", "all", -1)
	require.NoError(t, err)
	_, err = reg("left", "s1", "one", 0)
	require.NoError(t, err)
	_, err = reg("left", "s2", "two", 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"all", "one"}, rendered(r, "left", "s1"), "entries for every session, then this one's, by order")
	assert.Equal(t, []string{"all", "two"}, rendered(r, "left", "s2"))
	assert.Empty(t, rendered(r, "left", ""), "a session slot without a session is empty")
	r.DropSession("s1")
	assert.Equal(t, []string{"all"}, rendered(r, "left", "s1"), "a dropped session's entries go")
	assert.Equal(t, []string{"all", "two"}, rendered(r, "left", "s2"))

	_, err = r.Register("dock", "", Entry[string]{})
	assert.Error(t, err, "an entry must render")
	assert.False(t, errors.Is(err, ErrSlotTaken))
	assert.Empty(t, r.Render("unknown", "", ""), "an undeclared slot renders nothing")
	assert.Len(t, r.Render("dock", "", "!"), 2)
}
