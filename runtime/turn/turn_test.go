package turn

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/protocol"
)

func ev(offset uint64, typ protocol.EventType, data any) protocol.Event {
	raw, _ := json.Marshal(data)
	return protocol.Event{Session: "s", Offset: offset, Type: typ, Data: raw}
}

func user(offset uint64, text string) protocol.Event {
	return ev(offset, protocol.EventUserMessage, protocol.Message{Text: text})
}

func steer(offset uint64, text string) protocol.Event {
	return ev(offset, protocol.EventUserMessage, protocol.Message{Text: text, Mode: protocol.ModeSteer})
}

func started(offset, prompt, through uint64) protocol.Event {
	return ev(offset, protocol.EventTurnStarted, protocol.TurnStarted{Prompt: prompt, Through: through})
}

func ended(offset, prompt, through uint64) protocol.Event {
	return ev(offset, protocol.EventTurnEnded, protocol.TurnEnded{Prompt: prompt, Through: through})
}

func reply(offset uint64) protocol.Event {
	return ev(offset, protocol.EventAgentMessage, protocol.Message{Text: "r"})
}

func TestNext(t *testing.T) {
	created := ev(1, protocol.EventSessionCreated, protocol.SessionCreated{})
	cases := []struct {
		name        string
		st          State
		evs         []protocol.Event
		wantNext    uint64 // 0: nothing waits
		wantRest    []uint64
		wantThrough uint64
	}{
		{name: "empty session", evs: []protocol.Event{created}, wantThrough: 1},
		{name: "first prompt", evs: []protocol.Event{created, user(2, "a")}, wantNext: 2, wantThrough: 2},
		{
			name: "a burst before any turn: log order, the watermark below the rest",
			evs:  []protocol.Event{created, user(2, "a"), user(3, "b"), user(4, "c")},
			// Before the fix the runner took the lowest doorbell it held as the start; here
			// only the log counts.
			wantNext: 2, wantRest: []uint64{3, 4}, wantThrough: 2,
		},
		{
			name: "restart reorder: bells of 5 and 6 arrive first, 2..4 are unacknowledged and come later",
			// The log is all that is read: the prompts that never got a turn run, oldest first.
			evs:      []protocol.Event{created, user(2, "a"), user(3, "b"), user(4, "c"), user(5, "d"), user(6, "e")},
			wantNext: 2, wantRest: []uint64{3, 4, 5, 6}, wantThrough: 2,
		},
		{
			name: "killed after some turns: what no turn.started names, in log order",
			st:   State{Seq: 9, Through: 3},
			// Read after the watermark 3: 2 and 3 ran; 4 ran, 5 and 6 did not.
			evs:      []protocol.Event{user(4, "c"), user(5, "d"), user(6, "e"), started(7, 4, 4), reply(8), ended(9, 4, 4)},
			wantNext: 5, wantRest: []uint64{6}, wantThrough: 5,
		},
		{
			name: "a prompt stored after the turn ended is read too",
			st:   State{Seq: 5, Through: 4},
			evs:  []protocol.Event{started(3, 2, 2), ended(5, 2, 4), user(6, "late")}, wantNext: 6, wantThrough: 6,
		},
		{
			name:     "steered prompts go first, each group in log order",
			st:       State{Seq: 3, Through: 2},
			evs:      []protocol.Event{user(4, "q1"), steer(5, "s1"), user(6, "q2"), steer(7, "s2")},
			wantNext: 5, wantRest: []uint64{7, 4, 6}, wantThrough: 3,
		},
		{
			name: "everything started: nothing waits, the watermark is the last read",
			st:   State{Seq: 6, Through: 1},
			evs:  []protocol.Event{user(2, "a"), started(3, 2, 2), reply(4), ended(6, 2, 2)}, wantThrough: 6,
		},
		{
			name:     "a session from before turns: prompts before the last reply were answered",
			evs:      []protocol.Event{created, user(2, "old"), reply(3), user(4, "old, unanswered?"), reply(5), user(6, "new")},
			wantNext: 6, wantThrough: 6,
		},
		{
			name: "with turns recorded, a reply does not hide older prompts",
			st:   State{Seq: 3, Through: 1},
			evs:  []protocol.Event{user(2, "a"), started(3, 4, 1), user(4, "b"), reply(5)}, wantNext: 2, wantThrough: 5,
		},
		{
			name: "a prompt steered into a turn is taken: it starts no turn of its own",
			st:   State{Seq: 3, Through: 2},
			evs: []protocol.Event{started(3, 2, 2), steer(4, "also this"), user(5, "later"),
				ev(6, protocol.EventPromptSteered, protocol.PromptSteered{Prompt: 4}), ended(7, 2, 2)},
			wantNext: 5, wantThrough: 7,
		},
		{
			name: "events at or below the watermark are not prompts",
			st:   State{Seq: 10, Through: 5},
			evs:  []protocol.Event{user(5, "old"), user(11, "new")}, wantNext: 11, wantThrough: 11,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Next(c.st, c.evs)
			var next uint64
			if got.Next != nil {
				next = got.Next.Offset
			}
			var rest []uint64
			for _, p := range got.Rest {
				rest = append(rest, p.Offset)
			}
			assert.Equal(t, c.wantNext, next, "next")
			assert.Equal(t, c.wantRest, rest, "rest")
			assert.Equal(t, c.wantThrough, got.Through, "through")
		})
	}
}

