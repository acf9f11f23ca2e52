package e2e

import (
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

// QA round 10 (agent): a person using Parley with a model (docs/qa-round10-agent.md). Each
// test is one finding, seen through the page.

// TestAQueuedPromptReachesTheModelAfterTheAnswer: a prompt typed and queued (Enter) while the
// model streams its answer is its own turn, and the model reads it after that answer. It was
// stored before the answer, and the conversation said it there: joined to the first prompt,
// so the second request ended with the assistant's own message and the queued prompt was
// never answered (#1).
func TestAQueuedPromptReachesTheModelAfterTheAnswer(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	fake, srv, ctx := openModel(t, testkit.Reply{Steps: []testkit.Step{
		testkit.TextChunk("Working "), testkit.TextChunk("on it. "), {Hold: hold}, testkit.TextChunk("Done."), testkit.Finish("stop"),
	}}, testkit.Text("The second answer."))
	prompt(t, ctx, "first task")
	do(t, ctx, 30*time.Second, waitJS(`((document.querySelector('.thread .msg-streaming .msg-text') || {}).textContent || '').endsWith('on it. ')`))
	do(t, ctx, 20*time.Second, typeText("second task"), pressEnter(0))
	session := sessionOf(t, ctx)
	// The queued prompt is stored while the first turn still streams.
	require.Eventually(t, func() bool {
		return testkit.Count(readLog(t, srv, session).events, protocol.EventUserMessage) == 2
	}, 60*time.Second, 200*time.Millisecond, "the queued prompt is stored")
	close(hold)
	do(t, ctx, 60*time.Second, waitJS(`[...document.querySelectorAll('.thread .msg-agent .msg-text')].some(e => e.textContent === 'The second answer.')`))
	reqs := fake.Requests()
	require.Len(t, reqs, 2)
	var said []string
	for _, m := range reqs[1].Messages[1:] {
		said = append(said, m.Role+": "+m.Content)
	}
	assert.Equal(t, []string{
		openai.ChatMessageRoleUser + ": first task",
		openai.ChatMessageRoleAssistant + ": Working on it. Done.",
		openai.ChatMessageRoleUser + ": second task",
	}, said, "the queued prompt comes after the answer it waited for")
}
