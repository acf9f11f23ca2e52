package i18n

import (
	"strings"

	"parley/protocol"
)

// The server's fixed words, by their phrase code (docs/i18n.md, "Parley's own messages"):
// what the approval gate asks and offers, the model's notices, a slash command's usage, and
// the validation messages a page shows. The server writes them in English from this
// catalogue, with their code beside; a page says them in its locale.
const (
	// The approval gate's questions.
	GateAskBatch Msg = lastMsg + 1 + iota // %[1]s the number of requests
	GateAskRun                            // %[1]s the program
	GateAskRunAny
	GateAskWrite          // %[1]s the path
	GateAskWriteProtected // %[1]s the path
	GateAskRead           // %[1]s the path
	GateAskMCPAny
	GateAskMCP  // %[1]s the tool, %[2]s the server
	GateAskTool // %[1]s the tool

	// Its options. An "always" option's label is ApproveAnd with its reach.
	GateApprove
	GateReject
	GateApproveAll
	GateRejectAll
	GateApproveAnd  // %[1]s the reach
	ReachExact      // "always for this command"
	ReachPrefix     // %[1]s the command's first words
	ReachWritesIn   // %[1]s the folder
	ReachReadsIn    // %[1]s the folder
	ReachMCP        // %[1]s the tool, %[2]s the server
	ReachPrefixDesc // %[1]s the command's first words
	ReachMCPDesc    // %[1]s the server

	// A grant's reach on the approvals page (protocol.DescribeScope's words).
	ScopeAny      // %[1]s the tool
	ScopeMCP      // %[1]s the tool, %[2]s the server
	ScopeWritesIn // %[1]s the folder; ScopeReadsIn follows it (Scope counts on it)
	ScopeReadsIn  // %[1]s the folder
	ScopeWrite    // %[1]s the path; ScopeRead follows it
	ScopeRead     // %[1]s the path

	// The model's notices.
	ModelSaid        // %[1]s the server's own words, after a notice
	ModelToolsRan    // after a failure's notice, once tools ran in the turn
	ModelRefusedKey  // %[1]s url, %[2]s status
	ModelRateLimited // %[1]s url
	ModelRateWait    // %[1]s url, %[2]s seconds
	ModelBusyWait    // %[1]s url, %[2]s seconds
	ModelNotFound    // %[1]s url, %[2]s model
	ModelFailed5xx   // %[1]s url, %[2]s status
	ModelRefused     // %[1]s url, %[2]s status
	ModelNoConn      // %[1]s url
	ModelNoReach     // %[1]s url, %[2]s error
	ModelFailed      // %[1]s error
	ModelStreamCut
	ModelStreamCutWhy // %[1]s detail
	ModelCutAtLimit
	ModelReplyTooLong // %[1]s the size kept
	ModelStreamCutBare
	ModelStreamCutBareWhy // %[1]s detail
	ModelCallTooLong      // %[1]s the size kept
	ModelContextFull      // %[1]s url
	TurnEndedWhy          // %[1]s why
	TurnMaxSteps          // %[1]s model calls
	TurnNoWorkspace

	// A slash command's answers.
	CmdCannotRun     // %[1]s why
	CmdScriptUsage   //
	CmdExampleUsage  // %[1]s the workspace's examples
	CmdNoExample     // %[1]s slug, %[2]s the workspace's examples
	CmdExampleVarsJS // %[1]s slug

	// Validation, a field's message.
	ValPromptEmpty
	ValPromptEmptyWithdraw
	ValPromptTooLarge // %[1]s KiB, %[2]s limit KiB
	ValPromptNotUTF8
	ValPromptNUL // %[1]s byte offset
	ValRequired
	ValTooLarge   // %[1]s KiB, %[2]s limit KiB
	ValNotAnswer  // the answer is not valid JSON
	ValNoQuestion // %[1]s the field
	ValTwice

	lastServerWord = ValTwice
)

