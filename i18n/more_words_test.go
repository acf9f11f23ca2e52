package i18n

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"parley/protocol"
)

// hasHan says s holds a Chinese character.
func hasHan(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
}

// TestSchemaChecksInTheLocale: every check of an answer against its question's schema (the
// protocol's English) is found in the catalogue with its arguments, reads the same in
// English and in Chinese words of its own; every check of the catalogue is met by one of
// these answers (a check left without a case fails), and a message no format explains is
// kept as it is.
func TestSchemaChecksInTheLocale(t *testing.T) {
	num := func(x float64) *float64 { return &x }
	n := func(x int) *int { return &x }
	closed := false
	choices := &protocol.Schema{Type: "string", Enum: []string{"a", "b"}, AllowOther: &closed}
	open := &protocol.Schema{Type: "string", Enum: []string{"a", "b"}}
	picks := &protocol.Schema{Type: "array", Items: &protocol.ItemsSchema{Type: "string", Enum: []string{"a", "b", "c"}}, MinItems: n(2), MaxItems: n(2)}
	form := &protocol.Schema{Type: "object", Properties: protocol.Properties{{Key: "x", Schema: &protocol.Schema{Type: "string"}}}}
	seen := map[Msg]bool{}
	defer func() {
		for m := ValMustText; m <= ValNoQuestionHere; m++ {
			if !seen[m] && m != ValOtherBlank {
				t.Errorf("the check %q has no case", catalogue[m][English])
			}
		}
	}()
	for _, tt := range []struct {
		code   string
		schema *protocol.Schema
		answer string
		zh     string
	}{
		{"must_text", &protocol.Schema{Type: "string"}, `1`, "必须是文字"},
		{"chars_min", &protocol.Schema{Type: "string", MinLength: n(3)}, `"ab"`, "至少要 3 个字符"},
		{"chars_max", &protocol.Schema{Type: "string", MaxLength: n(1)}, `"ab"`, "最多 1 个字符"},
		{"must_email", &protocol.Schema{Type: "string", Format: "email"}, `"nope"`, "必须是电子邮件地址，例如 name@example.com"},
		{"must_uri", &protocol.Schema{Type: "string", Format: "uri"}, `"nope"`, "必须是链接，例如 https://example.com/page"},
		{"must_date", &protocol.Schema{Type: "string", Format: "date"}, `"2026-02-30"`, "必须是日期，例如 2026-11-30"},
		{"must_datetime", &protocol.Schema{Type: "string", Format: "date-time"}, `"today"`, "必须是日期和时间，例如 2026-11-30T14:00:00Z"},
		{"must_whole", &protocol.Schema{Type: "integer"}, `1.5`, "必须是整数"},
		{"must_number", &protocol.Schema{Type: "number"}, `"x"`, "必须是数字"},
		{"must_between", &protocol.Schema{Type: "integer"}, `99999999999999999999`, "必须在 -9007199254740991 和 9007199254740991 之间"},
		{"too_large_number", &protocol.Schema{Type: "number"}, `1e999`, "数字太大了"},
		{"at_least", &protocol.Schema{Type: "integer", Minimum: num(1)}, `0`, "不能小于 1"},
		{"at_most", &protocol.Schema{Type: "integer", Maximum: num(5)}, `9`, "不能大于 5"},
		{"must_bool", &protocol.Schema{Type: "boolean"}, `"yes"`, "必须是 true 或 false"},
		{"one_of", choices, `"z"`, "必须是以下之一：a, b"},
		{"one_of_own", open, `3`, "必须是以下之一：a, b，或你自己的文字"},
		{"chars_max", open, `"` + strings.Repeat("z", protocol.MaxOtherChars+1) + `"`, ""},
		{"picks_list", picks, `"a"`, "必须是一组选项"},
		{"picks_from", picks, `[1]`, "必须是从以下选项中选出的一组：a, b, c"},
		{"not_one_of", picks, `["z"]`, `"z" 不在以下选项中：a, b, c`},
		{"picks_twice", picks, `["a","a"]`, `"a" 选了两次`},
		{"pick_min", picks, `["a"]`, "至少选 2 项"},
		{"pick_max", picks, `["a","b","c"]`, "最多选 2 项"},
		{"required", &protocol.Schema{Type: "string"}, `"  "`, "必须回答"},
		{"form_in_form", &protocol.Schema{Type: "object", Properties: protocol.Properties{{Key: "x", Schema: form}}}, `{"x":{}}`, "无法回答：不支持表单里的表单"},
		{"no_schema", &protocol.Schema{Type: "object", Properties: protocol.Properties{{Key: "x"}}}, `{"x":"a"}`, "无法回答：这个问题没有模式"},
		{"form_object", form, `null`, "必须回答：请用以问题为键的对象回答"},
		{"no_question_here", nil, `1`, "没有要回答的问题"},
	} {
		err := tt.schema.ValidateContent(json.RawMessage(tt.answer))
		verr, ok := err.(*protocol.ValidationError)
		if !ok || len(verr.Fields) != 1 {
			t.Errorf("%s %s: %v is not one field's error", tt.code, tt.answer, err)
			continue
		}
		for _, msg := range verr.Fields {
			m, _, ok := checkOf(msg)
			if !ok {
				t.Errorf("%s: %q is not found", tt.code, msg)
			}
			seen[m] = true
			if en := English.Check(msg); en != msg {
				t.Errorf("%s: English %q, the protocol's %q", tt.code, en, msg)
			}
			zh := Chinese.Check(msg)
			if tt.zh != "" && zh != tt.zh || !hasHan(zh) {
				t.Errorf("%s %s: Chinese %q, want %q", tt.code, tt.answer, zh, tt.zh)
			}
		}
	}
	for _, msg := range []string{"must be at least", "must be one of: ", "use only letters, digits, '-' and '_'", `"z is not one of: a`} {
		if got := Chinese.Check(msg); got != msg {
			t.Errorf("%q is worded %q", msg, got)
		}
	}
}

