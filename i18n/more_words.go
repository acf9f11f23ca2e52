package i18n

import (
	"strconv"
	"strings"

	"parley/protocol"
)

// More of the server's fixed words by their phrase code (docs/i18n.md, "Parley's own
// messages"): the approvals history's answers and reasons, a turn's internal failures, the
// notes of a run a stop or a restart ended, the MCP elicitation notices, the schema checks
// of an answer, and /help. Their ids follow the server's words.
const (
	// The approvals history.
	HistApprovedNofM Msg = lastServerWord + 1 + iota // %[1]s approved, %[2]s in all
	HistRejectedEach
	AbortStopped
	AbortWithdrawn
	AbortOrphaned
	AbortNoAnswer

	// A turn's internal failures.
	AgentNoRecordResult // %[1]s the store's error
	AgentNoRecordCalls  // %[1]s the store's error
	AgentToolsWrong     // %[1]s how many times

	// How a run ended, other than by its own result.
	RunStoppedByUser
	RunShutdown
	RunRestarted

	// The MCP elicitation notices and the link consent.
	MCPCannotDraw // %[1]s server, %[2]s why
	MCPWithdrew   // %[1]s server
	MCPBadLink    // %[1]s server, %[2]s the link
	MCPOpenAsk    // %[1]s server
	MCPOpenLink
	MCPOpenDesc // %[1]s server
	MCPDecline

	// The schema checks of an answer (protocol/schema_validate.go), a field's message, by
	// their English (Check).
	ValOtherBlank
	// What an input shows and cannot read as a value (elicit.Unparsed): the form's own.
	ValUnreadDate
	ValUnreadDateTime
	ValUnreadNumber
	ValUnreadWhole
	ValMustText
	ValCharsMin // %[1]s
	ValCharsMax // %[1]s
	ValEmail
	ValURI
	ValDate
	ValDateTime
	ValWhole
	ValNumber
	ValBetween // %[1]s, %[2]s
	ValHuge
	ValAtLeast // %[1]s
	ValAtMost  // %[1]s
	ValBool
	ValOneOf      // %[1]s the choices
	ValOneOfOwn   // %[1]s the choices
	ValPicksList  //
	ValPicksFrom  // %[1]s the choices
	ValNotOneOf   // %[1]s the value, %[2]s the choices
	ValPickTwice  // %[1]s the value
	ValPickMin    // %[1]s
	ValPickMax    // %[1]s
	ValNoSchema   //
	ValFormInForm //
	ValFormObject
	ValNoQuestionHere

	// /help.
	HelpCommands
	HelpDescHelp
	HelpDescExample
	HelpDescScript
	HelpDescMCP
	HelpExamples
	HelpNoExamples
	HelpFunctions
	HelpNoFunctions
	HelpCannotRun // %[1]s why
	HelpOther
	HelpScriptCalls

	// /mcp, line by line (a phrase of parts).
	MCPReconnected // %[1]s server
	MCPReconnectedAll
	MCPUsage
	MCPError     // %[1]s why
	MCPNone      // %[1]s the file
	MCPCount     // %[1]s how many
	MCPServer    // %[1]s name, %[2]s status, %[3]s transport, %[4]s target
	MCPWhy       // %[1]s
	MCPRestarts  // %[1]s
	CmdMCPStderr // %[1]s
	MCPTool      // %[1]s name, %[2]s description
	MCPToolRO    // %[1]s name, %[2]s description
	CmdMCPFrom   // %[1]s
	MCPProblem   // %[1]s

	lastMoreWord = MCPProblem
)

