package input

import "testing"

func TestDeriveEdit(t *testing.T) {
	tests := []struct {
		name    string
		before  BeforeInput
		machine int // the machine's Len at the input event
		after   AfterInput
		want    Derived
		wantOK  bool
	}{
		{"a typed character", BeforeInput{"insertText", 3, 3, 5}, 5, AfterInput{6, 4}, Derived{3, 3, 3, 4}, true},
		{"typing over a selection", BeforeInput{"insertText", 1, 4, 5}, 5, AfterInput{3, 2}, Derived{1, 4, 1, 2}, true},
		{"an emoji: two units", BeforeInput{"insertText", 0, 0, 0}, 0, AfterInput{2, 2}, Derived{0, 0, 0, 2}, true},
		{"a line break", BeforeInput{"insertLineBreak", 2, 2, 2}, 2, AfterInput{3, 3}, Derived{2, 2, 2, 3}, true},
		{"a paste the browser made", BeforeInput{"insertFromPaste", 0, 0, 4}, 4, AfterInput{9, 5}, Derived{0, 0, 0, 5}, true},
		{"backspace", BeforeInput{"deleteContentBackward", 3, 3, 5}, 5, AfterInput{4, 2}, Derived{2, 3, 2, 2}, true},
		{"delete forward", BeforeInput{"deleteContentForward", 3, 3, 5}, 5, AfterInput{4, 3}, Derived{3, 4, 3, 3}, true},
		{"a word backwards", BeforeInput{"deleteWordBackward", 9, 9, 9}, 9, AfterInput{4, 4}, Derived{4, 9, 4, 4}, true},
		{"a selection deleted", BeforeInput{"deleteContentBackward", 1, 4, 5}, 5, AfterInput{2, 1}, Derived{1, 4, 1, 1}, true},
		{"cut", BeforeInput{"deleteByCut", 0, 5, 5}, 5, AfterInput{0, 0}, Derived{0, 5, 0, 0}, true},
		{"no beforeinput (a composition)", BeforeInput{}, 5, AfterInput{6, 4}, Derived{}, false},
		{"the machine moved in between", BeforeInput{"insertText", 3, 3, 5}, 6, AfterInput{6, 4}, Derived{}, false},
		{"a drop puts text anywhere", BeforeInput{"insertFromDrop", 3, 3, 5}, 5, AfterInput{8, 8}, Derived{}, false},
		{"an autocorrect replacement", BeforeInput{"insertReplacementText", 3, 3, 5}, 5, AfterInput{7, 5}, Derived{}, false},
		{"a drag deletes elsewhere", BeforeInput{"deleteByDrag", 3, 3, 5}, 5, AfterInput{3, 3}, Derived{}, false},
		{"lengths that do not add up", BeforeInput{"insertText", 3, 3, 5}, 5, AfterInput{8, 4}, Derived{}, false},
		{"the caret before the start", BeforeInput{"insertText", 3, 3, 5}, 5, AfterInput{6, 2}, Derived{}, false},
		{"a delete that grew the draft", BeforeInput{"deleteContentBackward", 3, 3, 5}, 5, AfterInput{6, 3}, Derived{}, false},
		{"a delete past the end", BeforeInput{"deleteContentForward", 3, 3, 5}, 5, AfterInput{3, 4}, Derived{}, false},
		{"a format change", BeforeInput{"formatBold", 0, 2, 5}, 5, AfterInput{5, 2}, Derived{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := DeriveEdit(tt.before, tt.machine, tt.after)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("DeriveEdit(%+v, %d, %+v) = %+v, %v; want %+v, %v", tt.before, tt.machine, tt.after, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// FuzzDeriveEdit: a derivation that succeeds describes an edit that turns a draft of the
// old length into one of the new length, with the text range inside the new value.
func FuzzDeriveEdit(f *testing.F) {
	f.Add("insertText", 3, 3, 5, 6, 4)
	f.Add("deleteContentBackward", 3, 3, 5, 4, 2)
	f.Fuzz(func(t *testing.T, typ string, s, e, n, after, caret int) {
		d, ok := DeriveEdit(BeforeInput{typ, s, e, n}, n, AfterInput{after, caret})
		if !ok {
			return
		}
		if d.Start > d.End || d.TextStart > d.TextEnd || d.TextStart != d.Start {
			t.Fatalf("malformed %+v", d)
		}
		if got := n - (d.End - d.Start) + (d.TextEnd - d.TextStart); got != after {
			t.Fatalf("%+v turns %d units into %d, the textarea has %d", d, n, got, after)
		}
	})
}
