package runtime

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/internal/testkit"
	"parley/protocol"
)

// A script that runs out of memory fails its run with the memory error, and the server
// takes the next one: it ran in a child that died alone.
func TestScriptOutOfMemory(t *testing.T) {
	rt := fresh(t)
	s := newSession(t, rt)
	prompt(t, rt, s, "/script\nx = 'a'\nfor i in range(40):\n    x = x + x", protocol.ModeQueue)
	evs := waitFor(t, rt, s, "turn ends", testkit.Has(protocol.EventTurnEnded))
	assert.Contains(t, settled(t, evs).Error, "the script ran out of memory (limit 256 MiB)")

	prompt(t, rt, s, "/script send('still here')", protocol.ModeQueue)
	evs = waitFor(t, rt, s, "the next turn ends", func(evs []protocol.Event) bool { return testkit.Count(evs, protocol.EventTurnEnded) == 2 })
	assert.Equal(t, []string{"still here"}, testkit.AgentTexts(t, evs))
}

// A send() of 2 MiB failed with the log's "nats: maximum payload exceeded"; it is cut with a
// note, as print() is.
func TestLargeSendIsCut(t *testing.T) {
	rt := fresh(t)
	s := newSession(t, rt)
	prompt(t, rt, s, "/script send('a' * (2 << 20))", protocol.ModeQueue)
	evs := waitFor(t, rt, s, "turn ends", testkit.Has(protocol.EventTurnEnded))
	assert.Empty(t, settled(t, evs).Error)
	texts := testkit.AgentTexts(t, evs)
	if assert.Len(t, texts, 1) {
		assert.Equal(t, strings.Repeat("a", 256<<10)+"\n[message truncated after 256 KiB]", texts[0])
	}
}
