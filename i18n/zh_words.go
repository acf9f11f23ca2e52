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

	lastZhWord = ErrStoreUnavailable
)

// The phrase codes of /example's answers: their arguments are the workspace's examples,
// each its usage and its description (content), after the slug for cmd_no_example.
const (
	PhraseCodeExampleUsage = "cmd_example_usage"
	PhraseCodeNoExample    = "cmd_no_example"
)

// examples are /example's list of examples (usage, description pairs) in l.
func (l Locale) examples(pairs []string) string {
	if len(pairs) == 0 {
		return l.T(HelpNoExamples)
	}
	var b strings.Builder
	b.WriteString(l.T(HelpExamples) + "\n")
	for i := 0; i+1 < len(pairs); i += 2 {
		b.WriteString("• " + pairs[i] + ": " + pairs[i+1] + "\n")
	}
	return b.String()
}

// mcpStatuses are the MCP servers' statuses (protocol.MCPStatus) and their words.
var mcpStatuses = [...]struct {
	status string
	m      Msg
}{{"starting", MCPStarting}, {"ready", MCPReady}, {"failed", MCPFailed}, {"crashed", MCPCrashed}, {"stopped", MCPStopped}}

// MCPStatus is an MCP server's status (protocol.MCPStatus) in l; an unknown one as it is.
func (l Locale) MCPStatus(s string) string {
	for _, st := range mcpStatuses {
		if st.status == s {
			return l.T(st.m)
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

// endedHows are the words the server says a decision had ended with, for a reply that came
// too late ("this question was already <how>; nothing was changed"), and their message.
var endedHows = [...]struct {
	how string
	m   Msg
}{
	{"answered", EndedAnswered},
	{"declined", EndedDeclined},
	{"timed out (no answer in time)", EndedTimedOut},
	{"ended: its turn was stopped", EndedStopped},
	{"ended: the server restarted before it was answered", EndedRestarted},
	{"withdrawn: it is no longer needed", EndedWithdrawn},
}

// ended is a late reply's error in l, by how the server says the decision had ended.
func (l Locale) ended(text string) (string, bool) {
	how, ok := strings.CutPrefix(text, "this question was already ")
	if how, ok = strings.CutSuffix(how, "; nothing was changed"); !ok {
		return "", false
	}
	for _, e := range endedHows {
		if e.how == how {
			return l.T(e.m), true
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
}

func init() {
	for i := 0; i+1 < len(zhWords); i += 2 {
		catalogue[ListInAll+Msg(i/2)] = [nLocales]string{zhWords[i], zhWords[i+1]}
	}
	errorCodes["too_large"] = ErrTooLarge
	errorCodes["unavailable"] = ErrStoreUnavailable
	errorCodes["upstream_unreachable"] = ErrUpstreamUnreachable
	errorCodes["upstream_timeout"] = ErrUpstreamTimeout
	errorCodes["upstream_refused"] = ErrUpstreamRefused
}
