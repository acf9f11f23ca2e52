package slash

import (
	"testing"

	"parley/machine/input"
)

func TestNear(t *testing.T) {
	tests := []struct {
		name                string
		before, after       string
		cutBefore, cutAfter bool
		want                bool
	}{
		{"typing a name after a trigger", "hi /rev", "", false, false, true},
		{"typing inside a name", "see @al", "ice", false, false, true},
		{"a name before an '@' on the right", "x", "y@host", false, false, true},
		{"plain words", "hello wor", "ld and more", false, false, false},
		{"a space ends the run", "/review ", "", false, false, false},
		{"a run to the window's edge may go on", "abcdefgh", "", true, false, true},
		{"a run to the draft's start", "abcdefgh", "", false, false, false},
		{"a run to the window's edge on the right", "", "abcdefgh", false, true, true},
		{"non-ASCII names count", "@日本", "語", false, false, true},
		{"an empty draft", "", "", false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Near(tt.before, tt.after, tt.cutBefore, tt.cutAfter); got != tt.want {
				t.Errorf("Near(%q, %q, %v, %v) = %v, want %v", tt.before, tt.after, tt.cutBefore, tt.cutAfter, got, tt.want)
			}
		})
	}
}

func TestTierOf(t *testing.T) {
	for p, want := range map[input.Phase]Tier{input.Plain: Plain, input.Claimed: Claimed, input.Adjudicating: Frozen, input.Submitting: Frozen} {
		if got := TierOf(p); got != want {
			t.Errorf("TierOf(%v) = %v, want %v", p, got, want)
		}
	}
}

// FuzzNearSeesEveryHit: an edit that Near calls unbound never sits in a hit. Detect at the
// edit's position (the caret after typing) finds nothing whenever Near says no.
func FuzzNearSeesEveryHit(f *testing.F) {
	f.Add("hi /rev", "iew there")
	f.Add("mail user@host", " x")
	f.Fuzz(func(t *testing.T, before, after string) {
		draft := before + after
		caret := len(utf16Encode(before))
		if Near(before, after, false, false) {
			return
		}
		for _, tier := range []Tier{Plain, Claimed} {
			if h, ok := Detect(draft, caret, tier); ok {
				t.Fatalf("Near(%q, %q) is false, but Detect finds %+v", before, after, h)
			}
		}
	})
}