// TestQueueReadsOnlyWhatIsNew: a runner that keeps its Queue between turns reaches the same
// plan as one that reads everything again.
func TestQueueReadsOnlyWhatIsNew(t *testing.T) {
	all := []protocol.Event{ev(1, protocol.EventSessionCreated, protocol.SessionCreated{}),
		user(2, "a"), user(3, "b"), started(4, 2, 2), steer(5, "s"), reply(6), ended(7, 2, 2), user(8, "c"),
		started(9, 5, 2), ended(10, 5, 2)}
	for cut := range len(all) + 1 {
		st := State{Seq: 10, Through: 1}
		q := Read(Queue{}, st, all[:cut])
		q = Read(q, st, all[cut:])
		assert.Equal(t, Next(st, all), q.Plan(st), "cut at %d", cut)
	}
	q := Read(Queue{}, State{Seq: 1}, all[:4])
	assert.Equal(t, []Prompt{{Offset: 3, Text: "b"}}, q.Started(2).Waiting)
	assert.Equal(t, []Prompt{{Offset: 3, Text: "b"}}, q.Waiting, "Started leaves the queue it was called on alone")
}

func TestWatermark(t *testing.T) {
	assert.Equal(t, uint64(9), Watermark(nil, 9))
	assert.Equal(t, uint64(3), Watermark([]Prompt{{Offset: 7}, {Offset: 4}}, 9))
}

func TestSteerable(t *testing.T) {
	steered := func(offset, prompt uint64) protocol.Event {
		return ev(offset, protocol.EventPromptSteered, protocol.PromptSteered{Prompt: prompt})
	}
	cases := []struct {
		name string
		evs  []protocol.Event
		want []uint64
	}{
		{"nothing steered", []protocol.Event{user(2, "a"), started(3, 2, 2)}, nil},
		{"steered prompts in log order", []protocol.Event{started(3, 2, 2), steer(4, "x"), user(5, "q"), steer(6, "y")}, []uint64{4, 6}},
		{"taken already", []protocol.Event{steer(4, "x"), steered(5, 4), steer(6, "y")}, []uint64{6}},
		{"a steered prompt that started its own turn", []protocol.Event{steer(4, "x"), started(5, 4, 4)}, nil},
		{"a command is never steered", []protocol.Event{steer(4, "/help"), steer(5, "and this")}, []uint64{5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []uint64
			for _, p := range Steerable(c.evs) {
				got = append(got, p.Offset)
			}
			assert.Equal(t, c.want, got)
		})
	}
}

// TestEditedPromptKeepsItsPlace: a prompt.edited changes a waiting prompt's text and nothing
// else: it runs where it stood, with the last text; an edit of a prompt that started, or of
// one that is not there, changes nothing; read in two goes, the queue is the same.
func TestEditedPromptKeepsItsPlace(t *testing.T) {
	edited := func(offset, prompt uint64, text string) protocol.Event {
		return ev(offset, protocol.EventPromptEdited, protocol.PromptEdited{Prompt: prompt, Text: text})
	}
	type want struct {
		offset uint64
		text   string
	}
	cases := []struct {
		name string
		st   State
		evs  []protocol.Event
		want []want // the run order
	}{
		{name: "the first of three, edited, still runs first",
			evs:  []protocol.Event{user(2, "a"), user(3, "b"), user(4, "c"), edited(5, 2, "a2")},
			want: []want{{2, "a2"}, {3, "b"}, {4, "c"}}},
		{name: "two edits: the last text wins",
			evs:  []protocol.Event{user(2, "a"), user(3, "b"), edited(4, 3, "b2"), edited(5, 3, "b3")},
			want: []want{{2, "a"}, {3, "b3"}}},
		{name: "an edit after the prompt started changes nothing",
			st:   State{Seq: 3, Through: 1},
			evs:  []protocol.Event{user(2, "a"), started(3, 2, 2), user(4, "b"), edited(5, 2, "late")},
			want: []want{{4, "b"}}},
		{name: "an edit of no waiting prompt changes nothing",
			evs:  []protocol.Event{user(2, "a"), edited(3, 9, "x")},
			want: []want{{2, "a"}}},
		{name: "a steered prompt edited keeps going first",
			evs:  []protocol.Event{user(2, "q"), steer(3, "s"), edited(4, 3, "s2")},
			want: []want{{3, "s2"}, {2, "q"}}},
	}
	order := func(p Plan) []want {
		var out []want
		if p.Next != nil {
			out = append(out, want{p.Next.Offset, p.Next.Text})
		}
		for _, r := range p.Rest {
			out = append(out, want{r.Offset, r.Text})
		}
		return out
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, order(Next(c.st, c.evs)))
			for cut := range c.evs {
				q := Read(Queue{}, c.st, c.evs[:cut])
				q = Read(q, c.st, c.evs[cut:])
				assert.Equal(t, c.want, order(q.Plan(c.st)), "read in two goes, cut at %d", cut)
			}
		})
	}
}
