package i18n

import (
	"strings"
	"testing"

	"parley/protocol"
)

// TestServerPhrases: the server's fixed words by their codes, in both locales; a code with
// the server's own words after it; an unknown code keeps the server's text.
func TestServerPhrases(t *testing.T) {
	for _, tt := range []struct {
		p      protocol.Phrase
		en, zh string
	}{
		{protocol.Phrase{Code: "gate_ask_run", Args: []string{"git"}}, "Allow running git?", "允许运行 git 吗？"},
		{protocol.Phrase{Code: "gate_ask_batch", Args: []string{"3"}}, "Allow these 3 requests?", "允许这 3 个请求吗？"},
		{protocol.Phrase{Code: "gate_reject"}, "Reject", "拒绝"},
		{protocol.Phrase{Code: "reach_exact"}, "Approve, and always for this command", "批准，并且以后这条命令都允许"},
		{protocol.Phrase{Code: "reach_writes_in", Args: []string{"notes"}}, "Approve, and always for writes in notes/", "批准，并且以后写入 notes/ 都允许"},
		{protocol.Phrase{Code: "model_no_conn", Args: []string{"http://m/v1"}},
			"The model server at http://m/v1 cannot be reached (connection refused): is it running? Start it, then send your prompt again.",
			"无法连接 http://m/v1 的模型服务器（连接被拒绝）：它在运行吗？启动它，然后再次发送提示。"},
		{Said(protocol.Phrase{Code: "model_failed_5xx", Args: []string{"http://m/v1", "502"}}, "bad gateway"),
			"The model server at http://m/v1 failed (502). Send your prompt again to retry. The server said: “bad gateway”",
			"http://m/v1 的模型服务器出错了（502）。再次发送提示即可重试。服务器说：“bad gateway”"},
		{Said(protocol.Phrase{Code: "model_refused", Args: []string{"u", "400"}}, " "), "The model server at u refused the request (400).", "u 的模型服务器拒绝了请求（400）。"},
		{protocol.Phrase{Code: "prompt_nul", Args: []string{"5"}},
			"the prompt holds a NUL byte (U+0000) at byte 5: remove it (it often comes with text pasted from a binary file)",
			"提示在第 5 字节处含有 NUL 字节（U+0000）：请删除它（它常随从二进制文件粘贴的文本而来）"},
		{protocol.Phrase{Code: "cmd_no_example", Args: []string{"nope", "Examples:"}}, "There is no example \"nope\".\n\nExamples:", "没有示例 \"nope\"。\n\nExamples:"},
	} {
		for l, want := range map[Locale]string{English: tt.en, Chinese: tt.zh} {
			got, ok := l.Phrase(tt.p.Code, tt.p.Args)
			if !ok || got != want {
				t.Errorf("%s %v = %q, %v; want %q", l.Tag(), tt.p, got, ok, want)
			}
		}
	}
	if got := Chinese.Say(&protocol.Phrase{Code: "from_a_newer_server"}, "Its own words"); got != "Its own words" {
		t.Errorf("an unknown code says %q, want the server's text", got)
	}
	if got := Chinese.Say(&protocol.Phrase{Code: "model_failed+said"}, "Its own words"); got != "Its own words" {
		t.Errorf("a said code without its words says %q, want the server's text", got)
	}
	if got := Chinese.Say(nil, "plain"); got != "plain" {
		t.Errorf("no phrase says %q", got)
	}
}

// TestEveryServerCodeHasWords: every code the server may write words in both locales.
func TestEveryServerCodeHasWords(t *testing.T) {
	for code := range serverPhrases {
		if _, ok := Chinese.Phrase(code, []string{"a", "b", "c"}); !ok {
			t.Errorf("code %s has no words", code)
		}
	}
	for code, m := range reaches {
		en, _ := English.Reach(protocol.Phrase{Code: code, Args: []string{"a", "b"}})
		if !strings.HasPrefix(en, "always for") || m == 0 {
			t.Errorf("reach %s reads %q", code, en)
		}
	}
}

// TestRequestInTheLocale: the gate's question and options in Chinese; another asker's words,
// and a code this page does not know, as written; the request passed in is not changed.
func TestRequestInTheLocale(t *testing.T) {
	req := protocol.DecisionRequest{Kind: protocol.KindApproval, Message: "Allow running git?",
		Phrase: &protocol.Phrase{Code: "gate_ask_run", Args: []string{"git"}},
		Options: []protocol.ApprovalOption{
			{Value: "allow", Label: "Approve", Phrase: &protocol.Phrase{Code: "gate_approve"}},
			{Value: "allow", Label: "Approve, and always for git status on any files", Phrase: &protocol.Phrase{Code: "reach_prefix", Args: []string{"git status"}},
				Description: "git status naming other files or packages in the workspace; options still ask",
				DescPhrase:  &protocol.Phrase{Code: "reach_prefix_desc", Args: []string{"git status"}}},
			{Value: "x", Label: "Ship it"},
			{Value: "y", Label: "Newer", Phrase: &protocol.Phrase{Code: "gate_newer"}},
		}}
	got := Chinese.Request(req)
	want := []string{"批准", "批准，并且以后 git status 用于任何文件都允许", "Ship it", "Newer"}
	if got.Message != "允许运行 git 吗？" {
		t.Errorf("message %q", got.Message)
	}
	for i, w := range want {
		if got.Options[i].Label != w {
			t.Errorf("option %d: %q, want %q", i, got.Options[i].Label, w)
		}
	}
	if got.Options[1].Description != "git status 指向工作区里的其他文件或包；带选项时仍会询问" {
		t.Errorf("description %q", got.Options[1].Description)
	}
	if req.Options[0].Label != "Approve" || req.Message != "Allow running git?" {
		t.Error("the request passed in was changed")
	}
	if en := English.Request(req); en.Message != req.Message || en.Options[1].Label != req.Options[1].Label || en.Options[1].Description != req.Options[1].Description {
		t.Errorf("English rewords the server's English: %+v", en)
	}
}

