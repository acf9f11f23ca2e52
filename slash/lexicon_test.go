package slash

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/machine/input"
)

// TestLexicon pins lexicon decoration as a sequence of steps: the rosters are polled only
// at birth, on a warm-up's end, on a notification and on a late registration; a cold
// roster decorates nothing; and decoration never asks a source for anything.
func TestLexicon(t *testing.T) {
	const draft = "|/review @alice @bob /deploy" // the caret away from any token: no menu
	type step struct {
		name string
		do   func(h *harness, skills, people *lexer) []Effect
		want []Effect
	}
	review := TextRef{0, 7, '/', "review"}
	alice := TextRef{8, 14, '@', "alice"}
	bob := TextRef{15, 19, '@', "bob"}
	deploy := TextRef{20, 27, '/', "deploy"}
	steps := []step{
		{"a cold roster decorates nothing", func(h *harness, _, _ *lexer) []Effect {
			return h.typeDraft(draft, Plain)
		}, nil},
		{"warming without a notification is not seen", func(h *harness, skills, _ *lexer) []Effect {
			skills.warm = true
			return h.typeDraft(draft, Plain)
		}, nil},
		{"a notification re-polls", func(h *harness, skills, _ *lexer) []Effect {
			skills.notify()
			return h.drain()
		}, []Effect{RosterChanged{}, decorated{Refs: []TextRef{review}}}},
		{"a caret move does not re-decorate", func(h *harness, _, _ *lexer) []Effect {
			return h.c.Dispatch(DraftObserved{Draft: h.c.draft, SelStart: 7, SelEnd: 8, Rev: h.rev, Tier: Plain})
		}, nil},
		{"the second trigger's roster aggregates", func(h *harness, _, people *lexer) []Effect {
			people.warm = true
			people.notify()
			return h.drain()
		}, []Effect{RosterChanged{}, decorated{Refs: []TextRef{review, alice, bob}}}},
		{"a name added to a roster", func(h *harness, skills, _ *lexer) []Effect {
			skills.names = append(skills.names, "deploy")
			skills.notify()
			return h.drain()
		}, []Effect{RosterChanged{}, decorated{Refs: []TextRef{review, alice, bob, deploy}}}},
		{"a name gone from a roster", func(h *harness, _, people *lexer) []Effect {
			people.names = []string{"alice"}
			people.notify()
			return h.drain()
		}, []Effect{RosterChanged{}, decorated{Refs: []TextRef{review, alice, deploy}}}},
		{"a roster going cold again", func(h *harness, skills, _ *lexer) []Effect {
			skills.warm = false
			skills.notify()
			return h.drain()
		}, []Effect{RosterChanged{}, decorated{Refs: []TextRef{alice}}}},
		{"an edit before a mark shifts it", func(h *harness, _, _ *lexer) []Effect {
			return h.typeDraft("|x /review @alice @bob /deploy", Plain)
		}, []Effect{decorated{Refs: []TextRef{{10, 16, '@', "alice"}}}}},
		{"an edit that breaks the shape drops the mark", func(h *harness, _, _ *lexer) []Effect {
			return h.typeDraft("|x /review x@alice @bob /deploy", Plain)
		}, []Effect{decorated{}}},
		{"an edit that changes no mark emits nothing", func(h *harness, _, _ *lexer) []Effect {
			return h.typeDraft("|x /review x@alice @bob /deploy!", Plain)
		}, nil},
	}
	skills := &lexer{src: &src{trigger: '/', name: "skills"}, names: []string{"review"}}
	people := &lexer{src: &src{trigger: '@', name: "people"}, names: []string{"alice", "bob", "review"}}
	h := newHarness(skills, people)
	require.Empty(t, h.birth, "cold rosters: no change, and no warm-up to ask for")
	for _, s := range steps {
		effs := s.do(h, skills, people)
		assert.Equal(t, s.want, effs, s.name)
		assert.Empty(t, of[FetchCandidates](effs), "%s: decoration never fetches", s.name)
		assert.Empty(t, of[Warm](effs), "%s: decoration never warms", s.name)
	}
	assert.Zero(t, skills.candidates+people.candidates, "decoration never fetches")
}

// TestPerformPassesProjection: every hook is handed the session's projection and nothing
// else, so a source cannot tell one scope's transitions from another's.
func TestPerformPassesProjection(t *testing.T) {
	rec := &projRecorder{src: &src{trigger: '/', name: "rec"}}
	h := newHarness(rec)
	h.settle(h.birth)
	h.settle(h.typeDraft("/r|", Plain))
	h.settle(h.c.Dispatch(Adjudicate{Attempt: attempt(1), Draft: "/r"}))
	want := Projection{SessionID: "s1"}
	for _, hook := range []string{"warm", "subscribe", "lexicon", "candidates", "enter"} {
		assert.Contains(t, rec.calls, hook)
	}
	for _, p := range rec.seen {
		assert.Equal(t, want, p)
	}
	assert.Equal(t, 1, count(rec.calls, "warm"), "warmed once, at birth")
}

// projRecorder records the projection each hook receives.
type projRecorder struct {
	*src
	calls []string
	seen  []Projection
}

func (r *projRecorder) rec(name string, p Projection) {
	r.calls = append(r.calls, name)
	r.seen = append(r.seen, p)
}
func (r *projRecorder) Warm(_ context.Context, p Projection) error { r.rec("warm", p); return nil }
func (r *projRecorder) Lexicon(p Projection) ([]string, bool)      { r.rec("lexicon", p); return nil, true }
func (r *projRecorder) SubscribeLexicon(p Projection, _ func()) func() {
	r.rec("subscribe", p)
	return nil
}
func (r *projRecorder) Candidates(ctx context.Context, q Query) ([]Item, error) {
	r.rec("candidates", q.Session)
	return r.src.Candidates(ctx, q)
}
func (r *projRecorder) MatchEnter(_ context.Context, p Projection, _ string) (input.Claim, bool, error) {
	r.rec("enter", p)
	return input.Claim{}, false, nil
}

func count(s []string, x string) int {
	n := 0
	for _, y := range s {
		if y == x {
			n++
		}
	}
	return n
}
