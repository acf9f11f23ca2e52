package i18n

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"parley/protocol"
)

// TestExampleUsageInTheLocale: /example's usage and "no such example" carry the workspace's
// examples as arguments, and the page writes their heading in its locale; the English is what
// the server wrote before (the heading, a bullet per example), and an older server's single
// argument still shows as it was.
func TestExampleUsageInTheLocale(t *testing.T) {
	ex := []string{"/example hello [json-vars]", "Say hello", "/example deploy [json-vars]", "Deploy it"}
	list := "Examples:\n• /example hello [json-vars]: Say hello\n• /example deploy [json-vars]: Deploy it\n"
	zhList := "示例：\n• /example hello [json-vars]: Say hello\n• /example deploy [json-vars]: Deploy it\n"
	for _, tt := range []struct {
		code   string
		args   []string
		en, zh string
	}{
		{PhraseCodeExampleUsage, ex, "Usage: /example <slug> [json-vars].\n\n" + list, "用法：/example <名称> [JSON 变量]。\n\n" + zhList},
		{PhraseCodeExampleUsage, nil, "Usage: /example <slug> [json-vars].\n\nThere are no examples.", "用法：/example <名称> [JSON 变量]。\n\n没有示例。"},
		{PhraseCodeNoExample, append([]string{"nope"}, ex...), "There is no example \"nope\".\n\n" + list, "没有示例 \"nope\"。\n\n" + zhList},
		{PhraseCodeNoExample, []string{"nope"}, "There is no example \"nope\".\n\nThere are no examples.", "没有示例 \"nope\"。\n\n没有示例。"},
		{PhraseCodeNoExample, []string{"nope", list}, "There is no example \"nope\".\n\n" + list, "没有示例 \"nope\"。\n\n" + list}, // an older server's
	} {
		for l, want := range map[Locale]string{English: tt.en, Chinese: tt.zh} {
			if got, ok := l.Phrase(tt.code, tt.args); !ok || got != want {
				t.Errorf("%s %s %q = %q, want %q", l.Tag(), tt.code, tt.args, got, want)
			}
		}
	}
}

// TestMCPStatusInTheLocale: /mcp's status of a server is Parley's word, said in the page's
// locale; an unknown status (a newer server's) shows as it is.
func TestMCPStatusInTheLocale(t *testing.T) {
	for _, st := range []protocol.MCPStatus{protocol.MCPStarting, protocol.MCPReady, protocol.MCPFailed, protocol.MCPCrashed, protocol.MCPStopped} {
		args := []string{"mcp_server", "4", "docs", string(st), "stdio", "docs-server"}
		zh, ok := Chinese.Phrase(PhraseCodeParts, args)
		if !ok || strings.Contains(zh, string(st)) || !strings.Contains(zh, Chinese.MCPStatus(string(st))) {
			t.Errorf("%s in Chinese: %q", st, zh)
		}
		if en, _ := English.Phrase(PhraseCodeParts, args); en != "\n• docs — "+string(st)+" (stdio: docs-server)" {
			t.Errorf("%s in English: %q", st, en)
		}
	}
	if got := Chinese.MCPStatus("sleeping"); got != "sleeping" {
		t.Errorf("an unknown status reads %q", got)
	}
}

