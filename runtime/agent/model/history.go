package model

import (
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"parley/i18n"
	"parley/protocol"
)

// conversation rebuilds the model's messages from a session's log, so a turn continues from
// the log and not from memory:
//   - a user message is the user's, if an agent turn started on it (a slash command's prompt
//     is not for the model, and a prompt still queued is not yet said);
//   - the agent's own messages are the assistant's; notices (From parley) and a script's
//     sends are not;
//   - tool.called adds its calls to the assistant message of the same stream, or to an
//     empty one; tool.result answers a call by its id;
//   - a call left without a result (the turn ended while it ran) is answered "interrupted",
//     because an endpoint refuses a conversation with an unanswered call.
//
// Drafts (agent.draft) give way to the agent.message that closes their stream; a stream
// that never closed (the server died while it streamed) is the assistant's text so far, at
// the end of its turn, marked as interrupted.
//
// prompt is the turn's own prompt, which counts even before its turn.started is read.
func conversation(system string, prompt uint64, evs []protocol.Event) []openai.ChatCompletionMessage {
	msgs, _ := rebuild(system, prompt, evs, false)
	return msgs
}

// resumed is the conversation of a turn taken over after its runtime went away while the
// turn waited on a decision: as conversation, except that the last assistant message's
// calls that have no result yet are not answered "interrupted" but returned, to be run now
// (their approval is still pending, and the user's answer decides them).
func resumed(system string, prompt uint64, evs []protocol.Event) ([]openai.ChatCompletionMessage, []protocol.ToolCall) {
	msgs, open := rebuild(system, prompt, evs, true)
	if len(open) == 0 || len(msgs) == 0 {
		return msgs, nil
	}
	// The open calls are the last assistant message's: any later message answered them.
	var calls []protocol.ToolCall
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != openai.ChatMessageRoleAssistant || len(msgs[i].ToolCalls) == 0 {
			continue
		}
		for _, c := range msgs[i].ToolCalls {
			if indexOf(open, c.ID) >= 0 {
				calls = append(calls, protocol.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
			}
		}
		break
	}
	return msgs, calls
}