// serverWords are the messages above, in their order: each one's phrase code ("" for none;
// "*" marks an "always" option's reach), its English and its Chinese. An array of constant
// strings is data, where a map literal would be code in the wasm (docs/wasm-size.md).
var serverWords = [...]string{
	"gate_ask_batch", "Allow these %[1]s requests?", "允许这 %[1]s 个请求吗？", // GateAskBatch
	"gate_ask_run", "Allow running %[1]s?", "允许运行 %[1]s 吗？", // GateAskRun
	"gate_ask_run_any", "Allow running a command?", "允许运行一条命令吗？", // GateAskRunAny
	"gate_ask_write", "Allow writing %[1]s?", "允许写入 %[1]s 吗？", // GateAskWrite
	"gate_ask_write_protected", "Allow writing %[1]s? It changes what git or Parley runs later, so it is asked every time.", "允许写入 %[1]s 吗？它会改变 git 或 Parley 之后运行的内容，所以每次都会询问。", // GateAskWriteProtected
	"gate_ask_read", "Allow reading %[1]s?", "允许读取 %[1]s 吗？", // GateAskRead
	"gate_ask_mcp_any", "Allow an MCP tool?", "允许使用一个 MCP 工具吗？", // GateAskMCPAny
	"gate_ask_mcp", "Allow %[1]s of the MCP server %[2]s?", "允许使用 MCP 服务器 %[2]s 的 %[1]s 吗？", // GateAskMCP
	"gate_ask_tool", "Allow %[1]s?", "允许 %[1]s 吗？", // GateAskTool
	"gate_approve", "Approve", "批准", // GateApprove
	"gate_reject", "Reject", "拒绝", // GateReject
	"gate_approve_all", "Approve all", "全部批准", // GateApproveAll
	"gate_reject_all", "Reject all", "全部拒绝", // GateRejectAll
	"", "Approve, and %[1]s", "批准，并且%[1]s", // GateApproveAnd
	"*reach_exact", "always for this command", "以后这条命令都允许", // ReachExact
	"*reach_prefix", "always for %[1]s on any files", "以后 %[1]s 用于任何文件都允许", // ReachPrefix
	"*reach_writes_in", "always for writes in %[1]s/", "以后写入 %[1]s/ 都允许", // ReachWritesIn
	"*reach_reads_in", "always for reads in %[1]s/", "以后读取 %[1]s/ 都允许", // ReachReadsIn
	"*reach_mcp", "always for %[1]s of %[2]s", "以后 %[2]s 的 %[1]s 都允许", // ReachMCP
	"reach_prefix_desc", "%[1]s naming other files or packages in the workspace; options still ask", "%[1]s 指向工作区里的其他文件或包；带选项时仍会询问", // ReachPrefixDesc
	"reach_mcp_desc", "every call of this tool of %[1]s in this workspace, whatever its arguments", "在这个工作区里对 %[1]s 的这个工具的每次调用，无论参数", // ReachMCPDesc
	"", "any %[1]s", "任何 %[1]s 调用", // ScopeAny
	"", "%[1]s of the MCP server %[2]s", "MCP 服务器 %[2]s 的 %[1]s", // ScopeMCP
	"", "writes in %[1]s/", "在 %[1]s/ 中写入", // ScopeWritesIn
	"", "reads in %[1]s/", "在 %[1]s/ 中读取", // ScopeReadsIn
	"", "write %[1]s", "写入 %[1]s", // ScopeWrite
	"", "read %[1]s", "读取 %[1]s", // ScopeRead
	"", " The server said: “%[1]s”", "服务器说：“%[1]s”", // ModelSaid
	"", " Tools already ran in this turn (their results are above): the same prompt sent again could run them again, so say how to go on instead.", "本轮已经运行过工具（结果见上方）：再次发送同一提示可能会再次运行它们，请说明接下来怎么做。", // ModelToolsRan
	"model_refused_key", "The model server at %[1]s refused the request (%[2]s): check the key in PARLEY_MODEL_KEY or OPENAI_API_KEY.", "%[1]s 的模型服务器拒绝了请求（%[2]s）：请检查 PARLEY_MODEL_KEY 或 OPENAI_API_KEY 中的密钥。", // ModelRefusedKey
	"model_rate_limited", "The model server at %[1]s is rate-limiting requests (429). Wait a moment and send your prompt again.", "%[1]s 的模型服务器正在限流（429）。稍等片刻再发送提示。", // ModelRateLimited
	"model_rate_wait", "The model server at %[1]s is rate-limiting requests (429) and asked to wait %[2]s s: the prompt goes again then, on its own.", "%[1]s 的模型服务器正在限流（429），要求等待 %[2]s 秒：届时会自动重新发送这条提示。", // ModelRateWait
	"model_busy_wait", "The model server at %[1]s is unavailable for now (503) and asked to wait %[2]s s: the prompt goes again then, on its own.", "%[1]s 的模型服务器暂时不可用（503），要求等待 %[2]s 秒：届时会自动重新发送这条提示。", // ModelBusyWait
	"model_not_found", "The model server at %[1]s has no model %[2]q or no Chat Completions endpoint there (404): check -model and -model-url (it usually ends in /v1).", "%[1]s 的模型服务器没有模型 %[2]q，或那里没有 Chat Completions 接口（404）：请检查 -model 和 -model-url（通常以 /v1 结尾）。", // ModelNotFound
	"model_failed_5xx", "The model server at %[1]s failed (%[2]s). Send your prompt again to retry.", "%[1]s 的模型服务器出错了（%[2]s）。再次发送提示即可重试。", // ModelFailed5xx
	"model_refused", "The model server at %[1]s refused the request (%[2]s).", "%[1]s 的模型服务器拒绝了请求（%[2]s）。", // ModelRefused
	"model_no_conn", "The model server at %[1]s cannot be reached (connection refused): is it running? Start it, then send your prompt again.", "无法连接 %[1]s 的模型服务器（连接被拒绝）：它在运行吗？启动它，然后再次发送提示。", // ModelNoConn
	"model_no_reach", "The model server at %[1]s cannot be reached: %[2]s. Check -model-url, then send your prompt again.", "无法连接 %[1]s 的模型服务器：%[2]s。请检查 -model-url，然后再次发送提示。", // ModelNoReach
	"model_failed", "The model failed: %[1]s", "模型出错了：%[1]s", // ModelFailed
	"model_stream_cut", "The model's stream stopped before its message ended; what arrived is kept above. Send your prompt again to retry.", "模型的输出流在消息结束前停止了；已收到的内容保留在上方。再次发送提示即可重试。", // ModelStreamCut
	"model_stream_cut_why", "The model's stream stopped before its message ended (%[1]s); what arrived is kept above. Send your prompt again to retry.", "模型的输出流在消息结束前停止了（%[1]s）；已收到的内容保留在上方。再次发送提示即可重试。", // ModelStreamCutWhy
	"model_cut_at_limit", "The model's reply was cut at its output limit (finish_reason length).", "模型的回复在输出上限处被截断了（finish_reason length）。", // ModelCutAtLimit
	"model_reply_too_long", "The model's reply was cut at %[1]s, the most Parley keeps of one message; what arrived is kept above. Ask for a shorter answer, or for it in parts.", "模型的回复在 %[1]s 处被截断了，这是 Parley 为一条消息保留的上限；已收到的内容保留在上方。请要求更短的回答，或分几部分回答。", // ModelReplyTooLong
	"model_stream_cut_bare", "The model's stream stopped before any of its message arrived. Send your prompt again to retry.", "模型的输出流在它的消息到达之前就停止了。再次发送提示即可重试。", // ModelStreamCutBare
	"model_stream_cut_bare_why", "The model's stream stopped before any of its message arrived (%[1]s). Send your prompt again to retry.", "模型的输出流在它的消息到达之前就停止了（%[1]s）。再次发送提示即可重试。", // ModelStreamCutBareWhy
	"model_call_too_long", "The model's tool call was cut at %[1]s, the most Parley keeps of one message, so it did not run. Ask for a smaller change, or for it in parts.", "模型的工具调用在 %[1]s 处被截断了，这是 Parley 为一条消息保留的上限，所以它没有运行。请要求更小的改动，或分几部分进行。", // ModelCallTooLong
	"model_context_full", "The conversation no longer fits the context window of the model at %[1]s: start a new session, or pick a model with a larger window.", "对话已超出 %[1]s 上模型的上下文窗口：请新建一个会话，或选择窗口更大的模型。", // ModelContextFull
	"turn_ended", "The turn ended: %[1]s", "这一轮结束了：%[1]s", // TurnEndedWhy
	"turn_max_steps", "The turn ended after %[1]s model calls, the most one turn may make. Send a prompt to go on.", "这一轮在调用模型 %[1]s 次后结束了，这是一轮的上限。发送一条提示即可继续。", // TurnMaxSteps
	"turn_no_workspace", "The agent cannot work here: this session's workspace is not served any more.", "智能体无法在这里工作：这个会话的工作区已不再提供。", // TurnNoWorkspace
	"cmd_cannot_run", "This command cannot run: %[1]s.", "这条命令无法运行：%[1]s。", // CmdCannotRun
	"cmd_script_usage", "Usage: /script <code>. The code is Starlark; it can send(text), ask(message, schema), confirm(message), run(argv), run_batch([argv, …]), read(path), list(dir) and write(path, text). run and write ask for your approval.", "用法：/script <代码>。代码是 Starlark，可以调用 send(text)、ask(message, schema)、confirm(message)、run(argv)、run_batch([argv, …])、read(path)、list(dir) 和 write(path, text)。run 和 write 会先请你批准。", // CmdScriptUsage
	"cmd_example_usage", "Usage: /example <slug> [json-vars].\n\n%[1]s", "用法：/example <名称> [JSON 变量]。\n\n%[1]s", // CmdExampleUsage
	"cmd_no_example", "There is no example %[1]q.\n\n%[2]s", "没有示例 %[1]q。\n\n%[2]s", // CmdNoExample
	"cmd_example_vars", "The variables of /example %[1]s must be one JSON object, like {\"name\": \"Ada\"}.", "/example %[1]s 的变量必须是一个 JSON 对象，例如 {\"name\": \"Ada\"}。", // CmdExampleVarsJS
	"prompt_empty", "the prompt is empty", "提示是空的", // ValPromptEmpty
	"prompt_empty_withdraw", "the prompt is empty: to take it back, remove it instead", "提示是空的：要撤回它，请把它移除", // ValPromptEmptyWithdraw
	"prompt_too_large", "the prompt is %[1]s KiB; the limit is %[2]s KiB", "提示有 %[1]s KiB，上限是 %[2]s KiB", // ValPromptTooLarge
	"prompt_not_utf8", "the prompt is not valid UTF-8", "提示不是有效的 UTF-8", // ValPromptNotUTF8
	"prompt_nul", "the prompt holds a NUL byte (U+0000) at byte %[1]s: remove it (it often comes with text pasted from a binary file)", "提示在第 %[1]s 字节处含有 NUL 字节（U+0000）：请删除它（它常随从二进制文件粘贴的文本而来）", // ValPromptNUL
	"required", "is required", "必须回答", // ValRequired
	"too_large", "is %[1]s KiB; the limit is %[2]s KiB", "有 %[1]s KiB，上限是 %[2]s KiB", // ValTooLarge
	"not_json", "is not valid JSON", "不是有效的 JSON", // ValNotAnswer
	"not_a_question", "is not a question of this form", "不是这个表单里的问题", // ValNoQuestion
	"answered_twice", "is answered twice", "回答了两次", // ValTwice
}

