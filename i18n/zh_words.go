package i18n

import (
	"strconv"
	"strings"
)

// Words a Chinese page still showed in English (issue 17): a list of choices cut short, the
// examples of /example's usage, the MCP servers' status in /mcp, how a decision a late
// reply came to had ended, and the server's errors that had no words of their own. Their
// ids follow the polish's.
const (
	// The end of a list of choices cut short (protocol's choiceList), inside a check.
	ListInAll Msg = lastPolish + 1 + iota // %[1]s how many in all

	// How a decision had ended, for a reply that came too late (code already_answered).
	EndedAnswered
	EndedDeclined
	EndedTimedOut
	EndedStopped
	EndedRestarted
	EndedWithdrawn

	// The server's errors by code, and an answer that was not the server's own.
	ErrServerStatus // %[1]d the HTTP status
	ErrTooMany
	ErrUpstreamUnreachable
	ErrUpstreamTimeout
	ErrUpstreamRefused
	ErrStoreUnavailable

	// Why an MCP server is not ready, and what is wrong with a configuration file
	// (runtime/mcp), by their English (MCPReason).
	MCPReasonNoName
	MCPReasonNeither
	MCPReasonBoth
	MCPReasonBadURL        // %[1]q the url
	MCPReasonNoHandshake   // %[1]s the wait, %[2]q the target, %[3]s the transport
	MCPReasonCannotStart   // %[1]q the command, %[2]s the error
	MCPReasonHandshake     //
	MCPReasonHandshakeWhy  // %[1]s the error
	MCPReasonEnded         //
	MCPReasonEndedWhy      // %[1]s the error
	MCPReasonExited        //
	MCPReasonExitedHow     // %[1]s how
	MCPReasonExitedWhy     // %[1]s the error
	MCPReasonExitedHowWhy  // %[1]s how, %[2]s the error
	MCPReasonTooLarge      // %[1]s how
	MCPReasonNotJSONRPC    // %[1]s how, %[2]s the error
	MCPReasonNoToolName    //
	MCPReasonListedTwice   // %[1]q the tool
	MCPReasonNotJSONSchema // %[1]q the tool
	MCPReasonNotObject     // %[1]q the tool, %[2]s its schema's type
	MCPReasonFileNotJSON   // %[1]s the file, %[2]s the error
	MCPReasonFileNoServers // %[1]s the file

	// Words the views still wrote in English.
	CopyCode       // a code block's copy button, for a screen reader
	FnDoesNotLoad  // after a function's title in the fn-form's list
	FnBroken       // %[1]s the function, %[2]s why it does not load
	MenuArgChoices // the menu of a command argument's choices
	RefsInMessage  // %[1]s the chips' labels, for a screen reader

	// A run a limit stopped (protocol.RunSettled.ErrorPhrase), by phrase code (limitWords).
	RunStepLimit   // %[1]s the steps
	RunWallLimit   // %[1]s the time
	RunMemoryLimit // %[1]s the memory

	lastZhWord = RunMemoryLimit
)

// limitWords are the phrases of a run a limit stopped, as serverWords: code, English, Chinese.
var limitWords = [...]string{
	"run_steps", "step limit hit: the script ran more than %[1]s steps", "达到了步数上限：脚本运行了超过 %[1]s 步", // RunStepLimit
	"run_wall", "the script ran longer than %[1]s (time spent waiting for answers does not count)", "脚本运行超过了 %[1]s（等待回答的时间不计在内）", // RunWallLimit
	"run_memory", "the script ran out of memory (limit %[1]s) and was stopped: keep less in memory at once (long strings, big lists), or ask whoever runs Parley to raise -script-memory",
	"脚本用完了内存（上限 %[1]s），已被停止：请一次少在内存里放些东西（长字符串、大列表），或请运行 Parley 的人调高 -script-memory", // RunMemoryLimit
}

// The phrase codes of /example's answers: their arguments are the workspace's examples,
// each its usage and its description (content), after the slug for cmd_no_example.
const (
	PhraseCodeExampleUsage = "cmd_example_usage"
	PhraseCodeNoExample    = "cmd_no_example"
)

// examples are /example's list of examples (usage, description pairs) in l.
func (l Locale) examples(pairs []string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		b.WriteString("• " + pairs[i] + ": " + pairs[i+1] + "\n")
	}
	return l.bullets(HelpExamples, HelpNoExamples, b.String())
}

// bullets is a list's heading and its items, or the words that say it is empty.
func (l Locale) bullets(head, none Msg, items string) string {
	if items == "" {
		return l.T(none)
	}
	return l.T(head) + "\n" + items
}

