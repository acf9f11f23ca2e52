package excerpt

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestHead(t *testing.T) {
	lines := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString("line " + string(rune('a'+i%26)))
		}
		return b.String()
	}
	tests := []struct {
		name   string
		text   string
		head   string
		folded bool
	}{
		{"empty", "", "", false},
		{"short", "hello", "hello", false},
		{"fifteen lines are shown whole", lines(15), lines(15), false},
		{"sixteen lines show their first eight", lines(16), lines(8), true},
		{"1,500 characters are shown whole", strings.Repeat("x", 1500), strings.Repeat("x", 1500), false},
		{"a word longer than the head is cut in it", strings.Repeat("x", 1501), strings.Repeat("x", 600), true},
		{"a long line ends at a word's end", strings.Repeat("word ", 400), strings.TrimSpace(strings.Repeat("word ", 120)), true},
		{"a cut between words keeps the word before it", strings.Repeat("abcd ", 120) + strings.Repeat("z", 1000), strings.TrimSpace(strings.Repeat("abcd ", 120)), true},
		{"white space at the head's end goes", "a\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\nb", "a", true},
		{"characters are counted, not bytes", strings.Repeat("界", 1500), strings.Repeat("界", 1500), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head, folded := Head(tt.text)
			assert.Equal(t, tt.folded, folded)
			assert.Equal(t, tt.head, head)
		})
	}
}

// TestHeadOfAHugeText: 100 KB fold to a head within the bounds, cut at a character.
func TestHeadOfAHugeText(t *testing.T) {
	text := strings.Repeat("日本語のテキスト😀 ", 10000)
	head, folded := Head(text)
	assert.True(t, folded)
	assert.True(t, utf8.ValidString(head))
	assert.LessOrEqual(t, utf8.RuneCountInString(head), headRunes)
	assert.True(t, strings.HasPrefix(text, head))
}

func FuzzHead(f *testing.F) {
	f.Add("hello\nworld")
	f.Add(strings.Repeat("a b\n", 500))
	f.Fuzz(func(t *testing.T, text string) {
		head, folded := Head(text)
		if !strings.HasPrefix(text, head) {
			t.Fatalf("the head %q is not the text's start", head)
		}
		if !folded && head != text {
			t.Fatal("a text not folded comes back whole")
		}
		if folded && (utf8.RuneCountInString(head) > headRunes || strings.Count(head, "\n") >= headLines) {
			t.Fatalf("the head is over its bounds: %d characters, %d lines", utf8.RuneCountInString(head), strings.Count(head, "\n")+1)
		}
	})
}
