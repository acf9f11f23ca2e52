package slash

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/machine/input"
	"parley/protocol"
)

func TestDetect(t *testing.T) {
	type want struct {
		trigger    rune
		query      string
		start, end int
	}
	tests := []struct {
		name  string
		draft string
		tier  Tier
		want  *want
	}{
		{"bare slash", "/|", Plain, &want{'/', "", 0, 1}},
		{"slash at start", "/rev|", Plain, &want{'/', "rev", 0, 4}},
		{"caret inside the name spans the whole run", "/rev|iew", Plain, &want{'/', "rev", 0, 7}},
		{"after a space", "hi /rev|", Plain, &want{'/', "rev", 3, 7}},
		{"at a line start", "hi\n/rev|", Plain, &want{'/', "rev", 3, 7}},
		{"after a tab", "\t@al|", Plain, &want{'@', "al", 1, 4}},
		{"after NBSP", "hi\u00a0/rev|", Plain, &want{'/', "rev", 3, 7}},
		{"after U+3000", "中\u3000@al|", Plain, &want{'@', "al", 2, 5}},
		{"at inline", "hello @al|", Plain, &want{'@', "al", 6, 9}},
		{"bare at", "@|", Plain, &want{'@', "", 0, 1}},
		{"UTF-16 positions past an emoji", "😀 /é|", Plain, &want{'/', "é", 3, 5}},
		{"namespaced name", "/plugin:sk|", Plain, &want{'/', "plugin:sk", 0, 10}},
		{"at after a slash token", "/rev @al|", Plain, &want{'@', "al", 5, 8}},
		{"line start after CRLF", "hi\r\n/rev|", Plain, &want{'/', "rev", 4, 8}},
		{"after U+2028 line separator", "hi\u2028@al|", Plain, &want{'@', "al", 3, 6}},
		{"after NBSP, at", "hi\u00a0@al|", Plain, &want{'@', "al", 3, 6}},
		{"after U+3000, slash", "中文\u3000/rev|", Plain, &want{'/', "rev", 3, 7}},
		{"after a space following a chip", "\uFFFC /rev|", Plain, &want{'/', "rev", 2, 6}},
		{"a chip ends the name", "/rev|\uFFFC", Plain, &want{'/', "rev", 0, 4}},
		{"an emoji ends the name", "/rev|😀", Plain, &want{'/', "rev", 0, 4}},
		{"a name with a supplementary letter", "/𠀀|", Plain, &want{'/', "𠀀", 0, 3}},
		{"after an emoji and a space", "😀😀 @𠀀x|", Plain, &want{'@', "𠀀x", 5, 9}},
		{"caret on the trigger's far side", "|/rev", Plain, nil},
		{"CJK name", "@李|雷", Plain, &want{'@', "李", 0, 3}},
		// QA round 17 #2: Chinese and Japanese put no space between words.
		{"at right after Han", "看看@|", Plain, &want{'@', "", 2, 3}},
		{"at after Han, a query", "看看@src/m|", Plain, &want{'@', "src/m", 2, 8}},
		{"at after hiragana", "これを@RE|", Plain, &want{'@', "RE", 3, 6}},
		{"at after katakana", "ファイル@|", Plain, &want{'@', "", 4, 5}},
		{"at after hangul", "파일@|", Plain, &want{'@', "", 2, 3}},
		{"at after a CJK comma", "看看，@a|", Plain, &want{'@', "a", 3, 5}},
		{"at after a fullwidth colon", "文件：@a|", Plain, &want{'@', "a", 3, 5}},
		{"at after an ideographic full stop", "好。@a|", Plain, &want{'@', "a", 2, 4}},
		{"at after an Ext-B ideograph", "𠀀@|", Plain, &want{'@', "", 2, 3}},
		{"at after halfwidth katakana", "ﾌｧｲﾙ@|", Plain, &want{'@', "", 4, 5}},
		{"slash after Han stays text", "是/否|", Plain, nil},
		{"e-mail after Han", "看看me@example.com|", Plain, nil},
		{"at after a fullwidth Latin letter", "ｍｅ@x|", Plain, nil},
		{"at after a fullwidth digit", "１@x|", Plain, nil},
		{"at after an accented Latin letter", "café@x|", Plain, nil},
		{"at after Cyrillic", "привет@x|", Plain, nil},

		{"path mid-sentence", "see src/a/b|", Plain, nil},
		{"relative path", "./x|", Plain, nil},
		{"home path", "~/x|", Plain, nil},
		{"fraction mid-sentence", "take 1/2|", Plain, nil},
		{"fraction with a name after it", "1/2x|", Plain, nil},
		{"mailto", "mailto:bob@x.org|", Plain, nil},
		{"e-mail at the caret's left", "bob@x|.org", Plain, nil},
		{"double at", "@@x|", Plain, nil},
		{"at glued after a name", "x @a@b|", Plain, nil},
		{"CJK is not a boundary", "中/rev|", Plain, nil},
		{"ZWSP is not a boundary", "\u200b/rev|", Plain, nil},
		{"quote is not a boundary", "\"/rev|", Plain, nil},
		{"URL with a port", "http://host:80/p|", Plain, nil},
		{"URL after a space", "see http://a.b/|", Plain, nil},

		{"x/name", "x/name|", Plain, nil},
		{"path", "src/a/b|", Plain, nil},
		{"absolute path second segment", "/src/a|", Plain, nil},
		{"absolute path just after the second slash", "/src/|", Plain, nil},
		{"fraction", "1/2|", Plain, nil},
		{"user@host", "user@host|", Plain, nil},
		{"e-mail", "mail bob@example.com|", Plain, nil},
		{"URL", "see https://example.com/path|", Plain, nil},
		{"URL scheme slashes", "http://|", Plain, nil},
		{"double slash", "//|", Plain, nil},
		{"punctuation is not a boundary", "(/rev|", Plain, nil},
		{"a chip is not a boundary", "\uFFFC/rev|", Plain, nil},
		{"name continued by an address", "/rev|@x", Plain, nil},
		{"name continued by a path", "/sr|c/a", Plain, nil},
		{"caret after the space", "/rev |", Plain, nil},
		{"no trigger", "hello|", Plain, nil},
		{"empty draft", "|", Plain, nil},

		// An `@` query is a path from the workspace: '/' goes on with it (a `/` command only
		// starts a word), so `@src/ma` narrows to src/main.go and a pick replaces the whole path.
		{"at path", "see @src/main|", Plain, &want{'@', "src/main", 4, 13}},
		{"at path, a folder's trailing slash", "@src/|", Plain, &want{'@', "src/", 0, 5}},
		{"at path, nested folders", "@a/b-c/d_e/f.go|", Plain, &want{'@', "a/b-c/d_e/f.go", 0, 15}},
		{"at path, dotted segments", "@.github/workflows/ci.yml|", Plain, &want{'@', ".github/workflows/ci.yml", 0, 25}},
		// A leading "./" is the workspace itself: dropped from the query, kept in the span.
		{"at path, relative to here", "@./src|", Plain, &want{'@', "src", 0, 6}},
		{"at path, relative to here, just the dot slash", "@./|", Plain, &want{'@', "", 0, 3}},
		{"at path, relative to here, twice", "@././src/a|", Plain, &want{'@', "src/a", 0, 10}},
		{"at path, dot slash slash", "@.//src|", Plain, &want{'@', "src", 0, 7}},
		{"at path, a dot alone stays", "@.|", Plain, &want{'@', ".", 0, 2}},
		{"at path, a dot folder stays", "@.github/ci|", Plain, &want{'@', ".github/ci", 0, 11}},
		{"at path, up a folder stays", "@../x|", Plain, &want{'@', "../x", 0, 5}},
		{"at path, relative to here mid-sentence", "see @./src/ma|in.go", Plain, &want{'@', "src/ma", 4, 18}},
		{"at path, caret in the first segment spans the whole path", "@sr|c/main.go", Plain, &want{'@', "sr", 0, 12}},
		{"at path, caret just after the slash", "@src/|main.go", Plain, &want{'@', "src/", 0, 12}},
		{"at path, caret on the trigger's far side", "@|src/a", Plain, &want{'@', "", 0, 6}},
		{"at path, non-ASCII segments", "@文档/说|明.md", Plain, &want{'@', "文档/说", 0, 9}},
		{"at path, a space ends it", "@notes| file.txt", Plain, &want{'@', "notes", 0, 6}},
		{"at path after a space in a claimed draft", "/rev @src/a|", Claimed, &want{'@', "src/a", 5, 11}},
		{"at path, the caret after the space", "@src/a |", Plain, nil},
		{"at path continued by an address", "@src/a|@b", Plain, nil},
		{"at a path from the root", "@/etc|", Plain, nil},
		{"at a path from the root, caret after the at", "@|/etc", Plain, nil},
		{"at a bare slash", "@/|", Plain, nil},
		{"at glued to a path", "src/@a/b|", Plain, nil},
		{"a slash path still is no command", "see /src/main|", Plain, nil},
		{"e-mail with a path after it", "bob@x/y|", Plain, nil},

		{"claimed suppresses slash", "/rev|", Claimed, nil},
		{"claimed keeps at live", "/rev @al|", Claimed, &want{'@', "al", 5, 8}},
		{"frozen: no at", "@al|", Frozen, nil},
		{"frozen: no slash", "/rev|", Frozen, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			draft, caret := fixture(tt.draft)
			got, ok := Detect(draft, caret, tt.tier)
			if tt.want == nil {
				assert.False(t, ok, "got %+v", got)
				return
			}
			assert.True(t, ok)
			assert.Equal(t, Hit{Trigger: tt.want.trigger, Query: tt.want.query,
				Span: input.Span{Start: tt.want.start, End: tt.want.end}}, got)
		})
	}
}

