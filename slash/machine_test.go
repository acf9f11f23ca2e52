package slash

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/machine/input"
)

// machineBail is the browser shell's adapter, in miniature: each bail event is dispatched
// into the real input machine and answered with input.Rewrote.
type machineBail struct{ m *input.Machine }

func (b machineBail) BeginCommand(c input.Claim, at input.Span) bool {
	return input.Rewrote(b.m.Dispatch(input.BeginCommand{Claim: c, Span: at}))
}
func (b machineBail) InsertReference(r input.Reference, at input.Span) bool {
	return input.Rewrote(b.m.Dispatch(input.InsertRef{Reference: r, Span: at}))
}
func (b machineBail) InsertText(t string, at input.Span) bool {
	return input.Rewrote(b.m.Dispatch(input.InsertText{Text: t, Span: at}))
}
func (b machineBail) ConsumeToken(g Guard) bool {
	return input.Rewrote(b.m.Dispatch(input.ConsumeToken{Span: g.Span, Token: g.Token}))
}

// tierOf is the shell's mapping from the machine's phase to a guard tier.
func tierOf(p input.Phase) Tier {
	switch p {
	case input.Plain:
		return Plain
	case input.Claimed:
		return Claimed
	}
	return Frozen
}

// shell wires a real machine and a controller the way the browser shell does.
type shell struct {
	m *input.Machine
	c *Controller
}

func newShell(t *testing.T, sources ...Source) *shell {
	t.Helper()
	svc := NewService()
	for _, s := range sources {
		require.NoError(t, svc.Register(s))
	}
	m := input.New(input.Config{Session: "s1"})
	c, _ := NewController(svc, Config{Session: Projection{SessionID: "s1"}, Bail: machineBail{m}})
	return &shell{m: m, c: c}
}

// typeIn sets the textarea's value, lets the machine take it, and optionally lets the
// controller observe it.
func (s *shell) typeIn(draft string, observe bool) []Effect {
	s.m.Dispatch(input.DraftChanged{Draft: draft})
	if !observe {
		return nil
	}
	return s.observe()
}

func (s *shell) observe() []Effect {
	caret := utf16Len(s.m.Draft())
	return s.c.Dispatch(DraftObserved{Draft: s.m.Draft(), SelStart: caret, SelEnd: caret, Rev: s.m.Rev(), Tier: tierOf(s.m.Phase())})
}

func TestMachineSpaceBeginsCommand(t *testing.T) {
	var asked []string
	cmd := &spacer{src: &src{trigger: '/', name: "cmd"}, answer: true,
		space: BeginCommand(input.Claim{Token: "/review ", Hint: "<pr>"}), asked: &asked}
	s := newShell(t, cmd)
	s.typeIn("/review", true)
	effs := s.c.Dispatch(press(" "))
	assert.True(t, Prevented(effs), "the machine rewrote, so the typed space is cancelled")
	assert.Equal(t, "/review ", s.m.Draft())
	claim, ok := s.m.Claim()
	assert.True(t, ok)
	assert.Equal(t, "/review ", claim.Token)

	// Claimed: `/` is suppressed, `@` stays live.
	s.typeIn("/review /x", true)
	_, hit := s.c.Hit()
	assert.False(t, hit)
}

func TestMachineStaleSpanNeverRewrites(t *testing.T) {
	var asked []string
	cmd := &spacer{src: &src{trigger: '/', name: "cmd"}, answer: true,
		space: BeginCommand(input.Claim{Token: "/review "}), asked: &asked}
	people := &src{trigger: '@', name: "people", items: []Item{{ID: "alice"}}, out: InsertText("@alice ")}
	s := newShell(t, cmd, people)

	s.typeIn("/review", true)
	s.typeIn("/reviewx", false) // the machine moved on; the controller has not seen it
	effs := s.c.Dispatch(press(" "))
	assert.False(t, Prevented(effs), "a stale span is refused, so the space is typed")
	assert.Equal(t, []Picked{{Source: cmd.key(), Outcome: BeginCommand(input.Claim{Token: "/review "}), Rewrote: false}}, of[Picked](effs))
	assert.Equal(t, "/reviewx", s.m.Draft())
	_, claimed := s.m.Claim()
	assert.False(t, claimed)

	// The same through a menu pick: Enter is still taken (it must not submit), nothing is
	// rewritten, and the menu stays for the next observation.
	fetch := of[FetchCandidates](s.typeIn("hi @al", true))
	require.Len(t, fetch, 1)
	ev, _ := s.c.Perform(context.Background(), fetch[0])
	s.c.Dispatch(ev)
	require.True(t, s.c.Menu().Open)
	s.typeIn("hi @ali", false)
	effs = s.c.Dispatch(press("Enter"))
	assert.True(t, Prevented(effs))
	assert.False(t, of[Picked](effs)[0].Rewrote)
	assert.Equal(t, "hi @ali", s.m.Draft())
	assert.True(t, s.c.Menu().Open)

	// Observed again, the pick lands.
	s.observe()
	effs = s.c.Dispatch(press("Enter"))
	assert.True(t, of[Picked](effs)[0].Rewrote)
	assert.Equal(t, "hi @alice ", s.m.Draft())
}

func TestMachineLateGenerationDropped(t *testing.T) {
	skills := &src{trigger: '/', name: "skills", items: []Item{{ID: "refactor"}, {ID: "review"}}, out: InsertText("/refactor ")}
	s := newShell(t, skills)
	ctx := context.Background()

	first := of[FetchCandidates](s.typeIn("/r", true))
	second := of[FetchCandidates](s.typeIn("/ref", true))
	require.Len(t, first, 1)
	require.Len(t, second, 1)
	late, _ := s.c.Perform(ctx, first[0])
	fresh, _ := s.c.Perform(ctx, second[0])

	s.c.Dispatch(fresh)
	assert.Empty(t, s.c.Dispatch(late), "the older generation arrives last and is dropped")
	m := s.c.Menu()
	require.True(t, m.Open)
	assert.Equal(t, "ref", m.Query)
	assert.Equal(t, []Option{{skills.key(), Item{ID: "refactor"}}}, m.Options)

	effs := s.c.Dispatch(press("Enter"))
	assert.True(t, Prevented(effs))
	assert.Equal(t, "/refactor ", s.m.Draft())
	_, claimed := s.m.Claim()
	assert.False(t, claimed, "plain-text references claim nothing")
	// What the machine did comes back as an observation; the trigger is gone.
	assert.Empty(t, of[FetchCandidates](s.observe()))
	_, hit := s.c.Hit()
	assert.False(t, hit)
}