// moreWords are the messages above, in their order, as serverWords: code, English, Chinese.
var moreWords = [...]string{
	"hist_approved_n_of_m", "Approved %[1]s of %[2]s", "批准了 %[2]s 个中的 %[1]s 个", // HistApprovedNofM
	"hist_rejected_each", "Rejected all, one by one", "逐个全部拒绝", // HistRejectedEach
	"abort_stopped", "its turn was stopped", "它所在的这一轮被停止了", // AbortStopped
	"abort_withdrawn", "the asker no longer needed it", "提问方已不再需要它", // AbortWithdrawn
	"abort_orphaned", "the server restarted before it was answered", "服务器在回答之前重启了", // AbortOrphaned
	"abort_no_answer", "no answer in time", "没有及时回答", // AbortNoAnswer
	"agent_no_record_result", "The agent could not record a tool's result: %[1]s", "智能体无法记录工具的结果：%[1]s", // AgentNoRecordResult
	"agent_no_record_calls", "The agent could not record its tool calls, so none ran: %[1]s", "智能体无法记录它的工具调用，所以一个也没有运行：%[1]s", // AgentNoRecordCalls
	"agent_tools_wrong", "The model called tools wrongly %[1]s times in a row (an unknown tool, or arguments that are not JSON), so the turn ended. A larger model, or one made for tool calls, may do better.",
	"模型连续 %[1]s 次错误地调用工具（未知的工具，或不是 JSON 的参数），所以这一轮结束了。更大的模型，或专为工具调用而做的模型，可能会更好。", // AgentToolsWrong
	"run_stopped", "stopped by the user", "被用户停止", // RunStoppedByUser
	"run_shutdown", "interrupted: the server shut down before it finished", "已中断：服务器在它完成前关闭了", // RunShutdown
	"run_restarted", "interrupted by a restart: the server running this script stopped before it finished, and a script cannot resume (its state was in that server's memory). Send the command again to run it again.",
	"因重启而中断：运行这个脚本的服务器在它完成前停止了，而脚本无法继续（它的状态在那台服务器的内存里）。再次发送这条命令即可重新运行。", // RunRestarted
	"mcp_cannot_draw", "The MCP server %[1]s asked a question Parley cannot draw, so it was refused: %[2]s", "MCP 服务器 %[1]s 提了一个 Parley 无法显示的问题，所以它被拒绝了：%[2]s", // MCPCannotDraw
	"mcp_withdrew", "The MCP server %[1]s withdrew its question (it cancelled the request, or its connection ended), so the question ended unanswered.", "MCP 服务器 %[1]s 撤回了它的问题（它取消了请求，或它的连接断开了），所以这个问题没有得到回答就结束了。", // MCPWithdrew
	"mcp_bad_link", "The MCP server %[1]s asked to open a link that is not an http or https URL, so it was declined: %[2]s", "MCP 服务器 %[1]s 要求打开一个不是 http 或 https 的链接，所以被拒绝了：%[2]s", // MCPBadLink
	"mcp_open_ask", "The MCP server %[1]s asks you to open a link.", "MCP 服务器 %[1]s 请你打开一个链接。", // MCPOpenAsk
	"mcp_open_link", "Open the link in a new tab", "在新标签页中打开链接", // MCPOpenLink
	"mcp_open_desc", "the MCP server %[1]s goes on once you finish there", "你在那里完成后，MCP 服务器 %[1]s 会继续", // MCPOpenDesc
	"mcp_decline", "Decline", "拒绝", // MCPDecline
	"", "type your own answer, or pick a choice", "请输入你自己的回答，或选择一项", // ValOtherBlank
	"", "not a date: use the date picker, or type a whole date that exists", "不是日期：请用日期选择器，或输入一个完整且存在的日期", // ValUnreadDate
	"", "not a date and time: use the picker, or type a whole date and time that exists", "不是日期和时间：请用选择器，或输入一个完整且存在的日期和时间", // ValUnreadDateTime
	"", "not a number: type digits, like 12 or -3.5", "不是数字：请输入数字，例如 12 或 -3.5", // ValUnreadNumber
	"", "not a whole number: type digits, like 12 or -3", "不是整数：请输入数字，例如 12 或 -3", // ValUnreadWhole
	"", "must be text", "必须是文字", // ValMustText
	"", "must be at least %[1]s characters", "至少要 %[1]s 个字符", // ValCharsMin
	"", "must be at most %[1]s characters", "最多 %[1]s 个字符", // ValCharsMax
	"", "must be an email address like name@example.com", "必须是电子邮件地址，例如 name@example.com", // ValEmail
	"", "must be a link like https://example.com/page", "必须是链接，例如 https://example.com/page", // ValURI
	"", "must be a date like 2026-11-30", "必须是日期，例如 2026-11-30", // ValDate
	"", "must be a date and time like 2026-11-30T14:00:00Z", "必须是日期和时间，例如 2026-11-30T14:00:00Z", // ValDateTime
	"", "must be a whole number", "必须是整数", // ValWhole
	"", "must be a number", "必须是数字", // ValNumber
	"", "must be between %[1]s and %[2]s", "必须在 %[1]s 和 %[2]s 之间", // ValBetween
	"", "is too large a number", "数字太大了", // ValHuge
	"", "must be at least %[1]s", "不能小于 %[1]s", // ValAtLeast
	"", "must be at most %[1]s", "不能大于 %[1]s", // ValAtMost
	"", "must be true or false", "必须是 true 或 false", // ValBool
	"", "must be one of: %[1]s", "必须是以下之一：%[1]s", // ValOneOf
	"", "must be one of: %[1]s, or your own text", "必须是以下之一：%[1]s，或你自己的文字", // ValOneOfOwn
	"", "must be a list of choices", "必须是一组选项", // ValPicksList
	"", "must be a list of choices from: %[1]s", "必须是从以下选项中选出的一组：%[1]s", // ValPicksFrom
	"", "%[1]q is not one of: %[2]s", "%[1]q 不在以下选项中：%[2]s", // ValNotOneOf
	"", "picks %[1]q twice", "%[1]q 选了两次", // ValPickTwice
	"", "pick at least %[1]s", "至少选 %[1]s 项", // ValPickMin
	"", "pick at most %[1]s", "最多选 %[1]s 项", // ValPickMax
	"", "cannot be answered: the question has no schema", "无法回答：这个问题没有模式", // ValNoSchema
	"", "cannot be answered: a form inside a form is not supported", "无法回答：不支持表单里的表单", // ValFormInForm
	"", "is required: answer with an object keyed by question", "必须回答：请用以问题为键的对象回答", // ValFormObject
	"", "there is no question to answer", "没有要回答的问题", // ValNoQuestionHere
	"", "Commands:", "命令：", // HelpCommands
	"", "List the commands and the examples.", "列出命令和示例。", // HelpDescHelp
	"", "Run an example from the catalogue, with optional JSON variables.", "运行目录中的一个示例，可带 JSON 变量。", // HelpDescExample
	"", "Run Starlark code in the workspace's sandbox.", "在工作区的沙箱中运行 Starlark 代码。", // HelpDescScript
	"", "List the workspace's MCP servers with their status and tools, or start one again.", "列出工作区的 MCP 服务器及其状态和工具，或重新启动其中一个。", // HelpDescMCP
	"", "Examples:", "示例：", // HelpExamples
	"", "There are no examples.", "没有示例。", // HelpNoExamples
	"", "Functions (run one with the composer's ƒ Functions button, or pick it in the / menu; a form asks for its parameters):", "函数（用输入框的 ƒ 函数按钮运行，或在 / 菜单中选择；表单会询问它的参数）：", // HelpFunctions
	"", "There are no functions.", "没有函数。", // HelpNoFunctions
	"", "cannot run: %[1]s", "无法运行：%[1]s", // HelpCannotRun
	"", "Any other text, including other /words, goes to the agent.", "其他任何文字，包括其他以 / 开头的词，都会发给智能体。", // HelpOther
	"", "  A script can call send(text), ask(message, schema), confirm(message), run(argv), run_batch([argv, …]), read(path), list(dir) and write(path, text); run, run_batch and write wait for your approval or a grant.",
	"  脚本可以调用 send(text)、ask(message, schema)、confirm(message)、run(argv)、run_batch([argv, …])、read(path)、list(dir) 和 write(path, text)；run、run_batch 和 write 要等你批准或已有授权。", // HelpScriptCalls
	"mcp_reconnected", "Reconnected %[1]s.\n\n", "已重新连接 %[1]s。\n\n", // MCPReconnected
	"mcp_reconnected_all", "Reconnected every server (the configuration was read again).\n\n", "已重新连接所有服务器（配置已重新读取）。\n\n", // MCPReconnectedAll
	"mcp_usage", "Usage: /mcp lists the MCP servers; /mcp reconnect [server] starts one (or all) again.\n\n", "用法：/mcp 列出 MCP 服务器；/mcp reconnect [服务器] 重新启动一个（或全部）。\n\n", // MCPUsage
	"mcp_error", "%[1]s.\n\n", "%[1]s。\n\n", // MCPError
	"mcp_none", `No MCP servers are configured for this workspace. List them in %[1]s (or in the file -mcp-config names) as {"mcpServers": {"name": {"command": "…", "args": ["…"]}}}, or {"url": "http://…"} for streamable HTTP.`,
	`这个工作区没有配置 MCP 服务器。请在 %[1]s（或 -mcp-config 指定的文件）中列出它们，格式为 {"mcpServers": {"name": {"command": "…", "args": ["…"]}}}，流式 HTTP 则用 {"url": "http://…"}。`, // MCPNone
	"mcp_count", "MCP servers (%[1]s):\n", "MCP 服务器（%[1]s 个）：\n", // MCPCount
	"mcp_server", "\n• %[1]s — %[2]s (%[3]s: %[4]s)\n", "\n• %[1]s — %[2]s（%[3]s：%[4]s）\n", // MCPServer
	"mcp_why", "  why: %[1]s\n", "  原因：%[1]s\n", // MCPWhy
	"mcp_restarts", "  restarts: %[1]s\n", "  重启次数：%[1]s\n", // MCPRestarts
	"mcp_stderr", "  stderr (last lines):\n%[1]s\n", "  stderr（最后几行）：\n%[1]s\n", // CmdMCPStderr
	"mcp_tool", "  – %[1]s: %[2]s\n", "  – %[1]s：%[2]s\n", // MCPTool
	"mcp_tool_ro", "  – %[1]s (read-only): %[2]s\n", "  – %[1]s（只读）：%[2]s\n", // MCPToolRO
	"mcp_from", "  from %[1]s\n", "  来自 %[1]s\n", // CmdMCPFrom
	"mcp_problem", "\nA configuration file could not be read: %[1]s\n", "\n无法读取一个配置文件：%[1]s\n", // MCPProblem
}