// serverPhrases are the codes of serverWords, and reaches those of an "always" option: its
// label is "Approve, and <reach>", and the outcome of picking it "Approved, <reach>".
var serverPhrases, reaches = map[string]Msg{}, map[string]Msg{}

// SaidSuffix ends a phrase code whose last argument is a server's own words, said after the
// phrase ("… The server said: “…”").
const SaidSuffix = "+said"

// ranSuffix ends a phrase code said after tools ran in the turn: its words are followed by
// ModelToolsRan, since "send your prompt again" could then run a command twice.
const ranSuffix = "+ran"

// AfterToolsRan is p with the warning that tools already ran in the turn after it.
func AfterToolsRan(p protocol.Phrase) protocol.Phrase {
	return protocol.Phrase{Code: p.Code + ranSuffix, Args: p.Args}
}

// Said is p with the server's own words after it (none when said is blank).
func Said(p protocol.Phrase, said string) protocol.Phrase {
	if strings.TrimSpace(said) == "" {
		return p
	}
	return protocol.Phrase{Code: p.Code + SaidSuffix, Args: append(append([]string(nil), p.Args...), said)}
}

func strArgs(args []string) []any {
	as := make([]any, len(args))
	for i, a := range args {
		as[i] = a
	}
	return as
}

// serverPhrase is Phrase for the codes of this file.
func (l Locale) serverPhrase(code string, args []string) (string, bool) {
	if base, ok := strings.CutSuffix(code, ranSuffix); ok {
		text, ok := l.serverPhrase(base, args)
		if !ok {
			return "", false
		}
		return text + l.T(ModelToolsRan), true
	}
	if base, ok := strings.CutSuffix(code, SaidSuffix); ok && len(args) > 0 {
		text, ok := l.serverPhrase(base, args[:len(args)-1])
		if !ok {
			return "", false
		}
		return text + l.T(ModelSaid, args[len(args)-1]), true
	}
	switch code {
	case PhraseCodeHelp:
		return l.help(args), true
	case PhraseCodeParts:
		return l.parts(args)
	case PhraseCodeExampleUsage:
		if len(args)%2 == 0 { // an older server's had one argument, the list in English
			return l.T(CmdExampleUsage, l.examples(args)), true
		}
	case PhraseCodeNoExample:
		if len(args)%2 == 1 {
			return l.T(CmdNoExample, args[0], l.examples(args[1:])), true
		}
	}
	if m, ok := reaches[code]; ok {
		return l.T(GateApproveAnd, l.T(m, strArgs(args)...)), true
	}
	m, ok := serverPhrases[code]
	if !ok {
		return "", false
	}
	return l.T(m, strArgs(args)...), true
}