// TestTheFormsOwnChecksInTheLocale: the checks a form makes itself (an Other chosen and left
// empty, a date or number its input cannot read) are worded in Chinese by their English, as
// the protocol's are.
func TestTheFormsOwnChecksInTheLocale(t *testing.T) {
	for m := ValOtherBlank; m < ValMustText; m++ {
		if got, want := Chinese.Check(English.T(m)), Chinese.T(m); got != want || !hasHan(got) {
			t.Errorf("%q: Chinese %q, want %q", English.T(m), got, want)
		}
	}
}

// TestEnglishOneForms: a count of one reads in English's one form, from a string argument
// too (a phrase's, a check's); Chinese has one form.
func TestEnglishOneForms(t *testing.T) {
	one, two, zh := English.T(ValCharsMin, "1"), English.T(ValCharsMin, "2"), Chinese.T(ValCharsMin, "1")
	if one != "must be at least 1 character" || two != "must be at least 2 characters" || zh != "至少要 1 个字符" {
		t.Errorf("one %q, two %q, zh %q", one, two, zh)
	}
}

// TestHelpPhrase: /help in both locales, the workspace's examples and functions as they are,
// a function that cannot run and an empty workspace in each locale's words.
func TestHelpPhrase(t *testing.T) {
	args := []string{"e", "/example hello", "Say hello", "f", "greet", "Greet someone", "x", "broken", "line 3: bad"}
	en, ok := English.Phrase(PhraseCodeHelp, args)
	want := "Commands:\n" +
		"• /help: List the commands and the examples.\n" +
		"• /example <slug> [json-vars]: Run an example from the catalogue, with optional JSON variables.\n" +
		"• /script <code>: Run Starlark code in the workspace's sandbox.\n" +
		"  A script can call send(text), ask(message, schema), confirm(message), run(argv), run_batch([argv, …]), read(path), list(dir) and write(path, text); run, run_batch and write wait for your approval or a grant.\n" +
		"• /mcp [reconnect [server]]: List the workspace's MCP servers with their status and tools, or start one again.\n" +
		"\nExamples:\n• /example hello: Say hello\n" +
		"\nFunctions (run one with the composer's ƒ Functions button, or pick it in the / menu; a form asks for its parameters):\n" +
		"• greet: Greet someone\n• broken: cannot run: line 3: bad\n" +
		"\nAny other text, including other /words, goes to the agent."
	if !ok || en != want {
		t.Errorf("English /help:\n%s\nwant:\n%s", en, want)
	}
	for _, c := range protocol.Commands {
		if English.CommandDesc(c.Name, "") != c.Description {
			t.Errorf("/%s: the catalogue's %q, the protocol's %q", c.Name, English.CommandDesc(c.Name, ""), c.Description)
		}
	}
	zh, _ := Chinese.Phrase(PhraseCodeHelp, args)
	for _, s := range []string{"命令：", "列出命令和示例。", "脚本可以调用 send(text)", "示例：\n• /example hello: Say hello", "• broken: 无法运行：line 3: bad", "其他任何文字"} {
		if !strings.Contains(zh, s) {
			t.Errorf("Chinese /help has no %q:\n%s", s, zh)
		}
	}
	empty, _ := Chinese.Phrase(PhraseCodeHelp, nil)
	if !strings.Contains(empty, "没有示例。") || !strings.Contains(empty, "没有函数。") || strings.Contains(empty, "示例：") {
		t.Errorf("Chinese /help of an empty workspace:\n%s", empty)
	}
	if got := Chinese.CommandDesc("deploy", "Ship it"); got != "Ship it" {
		t.Errorf("another command's description %q", got)
	}
}