// rebuild is conversation's work; keepOpen leaves the last message's unanswered calls open
// and returns their ids.
func rebuild(system string, prompt uint64, evs []protocol.Event, keepOpen bool) ([]openai.ChatCompletionMessage, []string) {
	started := map[uint64]bool{prompt: true}
	// A prompt is said where its turn started (its turn.started), not where it was stored: one
	// sent while a turn ran is stored before that turn's answer, and said there it joined the
	// running turn's prompt, leaving the request ending with the assistant's message. The
	// turn's own prompt, whose turn.started may not be read yet, is said last then.
	startedAt := map[uint64]bool{} // prompts whose turn.started is in evs
	// Prompts steered into a turn are said where the turn took them (their prompt.steered,
	// after the tool results of that step), not where they were stored: mid-step, they would
	// cut an assistant's calls from their results.
	steered := map[uint64]string{}
	for _, ev := range evs {
		switch ev.Type {
		case protocol.EventTurnStarted:
			if ts, err := protocol.DecodeEventData[protocol.TurnStarted](ev); err == nil && ts.Kind == protocol.TurnAgent {
				started[ts.Prompt] = true
				startedAt[ts.Prompt] = true
			}
		case protocol.EventPromptSteered:
			if ps, err := protocol.DecodeEventData[protocol.PromptSteered](ev); err == nil {
				steered[ps.Prompt] = ""
			}
		}
	}
	// A prompt edited while it waited is said with its new text (prompt.edited).
	edits := protocol.Edits(evs)
	textOf := func(ev protocol.Event, m protocol.Message) string {
		if t, ok := edits[ev.Offset]; ok {
			return t
		}
		return m.Text
	}
	prompts := map[uint64]string{} // the started prompts' texts, by their offsets
	for _, ev := range evs {
		if ev.Type != protocol.EventUserMessage {
			continue
		}
		m, err := ev.DecodeMessage()
		if err != nil {
			continue
		}
		if _, ok := steered[ev.Offset]; ok {
			steered[ev.Offset] = textOf(ev, m)
		} else if started[ev.Offset] {
			prompts[ev.Offset] = textOf(ev, m)
		}
	}
	msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: system}}
	var open []string // ids of the last assistant message's calls not yet answered
	answer := func() {
		for _, id := range open {
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: id,
				Content: "error: interrupted before it returned a result"})
		}
		open = nil
	}
	lastStream := ""
	var unanswered []string           // the prompts said since the last answer, each once
	var drafts []*protocol.AgentDraft // open streams, in order; Text is the whole text so far
	flushDrafts := func() {
		for _, d := range drafts {
			answer()
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: d.Text + "\n\n[interrupted]"})
		}
		drafts = nil
	}
	// say adds a prompt of the user's.
	say := func(text string) {
		answer()
		lastStream = ""
		if last := &msgs[len(msgs)-1]; last.Role == openai.ChatMessageRoleUser {
			// A prompt whose turn failed has no answer; several chat templates refuse two
			// user messages in a row, so they become one. The failure's notice says "send
			// your prompt again": the same words sent again are that retry, said once.
			if text != unanswered[len(unanswered)-1] {
				unanswered = append(unanswered, text)
			}
			last.Content = unansweredThenNow(unanswered)
			return
		}
		unanswered = []string{text}
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: text})
	}
	for _, ev := range evs {
		switch ev.Type {
		case protocol.EventAgentDraft:
			d, err := protocol.DecodeEventData[protocol.AgentDraft](ev)
			if err != nil {
				continue
			}
			if i := slices.IndexFunc(drafts, func(o *protocol.AgentDraft) bool { return o.Stream == d.Stream }); i >= 0 {
				drafts[i].Text += d.Text
			} else {
				drafts = append(drafts, &d)
			}
		case protocol.EventTurnEnded:
			flushDrafts()
		case protocol.EventTurnStarted:
			ts, err := protocol.DecodeEventData[protocol.TurnStarted](ev)
			if err != nil || ts.Kind != protocol.TurnAgent {
				continue
			}
			if text, ok := prompts[ts.Prompt]; ok {
				delete(prompts, ts.Prompt) // said once, should a turn.started be stored twice
				say(text)
			}
		case protocol.EventPromptSteered:
			ps, err := protocol.DecodeEventData[protocol.PromptSteered](ev)
			if err != nil || steered[ps.Prompt] == "" {
				continue
			}
			say(steered[ps.Prompt])
		case protocol.EventAgentMessage:
			m, err := ev.DecodeMessage()
			if err == nil && m.From == protocol.FromParley && refusedRequest(m.Phrase) {
				if last := msgs[len(msgs)-1]; last.Role == openai.ChatMessageRoleUser {
					// The server refused the request for what it held (too long for its
					// window, or refused outright): said again with the next prompt, it
					// failed the same way, every prompt after it (QA round 26).
					msgs, unanswered = msgs[:len(msgs)-1], nil
				}
			}
			if err != nil || m.From != "" {
				continue
			}
			if m.Stream != "" {
				drafts = slices.DeleteFunc(drafts, func(d *protocol.AgentDraft) bool { return d.Stream == m.Stream })
			}
			answer()
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: m.Text})
			lastStream = m.Stream
			if lastStream == "" {
				lastStream = "\x00" // a message that is no stream's: never joined by calls
			}
		case protocol.EventToolCalled:
			tc, err := protocol.DecodeEventData[protocol.ToolCalled](ev)
			if err != nil || len(tc.Calls) == 0 {
				continue
			}
			answer()
			last := &msgs[len(msgs)-1]
			if tc.Stream == "" || tc.Stream != lastStream || last.Role != openai.ChatMessageRoleAssistant || len(last.ToolCalls) > 0 {
				msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant})
				last = &msgs[len(msgs)-1]
			}
			for _, c := range tc.Calls {
				last.ToolCalls = append(last.ToolCalls, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction,
					Function: openai.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
				open = append(open, c.ID)
			}
			lastStream = ""
		case protocol.EventToolResult:
			res, err := protocol.DecodeEventData[protocol.ToolResult](ev)
			if err != nil {
				continue
			}
			i := indexOf(open, res.Call)
			if i < 0 {
				continue // answers no open call: an endpoint would refuse it
			}
			open = append(open[:i], open[i+1:]...)
			msgs = append(msgs, toolMessage(res))
		}
	}
	flushDrafts()
	if text, ok := prompts[prompt]; ok && !startedAt[prompt] {
		say(text) // the turn's own prompt, its turn.started not read yet
	}
	if keepOpen {
		return msgs, open
	}
	answer()
	return msgs, nil
}

// refusedRequest says a notice of a failed generation is the server's refusal of the
// request itself (400 and its kind: the prompt too long for the context window, a content
// policy), not of the moment (a 5xx, a cut stream, a rate limit) or of the setup (a key, a
// model's name): the prompts that made it are not said again with the next one.
func refusedRequest(p *protocol.Phrase) bool {
	if p == nil {
		return false
	}
	code := strings.TrimSuffix(p.Code, i18n.SaidSuffix)
	return code == "model_context_full" || code == "model_refused"
}

// unansweredThenNow is one user message for prompts said in a row, when the turns of all but
// the last ended before any answer (failed, or stopped): the earlier ones marked as such, the last as the one to
// answer now. Joined bare, "delete the build folder" and then "never mind, just say hello"
// read as one request of both (QA round 21); "now?" after a failed "read a" still reads as
// its retry.
func unansweredThenNow(prompts []string) string {
	if len(prompts) == 1 {
		return prompts[0]
	}
	return "[Sent earlier, with no answer:]\n" + strings.Join(prompts[:len(prompts)-1], "\n\n") +
		"\n\n[Now:]\n" + prompts[len(prompts)-1]
}

// toolMessage is a result as the model reads it. Never empty: some servers refuse an empty
// tool message.
func toolMessage(res protocol.ToolResult) openai.ChatCompletionMessage {
	text := res.Text
	if res.Error {
		text = "error: " + text
	}
	if text == "" {
		text = "(no output)"
	}
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: res.Call, Content: text}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}
