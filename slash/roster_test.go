package slash

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func testRoster() *Roster {
	return NewRoster(map[rune][]string{
		'/': {"review", "deploy", "v1.2", "plugin:skill"},
		'@': {"alice", "bob", "李雷"},
	})
}

func TestScanTextRefs(t *testing.T) {
	r := testRoster()
	tests := []struct {
		name  string
		draft string
		want  []TextRef
	}{
		{"at start", "/review", []TextRef{{0, 7, '/', "review"}}},
		{"after a space", "please /review this", []TextRef{{7, 14, '/', "review"}}},
		{"line start", "/deploy\n@bob", []TextRef{{0, 7, '/', "deploy"}, {8, 12, '@', "bob"}}},
		{"after NBSP", "\u00a0@bob", []TextRef{{1, 5, '@', "bob"}}},
		{"after U+3000", "\u3000@bob", []TextRef{{1, 5, '@', "bob"}}},
		{"UTF-16 positions", "😀 @李雷", []TextRef{{3, 6, '@', "李雷"}}},
		{"sentence punctuation", "/review. /review... @alice's, @bob!", []TextRef{
			{0, 7, '/', "review"}, {9, 16, '/', "review"}, {20, 26, '@', "alice"}, {30, 34, '@', "bob"},
		}},
		{"dots inside a name", "/v1.2.", []TextRef{{0, 5, '/', "v1.2"}}},
		{"colon inside a name", "/plugin:skill:", []TextRef{{0, 13, '/', "plugin:skill"}}},
		{"several on a line", "@alice and @bob /review", []TextRef{{0, 6, '@', "alice"}, {11, 15, '@', "bob"}, {16, 23, '/', "review"}}},

		{"UTF-16 past a chip", "\uFFFC /review", []TextRef{{2, 9, '/', "review"}}},
		{"a chip ends the name", "/review\uFFFC", []TextRef{{0, 7, '/', "review"}}},
		{"an emoji ends the name", "@bob😀 /review", []TextRef{{0, 4, '@', "bob"}, {7, 14, '/', "review"}}},
		{"surrogate pairs before", "😀😀😀 @bob", []TextRef{{7, 11, '@', "bob"}}},
		{"CRLF", "x\r\n/deploy", []TextRef{{3, 10, '/', "deploy"}}},
		{"line separator", "x\u2028@bob", []TextRef{{2, 6, '@', "bob"}}},

		{"x/name", "x/review", nil},
		{"fraction", "1/2 ½/review", nil},
		{"path", "src/review/deploy", nil},
		{"e-mail with a roster name", "mail bob@example.com", nil},
		{"double at", "@@bob", nil},
		{"name then address", "@bob@example.com", nil},
		{"ZWSP is not a boundary", "\u200b/review", nil},
		{"CJK is not a boundary", "中/review", nil},
		{"an at after CJK", "看看@bob，ファイル@bob", []TextRef{{2, 6, '@', "bob"}, {11, 15, '@', "bob"}}},
		{"an at after a fullwidth Latin letter", "ｂ@bob", nil},
		{"a trailing name character", "/review_", nil},
		{"longer name", "/reviewer", nil},
		{"name goes on into a path", "/review/x", nil},
		{"name goes on into an address", "/review@x", nil},
		{"address", "@alice@host", nil},
		{"e-mail", "bob@alice.com", nil},
		{"URL", "https://x.com/review", nil},
		{"wrong trigger", "/alice @review", nil},
		{"case matters", "/Review", nil},
		{"punctuation is not a boundary", "(/review)", nil},
		{"a chip is not a boundary", "\uFFFC/review", nil},
		{"empty", "", nil},
		{"trigger alone", "/ @", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ScanTextRefs(tt.draft, r))
		})
	}
}

func TestScanTextRefsEditBreaksMatch(t *testing.T) {
	r := testRoster()
	edits := []struct {
		draft string
		want  int
	}{
		{"hi /review", 1},
		{"hi /reviewx", 0}, // typed into the name
		{"hi x/review", 0}, // typed before the trigger
		{"hi /revew", 0},   // deleted inside the name
		{"hi /review", 1},  // undone
		{"hi/review", 0},   // the boundary deleted
	}
	for _, e := range edits {
		assert.Len(t, ScanTextRefs(e.draft, r), e.want, "%q", e.draft)
	}
}

func TestScanTextRefsEmptyRoster(t *testing.T) {
	assert.Nil(t, ScanTextRefs("/review", nil))
	assert.Nil(t, ScanTextRefs("/review", NewRoster(nil)))
}

func TestNewRoster(t *testing.T) {
	r := NewRoster(map[rune][]string{
		'/': {"ok", "", "has space", "dot.", "a/b", "ok"},
		'@': {"x@y", "fine"},
		'#': {"ignored"},
	})
	assert.Equal(t, []string{"ok"}, r.Names('/'))
	assert.Equal(t, []string{"fine"}, r.Names('@'))
	assert.Equal(t, 2, r.Len())
	assert.True(t, r.Has('/', "ok"))
	assert.False(t, r.Has('@', "ok"))
	assert.True(t, r.Equal(NewRoster(map[rune][]string{'/': {"ok"}, '@': {"fine"}})))
	assert.False(t, r.Equal(NewRoster(map[rune][]string{'@': {"ok"}, '/': {"fine"}})))
	assert.True(t, NewRoster(nil).Equal(nil))
}