// MCPStatus is an MCP server's status (protocol.MCPStatus, the English of MCPStarting to
// MCPStopped) in l; an unknown one as it is.
func (l Locale) MCPStatus(s string) string {
	for m := MCPStarting; m <= MCPStopped; m++ {
		if catalogue[m][English] == s {
			return l.T(m)
		}
	}
	return s
}

// inAll rewords the end of a list of choices cut short (", … (12 in all)") in l.
func (l Locale) inAll(s string) string {
	const head, tail = ", … (", " in all)"
	i := strings.LastIndex(s, head)
	if i < 0 || !strings.HasSuffix(s, tail) {
		return s
	}
	n := s[i+len(head) : len(s)-len(tail)]
	if _, err := strconv.Atoi(n); err != nil {
		return s
	}
	return s[:i] + l.T(ListInAll, n)
}

// ended is a late reply's error in l: the server's words say how the decision had ended
// (runtime/decision's AlreadyEndedError), each the English of one of EndedAnswered to
// EndedWithdrawn.
func (l Locale) ended(text string) (string, bool) {
	for m := EndedAnswered; m <= EndedWithdrawn; m++ {
		if catalogue[m][English] == text {
			return l.T(m), true
		}
	}
	return "", false
}

// statusOf is the HTTP status of the words the page's client gives an answer that was not
// the server's own JSON ("the server answered 429 Too Many Requests", app/api).
func statusOf(text string) (int, bool) {
	rest, ok := strings.CutPrefix(text, "the server answered ")
	if !ok {
		return 0, false
	}
	n, _, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(n)
	return status, err == nil
}

