package slash

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/machine/input"
)

// TestMenuNavigation pins the listbox state the view turns into ARIA: the active index and
// its aria-activedescendant id, wrapping at both ends, and following its option by
// identity.
func TestMenuNavigation(t *testing.T) {
	// The menu on "/re" holds cmd/review, cmd/rename, skill/refactor.
	review := Option{SourceKey{'/', "cmd"}, Item{ID: "review"}}.ID()
	rename := Option{SourceKey{'/', "cmd"}, Item{ID: "rename"}}.ID()
	refactor := Option{SourceKey{'/', "skill"}, Item{ID: "refactor"}}.ID()
	tests := []struct {
		name       string
		events     []Event
		wantActive int
		wantID     string
	}{
		{"opens on the first option", nil, 0, review},
		{"down", []Event{press("ArrowDown")}, 1, rename},
		{"down twice", []Event{press("ArrowDown"), press("ArrowDown")}, 2, refactor},
		{"down wraps to the top", []Event{press("ArrowDown"), press("ArrowDown"), press("ArrowDown")}, 0, review},
		{"up wraps to the bottom", []Event{press("ArrowUp")}, 2, refactor},
		{"up and down cancel", []Event{press("ArrowUp"), press("ArrowDown")}, 0, review},
		{"hover", []Event{Hover{Index: 1}}, 1, rename},
		{"hover out of range is ignored", []Event{Hover{Index: 3}, Hover{Index: -1}}, 0, review},
		{"keys after hover", []Event{Hover{Index: 2}, press("ArrowDown")}, 0, review},
		{"composing arrows do not move", []Event{Key{Key: "ArrowDown", Composing: true}}, 0, review},
		{"closed: no active descendant", []Event{press("Escape")}, -1, ""},
		{"closed menus ignore arrows", []Event{press("Escape"), press("ArrowDown")}, -1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _, _ := menuHarness(t)
			for _, ev := range tt.events {
				h.c.Dispatch(ev)
			}
			m := h.c.Menu()
			assert.Equal(t, tt.wantActive, m.Active)
			assert.Equal(t, tt.wantID, m.ActiveID())
		})
	}
}

// TestMenuSingleOptionWraps: with one option, both arrows stay on it and are still taken.
func TestMenuSingleOptionWraps(t *testing.T) {
	h := newHarness(&src{trigger: '/', name: "cmd", items: []Item{{ID: "review"}}})
	h.settle(h.typeDraft("/rev|", Plain))
	require.True(t, h.c.Menu().Open)
	for _, k := range []string{"ArrowDown", "ArrowUp"} {
		effs := h.c.Dispatch(press(k))
		assert.Equal(t, []Effect{PreventDefault{}}, effs, "%s: taken, nothing to re-render", k)
		assert.Equal(t, 0, h.c.Menu().Active)
	}
}

func TestOptionID(t *testing.T) {
	tests := []struct {
		name string
		opt  Option
		want string
	}{
		{"plain", Option{SourceKey{'/', "cmd"}, Item{ID: "review"}}, "opt-_2Fcmd-review"},
		{"at", Option{SourceKey{'@', "people"}, Item{ID: "alice"}}, "opt-_40people-alice"},
		{"escaped", Option{SourceKey{'/', "a-b"}, Item{ID: "x y/é"}}, "opt-_2Fa_2Db-x_20y_2F_C3_A9"},
		{"empty item", Option{SourceKey{'/', "cmd"}, Item{}}, "opt-_2Fcmd-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.opt.ID())
		})
	}
	// Unique where Item.ID is not: the same item from two sources, and the pairs that a
	// naive join would confuse.
	ids := map[string]Option{}
	for _, o := range []Option{
		{SourceKey{'/', "cmd"}, Item{ID: "review"}},
		{SourceKey{'/', "skill"}, Item{ID: "review"}},
		{SourceKey{'@', "cmd"}, Item{ID: "review"}},
		{SourceKey{'/', "a-b"}, Item{ID: "c"}},
		{SourceKey{'/', "a"}, Item{ID: "b-c"}},
		{SourceKey{'/', "a_2Db"}, Item{ID: "c"}},
	} {
		id := o.ID()
		if prev, dup := ids[id]; dup {
			t.Errorf("%+v and %+v share the id %q", prev, o, id)
		}
		ids[id] = o
	}
}