// PhraseCodeHelp is /help's answer. Its arguments are the workspace's examples and functions,
// each a kind ("e" an example: usage, description; "f" a function: name, title; "x" a
// function that cannot run: name, why) and its two words; the commands are Parley's own.
const PhraseCodeHelp = "cmd_help"

// PhraseCodeParts is a phrase of parts (/mcp's answer): its arguments are lines, each its
// code, how many arguments it takes, and those; the text is the lines in order, without the
// newlines it ends with. A line of a code this catalogue does not know makes the whole
// phrase unknown, so the page shows the server's English.
const PhraseCodeParts = "parts"

// parts is a phrase of parts in l (see PhraseCodeParts).
func (l Locale) parts(args []string) (string, bool) {
	var b strings.Builder
	for len(args) >= 2 {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 0 || n > len(args)-2 {
			return "", false
		}
		line := args[2 : 2+n]
		switch { // a status and a reason are Parley's words
		case args[0] == "mcp_server" && n == 4:
			line = []string{line[0], l.MCPStatus(line[1]), line[2], line[3]}
		case (args[0] == "mcp_why" || args[0] == "mcp_problem") && n == 1:
			line = []string{l.MCPReason(line[0])}
		}
		s, ok := l.serverPhrase(args[0], line)
		if !ok {
			return "", false
		}
		b.WriteString(s)
		args = args[2+n:]
	}
	return strings.TrimRight(b.String(), "\n"), len(args) == 0
}

