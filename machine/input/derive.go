package input

import "strings"

// This file derives the delta form of draft-changed (Edit) from what the browser says
// around an edit, so that a keystroke never copies the draft into Go: the textarea's whole
// value is read only when the delta cannot be known.

// BeforeInput is what the shell saw at beforeinput: the edit's kind and the selection it
// replaces, and the machine's draft length then.
type BeforeInput struct {
	Type       string // InputEvent.inputType: "insertText", "deleteContentBackward", …
	Start, End int    // the selection, in units
	Len        int    // the machine's Len
}

// AfterInput is what the textarea holds at the input event that follows.
type AfterInput struct {
	Len   int // textLength, in units
	Caret int // selectionStart
}

// Derived is an Edit whose Text the shell reads from the textarea: units
// [TextStart, TextEnd) of its value, none when the range is empty.
type Derived struct {
	Start, End         int // the range of the old draft that was replaced
	TextStart, TextEnd int // where the replacement sits in the new value
}

// DeriveEdit works out the edit an input event reports. An insertion replaced the selection
// with what now lies between its start and the caret; a deletion removed what the length
// lost, after the caret. ok is false when that cannot be known: no beforeinput was seen (an
// IME composition), the machine's draft moved in between (machineLen differs), the kind
// can put text anywhere (a drop, an autocorrect replacement), or the lengths do not add up.
// The shell then reads the whole value (DraftChanged); a wrong derivation is caught after
// the edit by comparing lengths, and also falls back.
func DeriveEdit(b BeforeInput, machineLen int, a AfterInput) (Derived, bool) {
	if b.Type == "" || b.Len != machineLen || b.Start < 0 || b.Start > b.End || b.End > b.Len {
		return Derived{}, false
	}
	switch {
	case strings.HasPrefix(b.Type, "insert") && b.Type != "insertReplacementText" && b.Type != "insertFromDrop":
		k := a.Caret - b.Start
		if k >= 0 && a.Len == b.Len-(b.End-b.Start)+k {
			return Derived{Start: b.Start, End: b.End, TextStart: b.Start, TextEnd: a.Caret}, true
		}
	case strings.HasPrefix(b.Type, "delete") && b.Type != "deleteByDrag":
		if d := b.Len - a.Len; d > 0 && a.Caret+d <= b.Len {
			return Derived{Start: a.Caret, End: a.Caret + d, TextStart: a.Caret, TextEnd: a.Caret}, true
		}
	}
	return Derived{}, false
}
