package server

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"parley/protocol"
)

// client folds what a socket sends, as app/store does.
type liveClient struct{ text string }

func (c *liveClient) draft(d protocol.AgentDraft) {
	if d.Pos == len(c.text) {
		c.text += d.Text
	} else if end := d.Pos + len(d.Text); end > len(c.text) && d.Pos < len(c.text) {
		c.text += d.Text[len(c.text)-d.Pos:]
	}
}

func draftEvent(offset uint64, d protocol.AgentDraft) protocol.Event {
	b, _ := json.Marshal(d)
	return protocol.Event{Offset: offset, Type: protocol.EventAgentDraft, Data: b}
}

// TestLiveSyncNoGapNoDuplicate writes a message in random pieces with checkpoints, delivers
// the drafts late (the log is slower than the live path) and subscribes at a random point,
// sometimes mid-stream as a reload does; the client ends up holding exactly the message, and
// no frame it got was wholly a repeat.
func TestLiveSyncNoGapNoDuplicate(t *testing.T) {
	for seed := range uint64(500) {
		rng := rand.New(rand.NewPCG(seed, 1))
		var whole strings.Builder
		var tails []protocol.Delta
		var drafts []protocol.AgentDraft
		saved := 0
		for i := range 40 {
			whole.WriteString(strings.Repeat(string(rune('a'+i%26)), 1+rng.IntN(5)))
			all := whole.String()
			tails = append(tails, protocol.Delta{Stream: "1-1", Pos: saved, Text: all[saved:]})
			if rng.IntN(6) == 0 {
				drafts = append(drafts, protocol.AgentDraft{Stream: "1-1", Seq: len(drafts) + 1, Pos: saved, Text: all[saved:]})
				saved = len(all)
			}
			_ = i
		}
		// The order a socket sees: each tail at once, each draft some tails later.
		type step struct {
			tail  *protocol.Delta
			draft *protocol.AgentDraft
		}
		var steps []step
		di := 0
		for i := range tails {
			steps = append(steps, step{tail: &tails[i]})
			for di < len(drafts) && drafts[di].Pos+len(drafts[di].Text) <= len(tails[i].Text)+tails[i].Pos && rng.IntN(3) == 0 {
				steps = append(steps, step{draft: &drafts[di]})
				di++
			}
		}
		for ; di < len(drafts); di++ {
			steps = append(steps, step{draft: &drafts[di]})
		}
		// The client subscribes at step k with after 0: the drafts stored before k are the
		// replay, caught up when the last of them is sent.
		k := rng.IntN(len(steps))
		var replay []protocol.AgentDraft
		for _, s := range steps[:k] {
			if s.draft != nil {
				replay = append(replay, *s.draft)
			}
		}
		head := uint64(len(replay))
		sync := newLiveSync(0, head)
		c := &liveClient{}
		offset := uint64(0)
		apply := func(ds []protocol.Delta) {
			for _, d := range ds {
				next, added := d.Fold(c.text)
				if !added && d.Pos <= len(c.text) && d.Pos+len(d.Text) <= len(c.text) && len(d.Text) > 0 {
					t.Fatalf("seed %d: a frame the client already held: %+v (holds %d)", seed, d, len(c.text))
				}
				c.text = next
			}
		}
		// Live tails can arrive while the replay is still being sent.
		ri := 0
		for _, s := range steps[k:] {
			if ri < len(replay) && rng.IntN(2) == 0 {
				offset++
				c.draft(replay[ri])
				apply(sync.event(draftEvent(offset, replay[ri])))
				ri++
			}
			if s.tail != nil {
				apply(sync.delta(*s.tail))
				if i := slices.Index(tails, *s.tail); i > 0 && rng.IntN(5) == 0 {
					// An older tail, late: the one asked for on subscribe can be.
					apply(sync.delta(tails[rng.IntN(i)]))
				}
			} else {
				for ; ri < len(replay); ri++ { // the log is in order: the replay first
					offset++
					c.draft(replay[ri])
					apply(sync.event(draftEvent(offset, replay[ri])))
				}
				offset++
				c.draft(*s.draft)
				apply(sync.event(draftEvent(offset, *s.draft)))
			}
		}
		for ; ri < len(replay); ri++ {
			offset++
			c.draft(replay[ri])
			apply(sync.event(draftEvent(offset, replay[ri])))
		}
		// The last tail holds the message's end; one sent before the subscription does not
		// reach the client, and then the drafts are what it holds (agent.message does the rest).
		want := whole.String()
		if !slices.ContainsFunc(steps[k:], func(s step) bool { return s.tail != nil }) {
			want = want[:saved]
		}
		if c.text != want {
			for i, s := range steps {
				if s.tail != nil {
					t.Logf("%d tail pos %d end %d", i, s.tail.Pos, s.tail.Pos+len(s.tail.Text))
				} else {
					t.Logf("%d draft pos %d end %d", i, s.draft.Pos, s.draft.Pos+len(s.draft.Text))
				}
			}
			t.Fatalf("seed %d (subscribed at step %d of %d): the client holds\n%q\nwant\n%q", seed, k, len(steps), c.text, want)
		}
	}
}

func TestLiveSyncDropsDeltasOfAClosedMessage(t *testing.T) {
	sync := newLiveSync(0, 0)
	b, _ := json.Marshal(protocol.Message{Text: "Hi", Stream: "1-1"})
	sync.event(protocol.Event{Offset: 1, Type: protocol.EventAgentMessage, Data: b})
	if got := sync.delta(protocol.Delta{Stream: "1-1", Text: "Hi"}); len(got) != 0 {
		t.Errorf("a late delta went out: %+v", got)
	}
}