// CommandDesc is a built-in command's description in l, or desc (its English) for another.
// The descriptions follow protocol.Commands' order (TestHelpPhrase holds their English equal).
func (l Locale) CommandDesc(name, desc string) string {
	for i, c := range protocol.Commands {
		if c.Name == name && HelpDescHelp+Msg(i) <= HelpDescMCP {
			return l.T(HelpDescHelp + Msg(i))
		}
	}
	return desc
}

// help is /help's answer in l (see PhraseCodeHelp).
func (l Locale) help(args []string) string {
	var b strings.Builder
	line := func(name, what string) { b.WriteString("• " + name + ": " + what + "\n") }
	b.WriteString(l.T(HelpCommands) + "\n")
	for _, c := range protocol.Commands {
		line(c.Usage, l.CommandDesc(c.Name, c.Description))
		if c.Name == "script" { // what a script can call is found nowhere else in the app
			b.WriteString(l.T(HelpScriptCalls) + "\n")
		}
	}
	var ex, fn strings.Builder
	for i := 0; i+2 < len(args); i += 3 {
		w := &fn
		what := args[i+2]
		switch args[i] {
		case "e":
			w = &ex
		case "x":
			what = l.T(HelpCannotRun, what)
		}
		w.WriteString("• " + args[i+1] + ": " + what + "\n")
	}
	list := func(head, none Msg, items string) {
		s := l.bullets(head, none, items)
		if items == "" {
			s += "\n"
		}
		b.WriteString("\n" + s)
	}
	list(HelpExamples, HelpNoExamples, ex.String())
	list(HelpFunctions, HelpNoFunctions, fn.String())
	b.WriteString("\n" + l.T(HelpOther))
	return b.String()
}

