// Package keymap makes key bindings data: which keys, with which modifiers, do what, and
// the help text that says so. A surface (the input bar, the slash menu, the composer's
// modes) declares its Map once; its keydown handler asks Match for the action and acts on
// it, and a help view lists Help. Bubble Tea's key.Binding is the model.
//
// Matching is IME-aware: nothing matches a key that belongs to an IME composition, so an
// Enter that commits a candidate never submits and an arrow that moves through candidates
// never moves a menu. Modifiers match exactly: a binding names the modifiers that must be
// held (Mods) and those that may be (Optional); any other held modifier is a different
// chord.
//
// The package is pure: no browser, no go-app, no clock.
package keymap

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Mod is a set of modifier keys.
type Mod uint8

const (
	Shift Mod = 1 << iota
	Ctrl
	Alt
	Meta
	// Primary is the command key of either platform: Ctrl or Meta (⌘). Required, it is
	// satisfied by either, and then the other may be held too.
	Primary
)

var modNames = [...]string{"shift", "ctrl", "alt", "meta", "mod"}

// String names the modifiers joined by '+', e.g. "ctrl+shift".
func (m Mod) String() string {
	var parts []string
	for i, n := range modNames {
		if m&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if rest := m &^ (1<<len(modNames) - 1); rest != 0 {
		parts = append(parts, fmt.Sprintf("Mod(%#x)", uint8(rest)))
	}
	return strings.Join(parts, "+")
}

// Key is a keydown as the browser reports it.
type Key struct {
	Key                    string // KeyboardEvent.key: "Enter", "ArrowDown", " ", "z", "Z", …
	Shift, Ctrl, Alt, Meta bool
	// Composing is KeyboardEvent.isComposing (or the shell's own compositionstart flag);
	// KeyCode 229 is what some browsers send for a key the IME has, instead.
	Composing bool
	KeyCode   int
}

// Mods returns the modifiers k holds.
func (k Key) Mods() Mod {
	var m Mod
	if k.Shift {
		m |= Shift
	}
	if k.Ctrl {
		m |= Ctrl
	}
	if k.Alt {
		m |= Alt
	}
	if k.Meta {
		m |= Meta
	}
	return m
}

// InComposition reports whether k belongs to an IME composition, so that no binding may act on
// it.
func (k Key) InComposition() bool { return k.Composing || k.KeyCode == 229 }

// Help is what a help view shows for a binding.
type Help struct {
	Key  string // how to press it, e.g. "ctrl+z"
	Desc string // what it does, e.g. "undo"
}

// Binding maps keys, with modifiers, to an action of the surface's own type A.
type Binding[A comparable] struct {
	// Keys are KeyboardEvent.key values. A character compares without case ("z" matches
	// "Z", which is what the browser reports for Shift+Z); a named key ("Enter") exactly.
	Keys     []string
	Mods     Mod // must be held
	Optional Mod // may be held
	Action   A
	Help     Help
}

// Matches reports whether k presses b, composition aside.
func (b Binding[A]) Matches(k Key) bool {
	held, need, may := k.Mods(), b.Mods, b.Optional
	if need&Primary != 0 {
		if held&(Ctrl|Meta) == 0 {
			return false
		}
		need &^= Primary
		may |= Ctrl | Meta
	}
	if may&Primary != 0 {
		may |= Ctrl | Meta
	}
	if held&need != need || held&^(need|may) != 0 {
		return false
	}
	for _, name := range b.Keys {
		if name == k.Key || oneRune(name) && oneRune(k.Key) && strings.EqualFold(name, k.Key) {
			return true
		}
	}
	return false
}

// oneRune reports whether s is a single character: a key that types it, whose case follows
// Shift and Caps Lock. Named keys ("Enter") compare exactly.
func oneRune(s string) bool { return s != "" && utf8.RuneCountInString(s) == 1 }

// Map is a surface's bindings. Order matters: Match returns the first binding that
// matches, so a more specific chord goes before a looser one on the same key.
type Map[A comparable] []Binding[A]

// Match returns the action of the first binding k presses. Nothing matches while k belongs
// to an IME composition.
func (m Map[A]) Match(k Key) (A, bool) {
	var zero A
	if k.InComposition() {
		return zero, false
	}
	for _, b := range m {
		if b.Matches(k) {
			return b.Action, true
		}
	}
	return zero, false
}

// Help returns the bindings' help, in order, skipping those without a description.
func (m Map[A]) Help() []Help {
	out := make([]Help, 0, len(m))
	for _, b := range m {
		if b.Help.Desc != "" {
			out = append(out, b.Help)
		}
	}
	return out
}

// Row is where an arrow key, Home or End moves the focus in a row of n buttons from the
// i-th (in the document's order): ok is false for any other key. The arrows stop at the
// row's ends, never around them: from a confirm's No, the last, → went round to Yes, the
// first, and Enter said yes (QA round 17). ← and → go the way they point, so in a
// right-to-left row → goes back in the document; ↑ and ↓ follow the document.
func Row(key string, rtl bool, i, n int) (j int, ok bool) {
	step := 0
	switch key {
	case "ArrowRight":
		step = 1
	case "ArrowLeft":
		step = -1
	case "ArrowDown":
		rtl, step = false, 1
	case "ArrowUp":
		rtl, step = false, -1
	case "Home":
		return 0, true
	case "End":
		return n - 1, true
	default:
		return i, false
	}
	if rtl {
		step = -step
	}
	return min(max(i+step, 0), n-1), true
}
