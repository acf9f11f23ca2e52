package slashhost

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"parley/machine/input"
	"parley/slash"
	"parley/slash/slashtest"
)

var errBoom = errors.New("boom")

// src is a test source: fixed candidates, a fixed pick outcome, and optional hooks.
type src struct {
	trigger rune
	name    string
	items   []slash.Item
	out     slash.PickOutcome
	picks   []slash.Item
}

func (s *src) Trigger() rune { return s.trigger }
func (s *src) Name() string  { return s.name }
func (s *src) Candidates(_ context.Context, q slash.Query) ([]slash.Item, error) {
	var out []slash.Item
	for _, it := range s.items {
		if strings.HasPrefix(it.ID, q.Query) {
			out = append(out, it)
		}
	}
	return out, nil
}
func (s *src) Pick(it slash.Item, _ slash.Query) slash.PickOutcome {
	s.picks = append(s.picks, it)
	return s.out
}
func (s *src) key() slash.SourceKey { return slash.SourceKey{Trigger: s.trigger, Name: s.name} }

// spacer claims Space with a fixed outcome.
type spacer struct {
	*src
	space slash.PickOutcome
}

func (s *spacer) MatchSpace(slash.Query) (slash.PickOutcome, bool) { return s.space, true }

// enterer answers Enter.
type enterer struct {
	*src
	claim input.Claim
	asked []string
}

func (e *enterer) MatchEnter(_ context.Context, _ slash.Projection, draft string) (input.Claim, bool, error) {
	e.asked = append(e.asked, draft)
	return e.claim, true, nil
}

// lexer has a roster, warms with err, and notifies.
type lexer struct {
	*src
	names     []string
	err       error
	listeners slashtest.Listeners
}

func (l *lexer) Warm(context.Context, slash.Projection) error { return l.err }
func (l *lexer) Lexicon(slash.Projection) ([]string, bool)    { return l.names, true }
func (l *lexer) SubscribeLexicon(_ slash.Projection, changed func()) func() {
	return l.listeners.Add(changed)
}

func TestRegister(t *testing.T) {
	tests := []struct {
		name    string
		sources []*src
		wantErr error
		errText string
	}{
		{"distinct", []*src{{trigger: '/', name: "cmd"}, {trigger: '/', name: "skill"}}, nil, ""},
		{"same name, other trigger", []*src{{trigger: '/', name: "x"}, {trigger: '@', name: "x"}}, nil, ""},
		{"duplicate", []*src{{trigger: '/', name: "cmd"}, {trigger: '/', name: "cmd"}}, ErrDuplicateSource, `register source "/cmd"`},
		{"bad trigger", []*src{{trigger: '#', name: "tag"}}, ErrInvalidSource, `trigger must be '/', '@' or an argument's`},
		{"no name", []*src{{trigger: '@'}}, ErrInvalidSource, "name non-empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := NewRegistry()
			var err error
			for _, s := range tt.sources {
				if err = reg.Register(s); err != nil {
					break
				}
			}
			if tt.wantErr == nil {
				require.NoError(t, err)
				require.Len(t, reg.Sources(), len(tt.sources))
				return
			}
			require.ErrorIs(t, err, tt.wantErr)
			require.ErrorContains(t, err, tt.errText)
		})
	}
}

func TestRegistrationOrder(t *testing.T) {
	reg := NewRegistry()
	names := []string{"c", "a", "b"}
	for _, n := range names {
		require.NoError(t, reg.Register(&src{trigger: '/', name: n}))
	}
	var got []string
	for _, s := range reg.Sources() {
		got = append(got, s.Name())
	}
	require.Equal(t, names, got)
	s, ok := reg.Lookup(slash.SourceKey{Trigger: '/', Name: "a"})
	require.True(t, ok)
	require.Equal(t, "a", s.Name())
	_, ok = reg.Lookup(slash.SourceKey{Trigger: '@', Name: "a"})
	require.False(t, ok)
	require.ErrorIs(t, reg.Register(nil), ErrInvalidSource)
}

func TestPerform(t *testing.T) {
	cmd := &src{trigger: '/', name: "cmd", items: []slash.Item{{ID: "review"}, {ID: "deploy"}}}
	en := &enterer{src: &src{trigger: '/', name: "en"}, claim: input.Claim{Token: "/x "}}
	wl := &lexer{src: &src{trigger: '@', name: "w"}, err: errBoom}
	reg := NewRegistry()
	for _, s := range []slash.Source{cmd, en, wl} {
		require.NoError(t, reg.Register(s))
	}
	ctx := context.Background()
	p := slash.Projection{SessionID: "s"}
	hit := slash.Hit{Trigger: '/', Query: "re"}
	at := input.AttemptID{Session: "s", Seq: 7}

	ev, ok := reg.Perform(ctx, p, slash.FetchCandidates{Gen: 3, Source: cmd.key(), Hit: hit})
	require.True(t, ok)
	require.Equal(t, slash.CandidatesArrived{Gen: 3, Source: cmd.key(), Items: []slash.Item{{ID: "review"}}}, ev)

	ev, _ = reg.Perform(ctx, p, slash.FetchCandidates{Gen: 3, Source: slash.SourceKey{Trigger: '/', Name: "gone"}, Hit: hit})
	require.ErrorContains(t, ev.(slash.CandidatesArrived).Err, "not registered")

	ev, _ = reg.Perform(ctx, p, slash.RunEnterMatch{Attempt: at, Source: en.key(), Draft: "/x y"})
	require.Equal(t, slash.EnterMatched{Attempt: at, Source: en.key(), Claim: input.Claim{Token: "/x "}, OK: true}, ev)
	require.Equal(t, []string{"/x y"}, en.asked)

	ev, _ = reg.Perform(ctx, p, slash.Warm{Source: wl.key()})
	require.ErrorIs(t, ev.(slash.WarmDone).Err, errBoom)
	require.ErrorContains(t, ev.(slash.WarmDone).Err, `warm "@w"`)

	ev, _ = reg.Perform(ctx, p, slash.Warm{Source: cmd.key()})
	require.Equal(t, slash.WarmDone{Source: cmd.key()}, ev, "a source without Warmer is warm")

	_, ok = reg.Perform(ctx, p, slash.HideMenu{})
	require.False(t, ok, "not a slow effect")
}