// Check is a schema check's message in l. The checks run in the page itself (the protocol's
// validation, the same code as the server's) and say what is wrong in English; Check finds
// the catalogue's English format the message was written from (the one that explains most of
// it), takes its arguments back out, and says it in l. A message no format explains is
// shown as it is.
func (l Locale) Check(msg string) string {
	if m, args, ok := checkOf(msg); ok {
		for i, a := range args {
			args[i] = l.inAll(a.(string)) // a list of choices cut short
		}
		return l.T(m, args...)
	}
	return msg
}

// checkOf is the check message msg was written from, and its arguments.
func checkOf(msg string) (Msg, []any, bool) {
	best, most := Msg(0), -1
	var bestArgs []any
	try := func(m Msg, f string) {
		if args, lits, ok := unformat(f, msg); ok && lits > most {
			best, most, bestArgs = m, lits, args
		}
	}
	for m := ValRequired; m <= ValNoQuestionHere; m++ {
		if m > ValTwice && m < ValOtherBlank {
			m = ValOtherBlank
		}
		try(m, catalogue[m][English])
		if o, ok := ones[m]; ok {
			try(m, o[English])
		}
	}
	return best, bestArgs, most >= 0
}

// unformat takes the arguments of a format of numbered %[n]s and %[n]q verbs back out of
// text, and says how much of text the format's own words explain.
func unformat(format, text string) ([]any, int, bool) {
	var args []any
	lits := 0
	for {
		i := strings.Index(format, "%[")
		lit := format
		if i >= 0 {
			lit = format[:i]
		}
		if !strings.HasPrefix(text, lit) {
			return nil, 0, false
		}
		text, lits = text[len(lit):], lits+len(lit)
		if i < 0 {
			return args, lits, text == ""
		}
		// "%[n]v": n one digit, the verb after the bracket.
		n, verb := int(format[i+2]-'0'), format[i+4]
		format = format[i+5:]
		next := format
		if j := strings.Index(next, "%["); j >= 0 {
			next = next[:j]
		}
		end := len(text)
		if next != "" {
			end = strings.Index(text, next)
		}
		if end <= 0 {
			return nil, 0, false
		}
		arg := text[:end]
		if verb == 'q' {
			var err error
			if arg, err = strconv.Unquote(arg); err != nil {
				return nil, 0, false
			}
		}
		for len(args) < n {
			args = append(args, "")
		}
		args[n-1], text = arg, text[end:]
	}
}