// Reach is an "always" option's reach, by its phrase, in l: "always for this command".
func (l Locale) Reach(p protocol.Phrase) (string, bool) {
	m, ok := reaches[p.Code]
	if !ok {
		return "", false
	}
	return l.T(m, strArgs(p.Args)...), true
}

// Say is p in l, or text (the server's English) for a code this catalogue does not know.
func (l Locale) Say(p *protocol.Phrase, text string) string {
	if p != nil {
		if s, ok := l.Phrase(p.Code, p.Args); ok {
			return s
		}
	}
	return text
}

// EnglishPhrase is a phrase and its English words, which the server stores beside the code. It panics on a
// code the catalogue does not know: the server only writes its own codes.
func EnglishPhrase(code string, args ...string) (protocol.Phrase, string) {
	p := protocol.Phrase{Code: code, Args: args}
	text, ok := English.Phrase(code, args)
	if !ok {
		panic("i18n: no phrase " + code)
	}
	return p, text
}

// Request is what a decision asks, in l: the gate's question and its options' labels and
// descriptions by their phrases; everything else (and any unknown code) as the server wrote
// it. The request passed in is not changed.
func (l Locale) Request(req protocol.DecisionRequest) protocol.DecisionRequest {
	req.Message = l.Say(req.Phrase, req.Message)
	if len(req.Options) > 0 {
		opts := make([]protocol.ApprovalOption, len(req.Options))
		for i, o := range req.Options {
			o.Label = l.Say(o.Phrase, o.Label)
			o.Description = l.Say(o.DescPhrase, o.Description)
			opts[i] = o
		}
		req.Options = opts
	}
	return req
}

