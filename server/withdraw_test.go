package server_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
	"parley/protocol"
)

// TestWithdrawAWaitingPrompt: a prompt queued behind a running turn is withdrawn; the log
// records it, no turn ever runs it, and the prompts after it still run. A prompt that
// started, or was withdrawn already, cannot be.
func TestWithdrawAWaitingPrompt(t *testing.T) {
	ts, _ := testServer(t)
	s := createSessionHTTP(t, ts)
	first := promptHTTP(t, ts, s, "/script ok = confirm('Go on?')")
	d := waitDecisions(t, ts, s, 1)[0]
	second := promptHTTP(t, ts, s, "/script send('the withdrawn one ran')")
	third := promptHTTP(t, ts, s, "/script send('third ran')")
	url := func(p uint64) string {
		return ts.URL + "/api/sessions/" + s + "/prompts/" + strconv.FormatUint(p, 10) + "/withdraw"
	}

	resp, data := request(t, http.MethodPost, url(second), testToken, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	withdrawn := testkit.DecodeAs[protocol.WithdrawResponse](t, data)
	assert.Greater(t, withdrawn.Offset, second)

	for _, p := range []uint64{second, first} {
		resp, data := request(t, http.MethodPost, url(p), testToken, nil)
		assertRefused(t, resp, data, http.StatusConflict, "not_waiting", "not waiting", "")
	}
	resp, data = request(t, http.MethodPost, ts.URL+"/api/sessions/"+s+"/prompts/x/withdraw", testToken, nil)
	assertRefused(t, resp, data, http.StatusBadRequest, "bad_prompt", "not an offset", "")

	replyHTTP(t, ts, s, d.ID, `{"action":"accept","content":true}`)
	c := testkit.Client{T: t, Token: testToken, Base: ts.URL}
	var texts []string
	require.Eventually(t, func() bool {
		texts = texts[:0]
		started := map[uint64]bool{}
		for _, ev := range eventPage(t, c, s, "?limit=1000").Events {
			switch ev.Type {
			case protocol.EventAgentMessage:
				m, _ := ev.DecodeMessage()
				texts = append(texts, m.Text)
			case protocol.EventTurnStarted:
				ts, _ := protocol.DecodeEventData[protocol.TurnStarted](ev)
				started[ts.Prompt] = true
			}
		}
		assert.False(t, started[second], "no turn ran the withdrawn prompt")
		return started[third] && len(texts) > 0 && texts[len(texts)-1] == "third ran"
	}, 20*time.Second, 50*time.Millisecond)
	assert.NotContains(t, texts, "the withdrawn one ran")
}
