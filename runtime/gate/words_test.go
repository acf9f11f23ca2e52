package gate

import (
	"os"
	"path/filepath"
	"testing"

	"parley/i18n"
	"parley/protocol"
)

// TestTheGateSpeaksByPhrases: every question and option the gate words carries its phrase,
// whose English is the text the request holds (what any reader of the log sees), and whose
// Chinese is Chinese; the labels and reaches of an "always" read as before.
func TestTheGateSpeaksByPhrases(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		calls  []ToolCall
		ask    string
		labels []string
		zh     string
	}{
		{[]ToolCall{{Tool: "run", Words: []string{"go", "test", "./..."}, Details: "go test ./..."}}, "Allow running go?",
			[]string{"Approve", "Approve, and always for this command", "Approve, and always for go test on any files", "Reject"}, "允许运行 go 吗？"},
		{[]ToolCall{{Tool: "run", Words: []string{"./build.sh"}, Details: "./build.sh"}}, "Allow running ./build.sh?",
			[]string{"Approve", "Reject"}, "允许运行 ./build.sh 吗？"},
		{[]ToolCall{{Tool: "run", Details: ""}}, "Allow running a command?", []string{"Approve", "Reject"}, "允许运行一条命令吗？"},
		{[]ToolCall{{Tool: "write", Words: []string{"notes", "a.md"}, Details: "notes/a.md"}}, "Allow writing notes/a.md?",
			[]string{"Approve", "Approve, and always for writes in notes/", "Reject"}, "允许写入 notes/a.md 吗？"},
		{[]ToolCall{{Tool: "read", Words: []string{"b.md"}}}, "Allow reading b.md?", []string{"Approve", "Reject"}, "允许读取 b.md 吗？"},
		{[]ToolCall{{Tool: "mcp", Words: []string{"files", "list"}}}, "Allow list of the MCP server files?",
			[]string{"Approve", "Approve, and always for list of files", "Reject"}, "允许使用 MCP 服务器 files 的 list 吗？"},
		{[]ToolCall{{Tool: "mcp", Words: []string{"x"}}}, "Allow an MCP tool?", []string{"Approve", "Reject"}, "允许使用一个 MCP 工具吗？"},
		{[]ToolCall{{Tool: "fetch"}}, "Allow fetch?", []string{"Approve", "Reject"}, "允许 fetch 吗？"},
		{[]ToolCall{{Tool: "run", Words: []string{"ls"}}, {Tool: "write", Words: []string{"a"}}}, "Allow these 2 requests?",
			[]string{"Approve all", "Reject all"}, "允许这 2 个请求吗？"},
	} {
		req := ApprovalRequest(tt.calls, ws)
		if req.Message != tt.ask || req.Phrase == nil {
			t.Errorf("%v: asks %q (phrase %v), want %q", tt.calls, req.Message, req.Phrase, tt.ask)
			continue
		}
		if zh := i18n.Chinese.Request(req); zh.Message != tt.zh {
			t.Errorf("%v: Chinese %q, want %q", tt.calls, zh.Message, tt.zh)
		}
		if len(req.Options) != len(tt.labels) {
			t.Errorf("%v: options %+v, want %q", tt.calls, req.Options, tt.labels)
			continue
		}
		zh := i18n.Chinese.Request(req)
		for i, o := range req.Options {
			en, ok := i18n.English.Phrase(o.Phrase.Code, o.Phrase.Args)
			if o.Label != tt.labels[i] || !ok || en != o.Label {
				t.Errorf("%v: option %d is %q (phrase's English %q), want %q", tt.calls, i, o.Label, en, tt.labels[i])
			}
			if zh.Options[i].Label == o.Label {
				t.Errorf("%v: option %d reads %q in Chinese too", tt.calls, i, o.Label)
			}
			if o.DescPhrase != nil {
				if en, _ := i18n.English.Phrase(o.DescPhrase.Code, o.DescPhrase.Args); en != o.Description {
					t.Errorf("%v: option %d's description %q, its phrase's English %q", tt.calls, i, o.Description, en)
				}
			}
		}
	}
}

// TestAnOldRequestWithoutPhrases: a request logged before phrases (no codes) reads as written.
func TestAnOldRequestWithoutPhrases(t *testing.T) {
	req := protocol.DecisionRequest{Message: "Allow running git?", Options: []protocol.ApprovalOption{{Label: "Approve"}}}
	if zh := i18n.Chinese.Request(req); zh.Message != req.Message || zh.Options[0].Label != "Approve" {
		t.Errorf("%+v", zh)
	}
}
