package keymap

import (
	"slices"
	"testing"
)

type action int

const (
	none action = iota
	undo
	redo
	newline
	steer
	submit
	release
)

// sample is the input bar's map, the richest one: Primary, optional modifiers, and order.
var sample = Map[action]{
	{Keys: []string{"z"}, Mods: Primary, Action: undo, Help: Help{"mod+z", "undo"}},
	{Keys: []string{"z"}, Mods: Primary | Shift, Action: redo, Help: Help{"mod+shift+z", "redo"}},
	{Keys: []string{"y"}, Mods: Ctrl, Optional: Meta, Action: redo},
	{Keys: []string{"Enter"}, Mods: Ctrl, Optional: Alt | Meta, Action: newline, Help: Help{"ctrl+enter", "new line"}},
	{Keys: []string{"Enter"}, Mods: Alt, Optional: Meta, Action: steer, Help: Help{"alt+enter", "steer"}},
	{Keys: []string{"Enter"}, Optional: Meta, Action: submit, Help: Help{"enter", "send"}},
	{Keys: []string{"Escape"}, Optional: Shift | Ctrl | Alt | Meta, Action: release},
}

func TestMatch(t *testing.T) {
	tests := []struct {
		name string
		key  Key
		want action // none: no match
	}{
		{"ctrl+z", Key{Key: "z", Ctrl: true}, undo},
		{"meta+z", Key{Key: "z", Meta: true}, undo},
		{"ctrl+meta+z: the other command key is ignored", Key{Key: "z", Ctrl: true, Meta: true}, undo},
		{"z alone types", Key{Key: "z"}, none},
		{"alt+ctrl+z is another chord", Key{Key: "z", Ctrl: true, Alt: true}, none},
		{"ctrl+shift+Z: the browser reports the capital", Key{Key: "Z", Ctrl: true, Shift: true}, redo},
		{"meta+shift+z", Key{Key: "z", Meta: true, Shift: true}, redo},
		{"ctrl+y", Key{Key: "y", Ctrl: true}, redo},
		{"meta+y is not redo", Key{Key: "y", Meta: true}, none},
		{"ctrl+shift+y is not redo", Key{Key: "Y", Ctrl: true, Shift: true}, none},
		{"ctrl+enter", Key{Key: "Enter", Ctrl: true}, newline},
		{"ctrl+alt+enter is still the line break: it comes first", Key{Key: "Enter", Ctrl: true, Alt: true}, newline},
		{"alt+enter", Key{Key: "Enter", Alt: true}, steer},
		{"enter", Key{Key: "Enter"}, submit},
		{"meta+enter", Key{Key: "Enter", Meta: true}, submit},
		{"shift+enter is the browser's line break", Key{Key: "Enter", Shift: true}, none},
		{"escape with any modifier", Key{Key: "Escape", Shift: true, Ctrl: true}, release},
		{"enter while composing", Key{Key: "Enter", Composing: true}, none},
		{"enter with keyCode 229", Key{Key: "Enter", KeyCode: 229}, none},
		{"ctrl+z while composing", Key{Key: "z", Ctrl: true, Composing: true}, none},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := sample.Match(tt.key)
			if ok != (tt.want != none) || got != tt.want {
				t.Errorf("Match(%+v) = %v, %v; want %v", tt.key, got, ok, tt.want)
			}
		})
	}
}

func TestPrimaryOptional(t *testing.T) {
	b := Binding[action]{Keys: []string{"k"}, Optional: Primary, Action: undo}
	for _, k := range []Key{{Key: "k"}, {Key: "k", Ctrl: true}, {Key: "k", Meta: true}} {
		if !b.Matches(k) {
			t.Errorf("%+v does not match an optional Primary", k)
		}
	}
	if b.Matches(Key{Key: "k", Alt: true}) {
		t.Error("alt is not optional")
	}
}