// Scope words a grant's reach in l (protocol.DescribeScope is its English). Every format
// numbers its arguments, so one call passes both.
func (l Locale) Scope(s protocol.GrantScope) string {
	sep, m := " ", Msg(0)
	switch rw := s.Tool == "write" || s.Tool == "read"; {
	case s.Kind == protocol.GrantTool:
		return l.T(ScopeAny, s.Tool)
	case s.Kind == protocol.GrantExact && s.Tool == "mcp" && len(s.Words) == 2:
		return l.T(ScopeMCP, s.Words[1], s.Words[0])
	case rw:
		sep, m = "/", ScopeWrite
		if s.Kind == protocol.GrantPrefix {
			m = ScopeWritesIn
		}
		if s.Tool == "read" {
			m++
		}
	case s.Kind == protocol.GrantPrefix:
		return strings.Join(s.Words, " ") + " …"
	}
	w := strings.Join(s.Words, sep)
	if m == 0 {
		return w
	}
	return l.T(m, w)
}

// FieldsIn are a failed validation's field messages in l: a field with a phrase the
// catalogue knows in its words, any other as the server wrote it.
func (l Locale) FieldsIn(fields map[string]string, phrases map[string]protocol.Phrase) map[string]string {
	out := make(map[string]string, len(fields))
	for k, v := range fields {
		if p, ok := phrases[k]; ok {
			v = l.Say(&p, v)
		} else {
			v = l.Check(v)
		}
		out[k] = v
	}
	return out
}

func init() {
	// The server's words, then more of them (more_words.go), each block from its first id.
	for _, block := range [...]struct {
		first Msg
		words []string
	}{{GateAskBatch, serverWords[:]}, {HistApprovedNofM, moreWords[:]}, {RunStepLimit, limitWords[:]}, {HistApprovedWhy, threadWords[:]}} {
		words := block.words
		for i := 0; i+2 < len(words); i += 3 {
			m := block.first + Msg(i/3)
			catalogue[m] = [nLocales]string{words[i+1], words[i+2]}
			if code, ok := strings.CutPrefix(words[i], "*"); ok {
				reaches[code] = m
			} else if code != "" {
				serverPhrases[code] = m
			}
		}
	}
}