// TestMorePhrases: the history's answers and reasons, a turn's failures, a run's notes and
// the MCP notices, in both locales, their arguments in place.
func TestMorePhrases(t *testing.T) {
	for _, tt := range []struct {
		p      protocol.Phrase
		en, zh string
	}{
		{protocol.Phrase{Code: "hist_approved_n_of_m", Args: []string{"2", "3"}}, "Approved 2 of 3", "批准了 3 个中的 2 个"},
		{protocol.Phrase{Code: "hist_rejected_each"}, "Rejected all, one by one", "逐个全部拒绝"},
		{protocol.Phrase{Code: "hist_approved_n_of_m_why", Args: []string{"1", "2", "no date please"}}, "Approved 1 of 2; the others rejected: no date please", "批准了 2 个中的 1 个；其余的已拒绝：no date please"},
		{protocol.Phrase{Code: "abort_orphaned"}, "the server restarted before it was answered", "服务器在回答之前重启了"},
		{protocol.Phrase{Code: "agent_tools_wrong", Args: []string{"3"}}, "The model called tools wrongly 3 times in a row (an unknown tool, or arguments that are not JSON), so the turn ended. A larger model, or one made for tool calls, may do better.",
			"模型连续 3 次错误地调用工具（未知的工具，或不是 JSON 的参数），所以这一轮结束了。更大的模型，或专为工具调用而做的模型，可能会更好。"},
		{protocol.Phrase{Code: "agent_no_record_calls", Args: []string{"nats: timeout"}}, "The agent could not record its tool calls, so none ran: nats: timeout", "智能体无法记录它的工具调用，所以一个也没有运行：nats: timeout"},
		{protocol.Phrase{Code: "mcp_bad_link", Args: []string{"docs", "file:///etc"}}, "The MCP server docs asked to open a link that is not an http or https URL, so it was declined: file:///etc",
			"MCP 服务器 docs 要求打开一个不是 http 或 https 的链接，所以被拒绝了：file:///etc"},
	} {
		for l, want := range map[Locale]string{English: tt.en, Chinese: tt.zh} {
			if got, ok := l.Phrase(tt.p.Code, tt.p.Args); !ok || got != want {
				t.Errorf("%s %v = %q, %v; want %q", l.Tag(), tt.p, got, ok, want)
			}
		}
	}
	// Every message of this block has Chinese words (or punctuation) of its own.
	for i := 0; i+2 < len(moreWords); i += 3 {
		if zh := moreWords[i+2]; zh == moreWords[i+1] || !hasHan(zh) && !strings.ContainsAny(zh, "（：。") {
			t.Errorf("%q has no Chinese: %q", moreWords[i+1], zh)
		}
	}
}

// TestPartsPhrase: /mcp's answer line by line in both locales, the servers' words as they
// are; a line of an unknown code, or a count past the end, makes the phrase unknown.
func TestPartsPhrase(t *testing.T) {
	args := []string{"mcp_reconnected", "1", "docs", "mcp_count", "1", "1", "mcp_server", "4", "docs", "ready", "stdio", "docs-server",
		"mcp_tool_ro", "2", "search", "Search the docs", "mcp_from", "1", ".parley/mcp.json"}
	en, ok := English.Phrase(PhraseCodeParts, args)
	want := "Reconnected docs.\n\nMCP servers (1):\n\n• docs — ready (stdio: docs-server)\n  – search (read-only): Search the docs\n  from .parley/mcp.json"
	if !ok || en != want {
		t.Errorf("English /mcp %q, want %q", en, want)
	}
	zh, _ := Chinese.Phrase(PhraseCodeParts, args)
	if want := "已重新连接 docs。\n\nMCP 服务器（1 个）：\n\n• docs — 就绪（stdio：docs-server）\n  – search（只读）：Search the docs\n  来自 .parley/mcp.json"; zh != want {
		t.Errorf("Chinese /mcp %q, want %q", zh, want)
	}
	for _, bad := range [][]string{{"mcp_newer", "0"}, {"mcp_why", "3", "x"}, {"mcp_why"}} {
		if got, ok := Chinese.Phrase(PhraseCodeParts, bad); ok {
			t.Errorf("%q reads %q", bad, got)
		}
	}
}