func TestHitLeads(t *testing.T) {
	for _, tt := range []struct {
		draft string
		leads bool
	}{
		{"/exa|", true},
		{"/exa|mple more", true},
		{"hello /exa|", false},
		{"hello\n/exa|", false}, // a line's start is not the prompt's
		// Only white space before it: the server's door reads a command there too
		// (protocol.ResolveCommand), so the menu offers commands, and a pick replaces the
		// white space with the command.
		{"  /exa|", true},
		{"\n/exa|", true},
		{" \t\n /exa|", true},
		{"  @al|", false},
		{"@al|", true},
	} {
		draft, caret := fixture(tt.draft)
		h, ok := Detect(draft, caret, Plain)
		if assert.True(t, ok, tt.draft) {
			assert.Equal(t, tt.leads, h.Leads(), tt.draft)
			if tt.leads {
				assert.Equal(t, 0, h.Span.Start, "%q: a pick starts the draft", tt.draft)
			}
		}
	}
	// A protocol.ResolveCommand reads a command wherever Leads says one leads.
	for _, d := range []string{"  /help", "\n/help", " \t\n /help"} {
		_, ok := protocol.ResolveCommand(d)
		assert.True(t, ok, "%q", d)
	}
}

func TestDetectCaretOutOfRange(t *testing.T) {
	got, ok := Detect("/rev", 99, Plain)
	assert.True(t, ok, "a caret past the end clamps to the end")
	assert.Equal(t, input.Span{Start: 0, End: 4}, got.Span)
	_, ok = Detect("/rev", -1, Plain)
	assert.False(t, ok)
	// Inside a surrogate pair: rounds down to the emoji's start, right after the trigger.
	got, ok = Detect("/😀", 2, Plain)
	assert.True(t, ok)
	assert.Equal(t, input.Span{Start: 0, End: 1}, got.Span)
}

func TestTierString(t *testing.T) {
	assert.Equal(t, "plain", Plain.String())
	assert.Equal(t, "claimed", Claimed.String())
	assert.Equal(t, "frozen", Frozen.String())
	assert.Equal(t, "Tier(9)", Tier(9).String())
}