// TestEscape pins Escape: taken only to close an open menu (otherwise it belongs to the
// input machine, where it releases a claim), and the hit it leaves behind.
func TestEscape(t *testing.T) {
	tests := []struct {
		name        string
		before      []string // fixtures observed first
		events      []Event
		key         Key
		wantPrevent bool
		wantEffects []Effect
		wantHit     bool
		wantOpen    bool
	}{
		{"closes an open menu, keeps the hit", []string{"/re|"}, nil, press("Escape"), true, []Effect{PreventDefault{}, HideMenu{}}, true, false},
		{"a closed menu lets it through", []string{"/re|"}, []Event{press("Escape")}, press("Escape"), false, nil, true, false},
		{"no hit lets it through", []string{"hello|"}, nil, press("Escape"), false, nil, false, false},
		{"while composing it is the IME's", []string{"/re|"}, nil, Key{Key: "Escape", Composing: true}, false, nil, true, true},
		{"after blur it is the machine's", []string{"/re|"}, []Event{Dismiss{}}, press("Escape"), false, nil, true, false},
		{"shift+escape still closes", []string{"/re|"}, nil, Key{Key: "Escape", Shift: true}, true, []Effect{PreventDefault{}, HideMenu{}}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(&src{trigger: '/', name: "cmd", items: []Item{{ID: "review"}}})
			for _, f := range tt.before {
				h.settle(h.typeDraft(f, Plain))
			}
			for _, ev := range tt.events {
				h.c.Dispatch(ev)
			}
			effs := h.c.Dispatch(tt.key)
			assert.Equal(t, tt.wantPrevent, Prevented(effs))
			assert.Equal(t, tt.wantEffects, effs)
			assert.Equal(t, tt.wantOpen, h.c.Menu().Open)
			_, hit := h.c.Hit()
			assert.Equal(t, tt.wantHit, hit)
		})
	}
}

// TestDismissedMenuStaysClosed: after Escape the menu stays closed while the user types on
// in the same token, and a new token opens a fresh one.
func TestDismissedMenuStaysClosed(t *testing.T) {
	tests := []struct {
		name     string
		next     string
		wantOpen bool
	}{
		{"typing on in the token", "/rev|", false},
		{"deleting in the token", "/r|", false},
		{"the caret moving inside the token", "/r|e", false},
		{"a new token", "/re /re|", true},
		{"leaving the token and coming back", "/re x|", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(&src{trigger: '/', name: "cmd", items: []Item{{ID: "review"}, {ID: "re"}}})
			h.settle(h.typeDraft("/re|", Plain))
			h.c.Dispatch(press("Escape"))
			h.settle(h.typeDraft(tt.next, Plain))
			assert.Equal(t, tt.wantOpen, h.c.Menu().Open)
		})
	}
	// Leaving the token forgets the dismissal: coming back opens the menu again.
	h := newHarness(&src{trigger: '/', name: "cmd", items: []Item{{ID: "review"}}})
	h.settle(h.typeDraft("/re|", Plain))
	h.c.Dispatch(press("Escape"))
	h.settle(h.typeDraft("/re x|", Plain))
	h.settle(h.typeDraft("/re| x", Plain))
	assert.True(t, h.c.Menu().Open)
}

