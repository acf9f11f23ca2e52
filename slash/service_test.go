package slash

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/machine/input"
)

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
		{"bad trigger", []*src{{trigger: '#', name: "tag"}}, ErrInvalidSource, `trigger must be '/' or '@'`},
		{"no name", []*src{{trigger: '@'}}, ErrInvalidSource, "name non-empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := NewService()
			var err error
			for _, s := range tt.sources {
				if err = svc.Register(s); err != nil {
					break
				}
			}
			if tt.wantErr == nil {
				require.NoError(t, err)
				assert.Len(t, svc.Sources(), len(tt.sources))
				return
			}
			assert.ErrorIs(t, err, tt.wantErr)
			assert.ErrorContains(t, err, tt.errText)
		})
	}
}

func TestRegistrationOrder(t *testing.T) {
	svc := NewService()
	names := []string{"c", "a", "b"}
	for _, n := range names {
		require.NoError(t, svc.Register(&src{trigger: '/', name: n}))
	}
	var got []string
	for _, s := range svc.Sources() {
		got = append(got, s.Name())
	}
	assert.Equal(t, names, got)
	s, ok := svc.Lookup(SourceKey{'/', "a"})
	assert.True(t, ok)
	assert.Equal(t, "a", s.Name())
	_, ok = svc.Lookup(SourceKey{'@', "a"})
	assert.False(t, ok)
	assert.ErrorIs(t, svc.Register(nil), ErrInvalidSource)
}

func TestPerform(t *testing.T) {
	var asked []string
	cmd := &src{trigger: '/', name: "cmd", items: []Item{{ID: "review"}, {ID: "deploy"}}}
	en := &enterer{src: &src{trigger: '/', name: "en"}, claim: input.Claim{Token: "/x "}, answer: true, asked: &asked}
	wl := &warmLexer{lexer: &lexer{src: &src{trigger: '@', name: "w"}}, err: errBoom}
	svc := NewService()
	for _, s := range []Source{cmd, en, wl} {
		require.NoError(t, svc.Register(s))
	}
	ctx := context.Background()
	p := Projection{SessionID: "s"}
	hit := Hit{Trigger: '/', Query: "re"}

	ev, ok := svc.Perform(ctx, p, FetchCandidates{Gen: 3, Source: cmd.key(), Hit: hit})
	assert.True(t, ok)
	assert.Equal(t, CandidatesArrived{Gen: 3, Source: cmd.key(), Items: []Item{{ID: "review"}}}, ev)

	ev, _ = svc.Perform(ctx, p, FetchCandidates{Gen: 3, Source: SourceKey{'/', "gone"}, Hit: hit})
	assert.ErrorContains(t, ev.(CandidatesArrived).Err, "not registered")

	ev, _ = svc.Perform(ctx, p, RunEnterMatch{Attempt: attempt(7), Source: en.key(), Draft: "/x y"})
	assert.Equal(t, EnterMatched{Attempt: attempt(7), Source: en.key(), Claim: input.Claim{Token: "/x "}, OK: true}, ev)
	assert.Equal(t, []string{"en:/x y"}, asked)

	ev, _ = svc.Perform(ctx, p, Warm{Source: wl.key()})
	assert.ErrorIs(t, ev.(WarmDone).Err, errBoom)
	assert.ErrorContains(t, ev.(WarmDone).Err, `warm "@w"`)

	ev, _ = svc.Perform(ctx, p, Warm{Source: cmd.key()})
	assert.Equal(t, WarmDone{Source: cmd.key()}, ev, "a source without Warmer is warm")

	_, ok = svc.Perform(ctx, p, HideMenu{})
	assert.False(t, ok, "not an asynchronous effect")
}