// TestSessionAnswersInTheSameTurn: the session asks the sources and the input for the
// controller, so the shell sees only what is left for it, and Space's preventDefault
// follows the input's answer.
func TestSessionAnswersInTheSameTurn(t *testing.T) {
	claim := slash.BeginCommand(input.Claim{Token: "/review "})
	tests := []struct {
		name        string
		accept      bool
		wantPrevent bool
		wantRewrite []string
	}{
		{"the input rewrites: the space is cancelled", true, true, []string{"begin-command /review  0-7@1"}},
		{"the input refuses: the space is typed", false, false, []string{"begin-command /review  0-7@1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := NewRegistry()
			require.NoError(t, reg.Register(&spacer{src: &src{trigger: '/', name: "cmd"}, space: claim}))
			var rewrites []string
			s, _ := Open(reg, Config{Session: slash.Projection{SessionID: "s1"}, Rewrite: func(r slash.Rewrite) bool {
				rewrites = append(rewrites, fmt.Sprintf("%s %s %d-%d@%d", r.Outcome.Kind, r.Outcome.Claim.Token, r.Span.Start, r.Span.End, r.Span.Rev))
				return tt.accept
			}})
			s.Dispatch(slash.DraftObserved{Draft: "/review", SelStart: 7, SelEnd: 7, Rev: 1})
			effs := s.Dispatch(slash.Key{Key: " "})
			require.Equal(t, tt.wantPrevent, slash.Prevented(effs))
			require.Equal(t, tt.wantRewrite, rewrites)
			for _, e := range effs {
				switch e.(type) {
				case slash.AskSpace, slash.Rewrite:
					t.Errorf("a question reached the shell: %#v", e)
				}
			}
		})
	}
}

func TestSessionPickAndRosters(t *testing.T) {
	cmd := &src{trigger: '/', name: "cmd", items: []slash.Item{{ID: "review"}}, out: slash.InsertText("/review ")}
	skills := &lexer{src: &src{trigger: '/', name: "skills"}, names: []string{"review"}}
	reg := NewRegistry()
	require.NoError(t, reg.Register(cmd))
	var posted []slash.Event
	var rewrote []slash.Rewrite
	s, birth := Open(reg, Config{
		Session: slash.Projection{SessionID: "s1"},
		Rewrite: func(r slash.Rewrite) bool { rewrote = append(rewrote, r); return true },
		Post:    func(ev slash.Event) { posted = append(posted, ev) },
	})
	require.Empty(t, birth)

	// A pick: the source says what it means, the input applies it.
	effs := s.Dispatch(slash.DraftObserved{Draft: "/re", SelStart: 3, SelEnd: 3, Rev: 1})
	for _, e := range effs {
		if ev, ok := s.Perform(context.Background(), e); ok {
			s.Dispatch(ev)
		}
	}
	require.True(t, s.Controller().Menu().Open)
	effs = s.Dispatch(slash.Key{Key: "Enter"})
	require.True(t, slash.Prevented(effs))
	require.Contains(t, effs, slash.Effect(slash.Picked{Source: cmd.key(), Outcome: slash.InsertText("/review "), Rewrote: true}))
	require.Equal(t, []slash.Item{{ID: "review"}}, cmd.picks)
	require.Equal(t, []slash.Rewrite{{Outcome: slash.InsertText("/review "), Span: input.Span{Start: 0, End: 3, Rev: 1}}}, rewrote)

	// A late source is posted, then warmed, subscribed and read.
	require.NoError(t, reg.Register(skills))
	require.Len(t, posted, 1)
	effs = s.Dispatch(posted[0])
	require.Equal(t, []slash.Effect{slash.Warm{Source: skills.key()}, slash.RosterChanged{}}, effs)
	require.Equal(t, []string{"review"}, s.Controller().Roster().Names('/'))
	require.Equal(t, 1, skills.listeners.Len(), "subscribed")

	// A notification is posted; Close ends the subscription and the registrations.
	skills.names = []string{"review", "deploy"}
	skills.listeners.Notify()
	require.Len(t, posted, 2)
	require.Equal(t, []slash.Effect{slash.RosterChanged{}}, s.Dispatch(posted[1]))
	s.Close()
	require.Zero(t, skills.listeners.Len())
	require.NoError(t, reg.Register(&src{trigger: '@', name: "later"}))
	require.Len(t, posted, 2)
	require.Nil(t, s.Dispatch(slash.Key{Key: "Enter"}))
}