// TestAListCutShortInTheLocale: a check naming the first choices of a long list ends in
// ", … (N in all)", which reads in the locale.
func TestAListCutShortInTheLocale(t *testing.T) {
	var enum []string
	for i := range 12 {
		enum = append(enum, fmt.Sprintf("c%d", i))
	}
	closed := false
	one := &protocol.Schema{Type: "string", Enum: enum, AllowOther: &closed}
	picks := &protocol.Schema{Type: "array", Items: &protocol.ItemsSchema{Type: "string", Enum: enum}}
	first := "c0, c1, c2, c3, c4, c5, c6, c7, c8, c9"
	for _, tt := range []struct {
		schema *protocol.Schema
		answer string
		zh     string
	}{
		{one, `"z"`, "必须是以下之一：" + first + "，…（共 12 项）"},
		{picks, `["z"]`, `"z" 不在以下选项中：` + first + "，…（共 12 项）"},
		{picks, `[1]`, "必须是从以下选项中选出的一组：" + first + "，…（共 12 项）"},
	} {
		msg := ""
		if verr, ok := tt.schema.ValidateContent(json.RawMessage(tt.answer)).(*protocol.ValidationError); ok {
			for _, m := range verr.Fields {
				msg = m
			}
		}
		if !strings.Contains(msg, "(12 in all)") {
			t.Fatalf("the check reads %q", msg)
		}
		if got := Chinese.Check(msg); got != tt.zh {
			t.Errorf("%q in Chinese: %q, want %q", msg, got, tt.zh)
		}
		if got := English.Check(msg); got != msg {
			t.Errorf("%q in English: %q", msg, got)
		}
	}
}

// TestALateReplyInTheLocale: a reply to a decision that had ended says how it ended, in the
// page's locale (the server's words for each way, runtime/decision's AlreadyEndedError);
// other words of the same code keep the code's message.
func TestALateReplyInTheLocale(t *testing.T) {
	for _, tt := range []struct{ how, zh string }{
		{"answered", "这个问题已经回答过了；没有做任何改动"},
		{"declined", "这个问题已经被拒绝了；没有做任何改动"},
		{"timed out (no answer in time)", "这个问题已经超时（没有及时回答）；没有做任何改动"},
		{"ended: its turn was stopped", "这个问题已经结束：它所在的这一轮被停止了；没有做任何改动"},
		{"ended: the server restarted before it was answered", "这个问题已经结束：服务器在回答之前重启了；没有做任何改动"},
		{"withdrawn: it is no longer needed", "这个问题已经撤回：已不再需要它；没有做任何改动"},
	} {
		text := "this question was already " + tt.how + "; nothing was changed"
		if got := Chinese.Error("already_answered", text); got != tt.zh {
			t.Errorf("%q in Chinese: %q, want %q", text, got, tt.zh)
		}
		if got := English.Error("already_answered", text); got != text {
			t.Errorf("%q in English: %q", text, got)
		}
	}
	if got := Chinese.Error("already_answered", "this question was already answered"); got != Chinese.T(ErrAlreadyAnswered) {
		t.Errorf("other words of the code: %q", got)
	}
}

// TestAnAnswerNotTheServersInTheLocale: an answer with no JSON of the server's (a proxy's
// 429 or 502) is worded by its status; the edge's and the store's codes have their words.
func TestAnAnswerNotTheServersInTheLocale(t *testing.T) {
	for _, tt := range []struct{ code, text, zh string }{
		{"", "the server answered 429 Too Many Requests", "请求太多（429）：请稍等片刻再试"},
		{"", "the server answered 502 Bad Gateway", "服务器返回了错误 502"},
		{"", "the server answered nothing", "the server answered nothing"},
		{"unavailable", "Parley's event store did not answer in time, so this was not confirmed: retry in a moment. A retried prompt (same attempt id) or reply is stored once", "Parley 的事件存储没有及时回答，所以这没有被确认：请稍后重试"},
		{"upstream_unreachable", "the Parley runtime behind this server is not reachable; it may be restarting: try again in a moment", "无法连接这台服务器后面的 Parley 运行时；它可能正在重启：请稍后再试"},
		{"too_large", "request body larger than 1024 KiB", "请求太大"},
	} {
		if got := Chinese.Error(tt.code, tt.text); got != tt.zh {
			t.Errorf("%s %q in Chinese: %q, want %q", tt.code, tt.text, got, tt.zh)
		}
		if got := English.Error(tt.code, tt.text); got != tt.text {
			t.Errorf("%s %q in English: %q", tt.code, tt.text, got)
		}
	}
}