// TestScopeInTheLocale: a grant's reach; English is protocol.DescribeScope's.
func TestScopeInTheLocale(t *testing.T) {
	for _, tt := range []struct {
		s  protocol.GrantScope
		zh string
	}{
		{protocol.GrantScope{Kind: protocol.GrantTool, Tool: "run"}, "任何 run 调用"},
		{protocol.GrantScope{Kind: protocol.GrantExact, Tool: "mcp", Words: []string{"files", "list"}}, "MCP 服务器 files 的 list"},
		{protocol.GrantScope{Kind: protocol.GrantPrefix, Tool: "write", Words: []string{"notes", "a"}}, "在 notes/a/ 中写入"},
		{protocol.GrantScope{Kind: protocol.GrantPrefix, Tool: "read", Words: []string{"src"}}, "在 src/ 中读取"},
		{protocol.GrantScope{Kind: protocol.GrantPrefix, Tool: "run", Words: []string{"git", "status"}}, "git status …"},
		{protocol.GrantScope{Kind: protocol.GrantExact, Tool: "write", Words: []string{"a.md"}}, "写入 a.md"},
		{protocol.GrantScope{Kind: protocol.GrantExact, Tool: "read", Words: []string{"b", "c.md"}}, "读取 b/c.md"},
		{protocol.GrantScope{Kind: protocol.GrantExact, Tool: "run", Words: []string{"echo", "hi"}}, "echo hi"},
	} {
		if got, want := English.Scope(tt.s), protocol.DescribeScope(tt.s); got != want {
			t.Errorf("English %+v = %q, DescribeScope %q", tt.s, got, want)
		}
		if got := Chinese.Scope(tt.s); got != tt.zh {
			t.Errorf("Chinese %+v = %q, want %q", tt.s, got, tt.zh)
		}
	}
}

// TestValidationPhrases: each field message the protocol words with a code is the
// catalogue's English, so the page's words never drift from the server's; in Chinese the
// fields read in Chinese and a field without a code keeps the server's words.
func TestValidationPhrases(t *testing.T) {
	big := strings.Repeat("x", protocol.MaxPromptBytes+1)
	schema := &protocol.Schema{Type: "object", Properties: protocol.Properties{{Key: "name", Schema: &protocol.Schema{Type: "string"}}}, Required: []string{"name"}}
	for _, tt := range []struct {
		name string
		err  error
		zh   map[string]string
	}{
		{"empty", protocol.SendPromptRequest{Text: " ", AttemptID: "a"}.Validate(), map[string]string{"text": "提示是空的"}},
		{"NUL", protocol.SendPromptRequest{Text: "ab\x00", AttemptID: "a"}.Validate(), map[string]string{"text": "提示在第 2 字节处含有 NUL 字节（U+0000）：请删除它（它常随从二进制文件粘贴的文本而来）"}},
		{"oversize", protocol.SendPromptRequest{Text: big, AttemptID: "a"}.Validate(), map[string]string{"text": "提示有 129 KiB，上限是 128 KiB"}},
		{"not UTF-8", protocol.SendPromptRequest{Text: "\xff", AttemptID: "a"}.Validate(), map[string]string{"text": "提示不是有效的 UTF-8"}},
		{"uncoded field kept", protocol.SendPromptRequest{Text: "hi", AttemptID: "a b"}.Validate(), map[string]string{"attemptId": "use only letters, digits, '-' and '_'"}},
		{"required", schema.ValidateContent([]byte(`{}`)), map[string]string{"name": "必须回答"}},
		{"not a question, twice", schema.ValidateContent([]byte(`{"name":"a","name":"b","x":1}`)), map[string]string{"name": "回答了两次", "x": "不是这个表单里的问题"}},
		{"not JSON", (&protocol.Schema{Type: "string"}).ValidateContent([]byte(`{`)), map[string]string{"content": "不是有效的 JSON"}},
	} {
		verr, ok := tt.err.(*protocol.ValidationError)
		if !ok {
			t.Fatalf("%s: %v is not a validation error", tt.name, tt.err)
		}
		for field, p := range verr.Phrases {
			if en, _ := English.Phrase(p.Code, p.Args); en != verr.Fields[field] {
				t.Errorf("%s: %s's English %q, the protocol's %q", tt.name, field, en, verr.Fields[field])
			}
		}
		got := Chinese.FieldsIn(verr.Fields, verr.Phrases)
		for field, want := range tt.zh {
			if got[field] != want {
				t.Errorf("%s: %s = %q, want %q", tt.name, field, got[field], want)
			}
		}
		if strings.Contains(tt.err.Error(), "\x00text") || len(verr.Fields) != len(got) {
			t.Errorf("%s: the phrases leaked into the fields: %q", tt.name, tt.err)
		}
	}
}