// zhWords are the messages above, in their order: English, Chinese (data, not code).
var zhWords = [...]string{
	", … (%[1]s in all)", "，…（共 %[1]s 项）", // ListInAll
	"this question was already answered; nothing was changed", "这个问题已经回答过了；没有做任何改动", // EndedAnswered
	"this question was already declined; nothing was changed", "这个问题已经被拒绝了；没有做任何改动", // EndedDeclined
	"this question was already timed out (no answer in time); nothing was changed", "这个问题已经超时（没有及时回答）；没有做任何改动", // EndedTimedOut
	"this question was already ended: its turn was stopped; nothing was changed", "这个问题已经结束：它所在的这一轮被停止了；没有做任何改动", // EndedStopped
	"this question was already ended: the server restarted before it was answered; nothing was changed", "这个问题已经结束：服务器在回答之前重启了；没有做任何改动", // EndedRestarted
	"this question was already withdrawn: it is no longer needed; nothing was changed", "这个问题已经撤回：已不再需要它；没有做任何改动", // EndedWithdrawn
	"the server answered %[1]d", "服务器返回了错误 %[1]d", // ErrServerStatus
	"too many requests (429): wait a moment and try again", "请求太多（429）：请稍等片刻再试", // ErrTooMany
	"the Parley runtime behind this server is not reachable; it may be restarting: try again in a moment", "无法连接这台服务器后面的 Parley 运行时；它可能正在重启：请稍后再试", // ErrUpstreamUnreachable
	"the Parley runtime behind this server did not answer in time; it may be overloaded: try again in a moment", "这台服务器后面的 Parley 运行时没有及时回答；它可能负载过重：请稍后再试", // ErrUpstreamTimeout
	"the Parley runtime behind this server refused this server's credentials", "这台服务器后面的 Parley 运行时拒绝了这台服务器的凭据；需要由运维设置运行时给边缘服务器的令牌", // ErrUpstreamRefused
	"Parley's event store did not answer in time, so this was not confirmed: retry in a moment", "Parley 的事件存储没有及时回答，所以这没有被确认：请稍后重试", // ErrStoreUnavailable
	"a server has an empty name", "有一个服务器没有名字", // MCPReasonNoName
	`neither "command" (a program to start) nor "url" (a streamable HTTP endpoint) is set`, `既没有设置 "command"（要启动的程序），也没有设置 "url"（流式 HTTP 接口）`, // MCPReasonNeither
	`both "command" and "url" are set: keep one`, `"command" 和 "url" 都设置了：只保留一个`, // MCPReasonBoth
	"the url %[1]q is not an http:// or https:// URL", "url %[1]q 不是 http:// 或 https:// 链接", // MCPReasonBadURL
	"no answer to the handshake within %[1]s: is %[2]q an MCP server speaking %[3]s?", "%[1]s 内没有收到握手的回答：%[2]q 是使用 %[3]s 的 MCP 服务器吗？", // MCPReasonNoHandshake
	"cannot start %[1]q: %[2]s (is it installed, and on the PATH?)", "无法启动 %[1]q：%[2]s（它安装了吗？在 PATH 上吗？）", // MCPReasonCannotStart
	"the handshake failed", "握手失败了", // MCPReasonHandshake
	"the handshake failed: %[1]s", "握手失败了：%[1]s", // MCPReasonHandshakeWhy
	"its connection ended", "它的连接断开了", // MCPReasonEnded
	"its connection ended: %[1]s", "它的连接断开了：%[1]s", // MCPReasonEndedWhy
	"the process exited", "进程退出了", // MCPReasonExited
	"the process exited (%[1]s)", "进程退出了（%[1]s）", // MCPReasonExitedHow
	"the process exited: %[1]s", "进程退出了：%[1]s", // MCPReasonExitedWhy
	"the process exited (%[1]s): %[2]s", "进程退出了（%[1]s）：%[2]s", // MCPReasonExitedHowWhy
	"the process was stopped (%[1]s): it sent a message larger than 16 MiB, more than Parley reads in one", "进程被停止了（%[1]s）：它发来的一条消息大于 16 MiB，超过了 Parley 一次能读的大小", // MCPReasonTooLarge
	"the process was stopped (%[1]s): it wrote a line that is not JSON-RPC on its standard output (%[2]s); a server logs to its standard error", "进程被停止了（%[1]s）：它在标准输出上写了一行不是 JSON-RPC 的内容（%[2]s）；服务器应把日志写到标准错误", // MCPReasonNotJSONRPC
	"a tool with no name is left out", "一个没有名字的工具被略去了", // MCPReasonNoToolName
	"the tool %[1]q is listed twice: the first is kept", "工具 %[1]q 被列出了两次：保留第一个", // MCPReasonListedTwice
	"the tool %[1]q is left out: its input schema is not a JSON object", "工具 %[1]q 被略去了：它的输入模式不是 JSON 对象", // MCPReasonNotJSONSchema
	"the tool %[1]q is left out: its input schema is of type %[2]s, not an object of arguments", "工具 %[1]q 被略去了：它的输入模式的类型是 %[2]s，不是参数对象", // MCPReasonNotObject
	`%[1]s is not valid JSON (%[2]s): it should look like {"mcpServers": {"name": {"command": "…", "args": […]}}}`, `%[1]s 不是有效的 JSON（%[2]s）：它应该像 {"mcpServers": {"name": {"command": "…", "args": […]}}}`, // MCPReasonFileNotJSON
	`%[1]s has no "mcpServers" object: it should look like {"mcpServers": {"name": {"command": "…"}}}`, `%[1]s 没有 "mcpServers" 对象：它应该像 {"mcpServers": {"name": {"command": "…"}}}`, // MCPReasonFileNoServers
	"Copy code", "复制代码", // CopyCode
	" (does not load)", "（无法加载）", // FnDoesNotLoad
	"%[1]s does not load: %[2]s", "%[1]s 无法加载：%[2]s", // FnBroken
	"Choices for the command's argument", "命令参数的选项", // MenuArgChoices
	"References in the message: %[1]s", "消息中的引用：%[1]s", // RefsInMessage
}

// MCPReason is why an MCP server is not ready, or what is wrong with a configuration file,
// in l: runtime/mcp writes them in English, and MCPReason finds the format that explains most
// of text (as Check does), and says it in l with the same arguments (an error inside is the
// system's, and stays as it is). Words no format explains show as they are.
func (l Locale) MCPReason(text string) string {
	best, most := Msg(0), -1
	var bestArgs []any
	for m := MCPReasonNoName; m <= MCPReasonFileNoServers; m++ {
		if args, lits, ok := unformat(catalogue[m][English], text); ok && lits > most {
			best, most, bestArgs = m, lits, args
		}
	}
	if most < 0 {
		return text
	}
	return l.T(best, bestArgs...)
}

func init() {
	for i := 0; i+1 < len(zhWords); i += 2 { // the limits' words follow (server_words.go)
		catalogue[ListInAll+Msg(i/2)] = [nLocales]string{zhWords[i], zhWords[i+1]}
	}
	errorCodes["too_large"] = ErrTooLarge
	errorCodes["unavailable"] = ErrStoreUnavailable
	errorCodes["upstream_unreachable"] = ErrUpstreamUnreachable
	errorCodes["upstream_timeout"] = ErrUpstreamTimeout
	errorCodes["upstream_refused"] = ErrUpstreamRefused
}
