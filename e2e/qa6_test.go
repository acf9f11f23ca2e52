package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

// The findings of the sixth QA pass (docs/qa-round6.md): each test is what a person saw go
// wrong in `make run`, seen in the page.

// TestHistorySaysAFormsAnswersInWords: a form of several questions, answered, is in the
// approvals history in the words its thread card uses ("Mood: Bad · Score: 7 · Tags: …"),
// never as the JSON the browser sent.
func TestHistorySaysAFormsAnswersInWords(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir(), "127.0.0.1:0")
	id := newSession(t, srv, "Poll", "")
	sendTo(t, srv, id, `/script ask('How was your day?', {'type': 'object', 'properties': {`+
		`'mood': {'type': 'string', 'title': 'Mood', 'oneOf': [{'const': 'good', 'title': 'Good'}, {'const': 'bad', 'title': 'Bad'}]}, `+
		`'score': {'type': 'integer', 'title': 'Score', 'minimum': 1, 'maximum': 10}, `+
		`'tags': {'type': 'array', 'title': 'Tags', 'items': {'type': 'string', 'enum': ['work', 'home']}}, `+
		`'ok': {'type': 'boolean', 'title': 'Slept well'}, `+
		`'note': {'type': 'string', 'title': 'Note'}}})`)
	q := waitQueue(t, srv, 1)
	_, err := apiClient(srv).Reply(context.Background(), id, q[0].ID, protocol.ReplyRequest{Action: protocol.ActionAccept,
		Content: json.RawMessage(`{"mood":"bad","score":7,"tags":["work","home"],"ok":false}`)})
	require.NoError(t, err)
	waitQueue(t, srv, 0)

	ctx := openApprovals(t, srv)
	do(t, ctx, 10*time.Second, clickJS(`.tab-history`))
	outcome := `(document.querySelector('.history-entry[data-session="` + id + `"] .history-outcome')?.textContent || '')`
	waitShowing(t, ctx, 30*time.Second, outcome+` !== ''`, `document.querySelector('.approvals-body').innerText`)
	assert.Equal(t, "Answered: Mood: Bad · Score: 7 · Tags: work, home · Slept well: No", evalString(t, ctx, outcome))
}
