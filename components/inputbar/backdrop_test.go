package inputbar

import "testing"

// TestWhatMayWaitUnwritten: only printable ASCII waits at the draft's end, and a draft with a
// right-to-left letter lets nothing wait (docs/composer.md, "One layout per key").
func TestWhatMayWaitUnwritten(t *testing.T) {
	for _, tt := range []struct {
		text         string
		lagging, rtl bool
	}{
		{"a", true, false},
		{"hello world", true, false},
		{"", false, false},
		{"\n", false, false},
		{"\t", false, false},
		{"é", false, false},
		{"中文", false, false},
		{"👍", false, false},
		{"שלום", false, true},
		{"مرحبا", false, true},
		{"ab\u200fcd", false, true}, // a right-to-left mark
		{"\u202eevil", false, true}, // a right-to-left override
		{"ﭐ", false, true},          // an Arabic presentation form
	} {
		if got := lagging(tt.text); got != tt.lagging {
			t.Errorf("lagging(%q) = %v, want %v", tt.text, got, tt.lagging)
		}
		if got := hasRTL(tt.text); got != tt.rtl {
			t.Errorf("hasRTL(%q) = %v, want %v", tt.text, got, tt.rtl)
		}
	}
}