func TestAdjudicatedAnswer(t *testing.T) {
	a := attempt(3)
	claim := input.Claim{Token: "/x ", Hint: "<y>"}
	tests := []struct {
		name string
		in   Adjudicated
		want input.Event
	}{
		{"claimed", Adjudicated{a, Verdict{Kind: VerdictClaimed, Claim: claim}}, input.Adjudicated{Attempt: a, Claim: claim}},
		{"default sink", Adjudicated{a, Verdict{Kind: VerdictDefaultSink}}, input.Adjudicated{Attempt: a}},
		{"rejected", Adjudicated{a, Verdict{Kind: VerdictRejected, Reason: "boom"}}, input.AdjudicationFailed{Attempt: a, Err: errors.New("boom")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.in.Answer())
		})
	}
}

// TestKeyIME pins the IME guard the controller and the shell share, with Shift+Enter as
// its single exception.
func TestKeyIME(t *testing.T) {
	tests := []struct {
		name string
		key  Key
		want bool
	}{
		{"a plain Enter", Key{Key: "Enter"}, false},
		{"Enter while composing", Key{Key: "Enter", Composing: true}, true},
		{"Enter with keyCode 229 (Safari after compositionend)", Key{Key: "Enter", KeyCode: 229}, true},
		{"Shift+Enter while composing goes first", Key{Key: "Enter", Shift: true, Composing: true}, false},
		{"Shift+Enter with keyCode 229 goes first", Key{Key: "Enter", Shift: true, KeyCode: 229}, false},
		{"Ctrl+Enter while composing", Key{Key: "Enter", Ctrl: true, Composing: true}, true},
		{"an arrow while composing", Key{Key: "ArrowDown", Composing: true}, true},
		{"Escape while composing", Key{Key: "Escape", Composing: true}, true},
		{"Tab while composing", Key{Key: "Tab", KeyCode: 229}, true},
		{"Space while composing", Key{Key: " ", Composing: true}, true},
		{"Shift+Space while composing", Key{Key: " ", Shift: true, Composing: true}, true},
		{"a letter", Key{Key: "a"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.key.IME())
		})
	}
}

// TestAnAtPathKeepsTheMenu (QA: a `/` typed after `@src` closed the menu, and Enter sent the
// half-typed path): the menu of a files-like source stays open key by key through a path,
// narrows to the file, and Enter picks it over the whole path; a name with a space is picked
// before the space, as before.
func TestAnAtPathKeepsTheMenu(t *testing.T) {
	for _, tt := range []struct {
		name  string
		typed string // typed after the draft's "see ", key by key
		want  []string
		bail  string // the rewrite over the whole typed reference, at the last revision
	}{
		{"a path", "@src/main", []string{"src/main.go"}, `insert-reference picked 4-13@9`},
		{"a folder's trailing slash", "@src/", []string{"src/main.go"}, `insert-reference picked 4-9@5`},
		{"a name with a space, before the space", "@notes", []string{"notes file.txt"}, `insert-reference picked 4-10@6`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := &src{trigger: '@', name: "files", items: []Item{{ID: "src"}, {ID: "src/main.go"}, {ID: "notes file.txt"}},
				out: InsertReference(input.Reference{Source: "@files", Ref: "picked"})}
			h := newHarness(files)
			for i := range tt.typed {
				h.settle(h.typeDraft("see "+tt.typed[:i+1]+"|", Plain))
				require.True(t, h.c.Menu().Open, "the menu after %q", tt.typed[:i+1])
				require.GreaterOrEqual(t, h.c.Menu().Active, 0, "an option is active after %q", tt.typed[:i+1])
			}
			var ids []string
			for _, o := range h.c.Menu().Options {
				ids = append(ids, o.Item.ID)
			}
			assert.Equal(t, tt.want, ids)
			effs := h.c.Dispatch(press("Enter"))
			assert.True(t, Prevented(effs), "Enter picks, and sends nothing")
			assert.Equal(t, []Item{{ID: tt.want[0]}}, files.picks)
			assert.Equal(t, []string{tt.bail}, h.bail.calls)
		})
	}
}