func TestHelp(t *testing.T) {
	want := []Help{{"mod+z", "undo"}, {"mod+shift+z", "redo"}, {"ctrl+enter", "new line"}, {"alt+enter", "steer"}, {"enter", "send"}}
	if got := sample.Help(); !slices.Equal(got, want) {
		t.Errorf("Help() = %v, want %v", got, want)
	}
}

func TestModString(t *testing.T) {
	for m, want := range map[Mod]string{0: "", Shift: "shift", Ctrl | Shift: "shift+ctrl", Primary | Alt: "alt+mod", 0x40: "Mod(0x40)"} {
		if got := m.String(); got != want {
			t.Errorf("Mod(%#x).String() = %q, want %q", uint8(m), got, want)
		}
	}
}

// FuzzComposingNeverMatches: whatever the key and modifiers, a key the IME has matches no
// binding, and Match agrees with Matches otherwise.
func FuzzComposingNeverMatches(f *testing.F) {
	f.Add("Enter", uint8(0), true, 0)
	f.Add("z", uint8(Ctrl), false, 229)
	f.Add("Escape", uint8(Shift|Alt), false, 0)
	f.Fuzz(func(t *testing.T, key string, mods uint8, composing bool, code int) {
		k := Key{Key: key, Shift: mods&1 != 0, Ctrl: mods&2 != 0, Alt: mods&4 != 0, Meta: mods&8 != 0, Composing: composing, KeyCode: code}
		got, ok := sample.Match(k)
		if k.InComposition() {
			if ok {
				t.Fatalf("%+v matched %v while composing", k, got)
			}
			return
		}
		first := slices.IndexFunc(sample, func(b Binding[action]) bool { return b.Matches(k) })
		if ok != (first >= 0) || ok && got != sample[first].Action {
			t.Fatalf("Match(%+v) = %v, %v; the first matching binding is %d", k, got, ok, first)
		}
	})
}

// TestRow: a row of buttons' arrows stop at its ends, and ← → go the way they point, in a
// right-to-left row too (QA round 17: → on a confirm's No went round to Yes).
func TestRow(t *testing.T) {
	for _, tt := range []struct {
		name  string
		key   string
		rtl   bool
		i, n  int
		want  int
		notIt bool
	}{
		{"→ goes on", "ArrowRight", false, 0, 2, 1, false},
		{"→ stops at the last: No stays No", "ArrowRight", false, 1, 2, 1, false},
		{"← goes back", "ArrowLeft", false, 1, 2, 0, false},
		{"← stops at the first", "ArrowLeft", false, 0, 3, 0, false},
		{"↓ goes on", "ArrowDown", false, 1, 3, 2, false},
		{"↓ stops at the last", "ArrowDown", false, 2, 3, 2, false},
		{"↑ stops at the first", "ArrowUp", false, 0, 3, 0, false},
		{"Home", "Home", false, 2, 3, 0, false},
		{"End", "End", false, 0, 3, 2, false},
		{"right to left: → goes back in the document", "ArrowRight", true, 1, 2, 0, false},
		{"right to left: → stops at the first, drawn rightmost", "ArrowRight", true, 0, 2, 0, false},
		{"right to left: ← goes on", "ArrowLeft", true, 0, 2, 1, false},
		{"right to left: ← stops at the last, drawn leftmost", "ArrowLeft", true, 1, 2, 1, false},
		{"right to left: ↓ follows the document", "ArrowDown", true, 0, 2, 1, false},
		{"right to left: Home is the first", "Home", true, 1, 2, 0, false},
		{"a letter is not the row's", "a", false, 1, 2, 1, true},
		{"nor Enter", "Enter", false, 0, 2, 0, true},
	} {
		j, ok := Row(tt.key, tt.rtl, tt.i, tt.n)
		if j != tt.want || ok == tt.notIt {
			t.Errorf("%s: Row(%q, %v, %d, %d) = %d, %v; want %d, %v", tt.name, tt.key, tt.rtl, tt.i, tt.n, j, ok, tt.want, !tt.notIt)
		}
	}
}
