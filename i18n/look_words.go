package i18n

// The words of the eleventh QA round's designer findings (docs/qa-round11.md): an approval's
// button that rejects with the words typed, the fn-form's Run and why it cannot run yet, the
// empty page's note on a model that is not configured, and the MCP screen's example. Their
// ids follow the Chinese page's words.
const (
	// An approval's button for the words typed: it rejects, and the words go with it.
	RejectWithNote Msg = lastZhWord + 1 + iota

	// The fn-form's line under its fields: why Run is not ready, or that it is.
	RunIncomplete
	RunReady // %[1]s the function
	RunFixFirst

	// The empty page, when no model is configured.
	HeroOfflineTitle
	HeroOfflineText // before the command that starts Parley with a model
	HeroOfflineEnv  // after it

	// The MCP screen with no servers: the prose before its example file.
	MCPEmptyLead // %[1]s the workspace's file

	// An approval that ended (timed out, answered elsewhere) with words typed and not sent.
	WordsKeptEnded

	lastLookWord = WordsKeptEnded
)

func init() {
	for m, s := range map[Msg][nLocales]string{
		RejectWithNote:   {"Reject with note", "附言拒绝"},
		RunIncomplete:    {"Fill in every required field (*) to run it.", "填写所有必填项（*）后才能运行。"},
		RunReady:         {"Ready: Enter or Run runs %[1]s.", "可以运行了：按 Enter 或点“运行”运行 %[1]s。"},
		RunFixFirst:      {"Some answers are not right yet: Enter or Run says which.", "有些回答还不对：按 Enter 或点“运行”会指出是哪些。"},
		HeroOfflineTitle: {"No model is configured.", "尚未配置模型。"},
		HeroOfflineText: {"Scripts, examples and functions work; prompts get the offline agent's canned answer. " +
			"To talk to a model, start Parley with the URL of an OpenAI-compatible server and a model, e.g. for Ollama:",
			"脚本、示例和函数都能用；提示只会得到离线智能体的固定回答。" +
				"要和模型对话，请用一个兼容 OpenAI 的服务的地址和一个模型启动 Parley，例如 Ollama："},
		HeroOfflineEnv: {"or with environment variables:", "或者用环境变量："},
		WordsKeptEnded: {"The request ended before your words were sent. They are back in the box below, to send or delete.",
			"请求在你的文字发出之前就结束了。文字已放回下方输入框，可发送或删除。"},
		MCPEmptyLead: {"No MCP servers are configured for this workspace. List them in %[1]s, or in the file -mcp-config names, like this:",
			"此工作区没有配置 MCP 服务器。请在 %[1]s 或 -mcp-config 指定的文件中列出，格式如下："},
	} {
		catalogue[m] = s
	}
}
