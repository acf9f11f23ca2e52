package slashhost

import (
	"context"
	"strings"
	"sync"

	"parley/slash"
)

// maxArguments bounds an argument menu.
const maxArguments = 8

// Arguments completes the first argument of a command (slash.DetectArgument): "/example "
// lists the examples' slugs with their descriptions, and a pick puts the slug in place with
// a space after it. Any command gets the same by registering an Arguments under its name.
type Arguments struct {
	Command string
	// List reads the choices; Key says which list it is (a workspace's), so a change of
	// key reads it again. The list is kept otherwise: a keystroke costs no request.
	List func(ctx context.Context) ([]slash.Item, error)
	Key  func() string

	mu     sync.Mutex
	items  []slash.Item
	loaded string
	ok     bool
}

var _ slash.Source = (*Arguments)(nil)

// Trigger is slash.ArgTrigger; Name is the command's.
func (a *Arguments) Trigger() rune { return slash.ArgTrigger }

// Name is the command the source completes.
func (a *Arguments) Name() string { return a.Command }

func (a *Arguments) key() string {
	if a.Key == nil {
		return ""
	}
	return a.Key()
}

func (a *Arguments) load(ctx context.Context) ([]slash.Item, error) {
	k := a.key()
	a.mu.Lock()
	if a.ok && a.loaded == k {
		defer a.mu.Unlock()
		return a.items, nil
	}
	a.mu.Unlock()
	items, err := a.List(ctx)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.items, a.loaded, a.ok = items, k, true
	a.mu.Unlock()
	return items, nil
}

// Candidates are the choices whose id starts with the word typed, or holds it once it has
// two characters, case aside.
func (a *Arguments) Candidates(ctx context.Context, q slash.Query) ([]slash.Item, error) {
	items, err := a.load(ctx)
	if err != nil {
		return nil, err
	}
	word := strings.ToLower(q.Query)
	var out []slash.Item
	for _, it := range items {
		id := strings.ToLower(it.ID)
		if strings.HasPrefix(id, word) || len(word) >= 2 && strings.Contains(id, word) {
			out = append(out, it)
			if len(out) == maxArguments {
				break
			}
		}
	}
	return out, nil
}

// Pick puts the choice in place of the word, with the space that ends it. A choice typed
// whole is complete, as a command's whole name is: the Enter that picks it sends the draft
// too (`/example ask-deploy` took two Enters). Its optional arguments are typed after it
// before the Enter, which then sends; a pick never decides them.
func (a *Arguments) Pick(it slash.Item, q slash.Query) slash.PickOutcome {
	out := slash.InsertText(it.ID + " ")
	out.Complete = q.Query == it.ID
	return out
}
