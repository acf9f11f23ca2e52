package inputbar

import (
	"strings"
	"testing"

	"parley/machine/keymap"
)

// switchBefore is the key switch the bar had before its bindings became data, kept as the
// reference they must agree with.
func switchBefore(k keymap.Key) (barAction, bool) {
	mod := k.Ctrl || k.Meta
	key := strings.ToLower(k.Key)
	switch {
	case mod && !k.Alt && key == "z" && !k.Shift:
		return barUndo, true
	case mod && !k.Alt && (key == "z" && k.Shift || key == "y" && k.Ctrl && !k.Shift):
		return barRedo, true
	case k.Key == "Enter" && !k.Shift && k.Ctrl:
		return barNewline, true
	case k.Key == "Enter" && !k.Shift:
		if k.Alt {
			return barSteer, true
		}
		return barSend, true
	case k.Key == "Escape":
		return barRelease, true
	}
	return 0, false
}

func TestBarKeys(t *testing.T) {
	tests := []struct {
		key  keymap.Key
		want barAction
	}{
		{keymap.Key{Key: "z", Ctrl: true}, barUndo},
		{keymap.Key{Key: "z", Meta: true}, barUndo},
		{keymap.Key{Key: "Z", Ctrl: true, Shift: true}, barRedo},
		{keymap.Key{Key: "y", Ctrl: true}, barRedo},
		{keymap.Key{Key: "Enter", Ctrl: true}, barNewline},
		{keymap.Key{Key: "Enter"}, barSend},
		{keymap.Key{Key: "Enter", Alt: true}, barSteer},
		{keymap.Key{Key: "Escape"}, barRelease},
		{keymap.Key{Key: "Enter", Shift: true}, 0},
		{keymap.Key{Key: "a"}, 0},
	}
	for _, tt := range tests {
		got, ok := barKeys.Match(tt.key)
		if ok != (tt.want != 0) || got != tt.want {
			t.Errorf("Match(%+v) = %v, %v; want %v", tt.key, got, ok, tt.want)
		}
	}
}

// FuzzBarKeysAgreeWithTheSwitch: the bindings do what the switch did, for every key and
// modifier combination.
func FuzzBarKeysAgreeWithTheSwitch(f *testing.F) {
	for _, k := range []string{"z", "Z", "y", "Y", "Enter", "Escape", "a", "enter"} {
		for m := range 16 {
			f.Add(k, uint8(m))
		}
	}
	f.Fuzz(func(t *testing.T, key string, m uint8) {
		k := keymap.Key{Key: key, Shift: m&1 != 0, Ctrl: m&2 != 0, Alt: m&4 != 0, Meta: m&8 != 0}
		got, ok := barKeys.Match(k)
		want, wantOK := switchBefore(k)
		if got != want || ok != wantOK {
			t.Fatalf("Match(%+v) = %v, %v; the switch said %v, %v", k, got, ok, want, wantOK)
		}
	})
}
