package slashhost

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/slash"
)

func TestArgumentsFilterAndKeepTheirList(t *testing.T) {
	reads, ws := 0, "a"
	var fail error
	a := &Arguments{Command: "example", Key: func() string { return ws }, List: func(context.Context) ([]slash.Item, error) {
		reads++
		return []slash.Item{{ID: "hello", Detail: "Say hello"}, {ID: "git-status"}, {ID: "list-workspace"}}, fail
	}}
	assert.Equal(t, slash.ArgTrigger, a.Trigger())
	assert.Equal(t, "example", a.Name())
	ids := func(q string) []string {
		items, err := a.Candidates(context.Background(), slash.Query{Hit: slash.Hit{Query: q}})
		require.NoError(t, err)
		var out []string
		for _, it := range items {
			out = append(out, it.ID)
		}
		return out
	}
	assert.Equal(t, []string{"hello", "git-status", "list-workspace"}, ids(""))
	assert.Equal(t, []string{"hello"}, ids("HE"))
	assert.Equal(t, []string{"git-status", "list-workspace"}, ids("st"), "two characters match inside")
	assert.Equal(t, 1, reads, "a keystroke reads no list")
	ws = "b"
	ids("")
	assert.Equal(t, 2, reads, "another workspace's list is read")
	assert.Equal(t, slash.InsertText("hello "), a.Pick(slash.Item{ID: "hello"}, slash.Query{Hit: slash.Hit{Query: "he"}}))
	whole := slash.InsertText("hello ")
	whole.Complete = true
	assert.Equal(t, whole, a.Pick(slash.Item{ID: "hello"}, slash.Query{Hit: slash.Hit{Query: "hello"}}), "typed whole: an Enter sends")

	fail, ws = errors.New("down"), "c"
	_, err := a.Candidates(context.Background(), slash.Query{})
	assert.Error(t, err)
}
