package slash

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/machine/input"

	"parley/machine/utf16x"
)

// machineRewrite is the browser shell's answer to Rewrite, in miniature: the outcome's event
// goes into the real input machine, and the answer is input.Rewrote.
func machineRewrite(m *input.Machine) func(Rewrite) bool {
	return func(r Rewrite) bool {
		ev := r.Event()
		return ev != nil && input.Rewrote(m.Dispatch(ev))
	}
}

// shell wires a real machine and a controller the way the browser shell does.
type shell struct {
	m *input.Machine
	c *driver
}

func newShell(t *testing.T, sources ...Source) *shell {
	t.Helper()
	m := input.New(input.Config{Session: "s1"})
	c, _ := newDriver(sources, machineRewrite(m), nil)
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
	caret := utf16x.Len(s.m.Draft())
	return s.c.Dispatch(DraftObserved{Draft: s.m.Draft(), SelStart: caret, SelEnd: caret, Rev: s.m.Rev(), Tier: TierOf(s.m.Phase())})
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

// TestMachineRefusalLetsSpaceThrough pins the bail contract from the controller's side:
// Space is prevented exactly when the real machine rewrote the draft, whatever the reason
// for a refusal (a stale span, the machine's own guard, a submit in flight, a no-op).
func TestMachineRefusalLetsSpaceThrough(t *testing.T) {
	tests := []struct {
		name string
		// typed is observed by the controller; after, if set, reaches only the machine.
		typed, after string
		enter        bool // Enter pressed after the observation: a submit is in flight
		out          PickOutcome
		wantPrevent  bool
		wantDraft    string
		wantClaim    bool
	}{
		{"accepted: begin-command", "/review", "", false, BeginCommand(input.Claim{Token: "/review "}), true, "/review ", true},
		{"accepted: insert-text mid-draft", "hi @al", "", false, InsertText("@alice "), true, "hi @alice ", false},
		{"accepted: insert-reference", "hi @al", "", false, InsertReference(input.Reference{Source: "@people", Ref: "alice", Label: "alice"}), true, "hi \uFFFC", false},
		{"accepted: consume-token", "/review", "", false, ConsumeToken(), true, "", false},
		{"stale span: begin-command", "/review", "/reviewx", false, BeginCommand(input.Claim{Token: "/review "}), false, "/reviewx", false},
		{"stale span: insert-text", "hi @al", "hi @ali", false, InsertText("@alice "), false, "hi @ali", false},
		{"stale span: insert-reference", "hi @al", "hi @a", false, InsertReference(input.Reference{Source: "@people", Ref: "alice"}), false, "hi @a", false},
		{"stale span: consume-token", "/review", "/revie", false, ConsumeToken(), false, "/revie", false},
		{"guard: a command not at the start", "hi /review", "", false, BeginCommand(input.Claim{Token: "/review "}), false, "hi /review", false},
		{"guard: an empty token", "/review", "", false, BeginCommand(input.Claim{}), false, "/review", false},
		{"busy: a submit in flight", "/review", "", true, BeginCommand(input.Claim{Token: "/review "}), false, "", false},
		{"no rewrite: an empty insertion at an empty span is not one", "", "", false, InsertText(""), false, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trigger := '/'
			if strings.Contains(tt.typed, "@") {
				trigger = '@'
			}
			var asked []string
			sp := &spacer{src: &src{trigger: trigger, name: "s"}, answer: true, space: tt.out, asked: &asked}
			s := newShell(t, sp)
			if tt.typed == "" {
				// No hit to adjudicate: drive the contract directly with an empty span.
				assert.False(t, machineRewrite(s.m)(Rewrite{Outcome: tt.out, Span: input.Span{Rev: s.m.Rev()}}))
				return
			}
			s.typeIn(tt.typed, true)
			if tt.after != "" {
				s.typeIn(tt.after, false)
			}
			if tt.enter {
				require.NotEmpty(t, s.m.Dispatch(input.Submit{}))
				require.Equal(t, input.Adjudicating, s.m.Phase())
			}
			effs := s.c.Dispatch(press(" "))
			require.Len(t, asked, 1, "the source was asked")
			assert.Equal(t, tt.wantPrevent, Prevented(effs))
			require.Len(t, of[Picked](effs), 1)
			assert.Equal(t, tt.wantPrevent, of[Picked](effs)[0].Rewrote)
			assert.Equal(t, tt.wantDraft, s.m.Draft())
			_, claimed := s.m.Claim()
			assert.Equal(t, tt.wantClaim, claimed)
			_, hit := s.c.Hit()
			assert.Equal(t, !tt.wantPrevent, hit, "a rewrite ends the hit; a refusal keeps it")
		})
	}
}

// TestMachineEnterAdjudication runs Enter through both machines: the input machine's
// Adjudicate effect goes to the controller, the sources are polled off-loop, and the
// verdict's Answer goes back to the input machine.
func TestMachineEnterAdjudication(t *testing.T) {
	claim := input.Claim{Token: "/review "}
	tests := []struct {
		name    string
		answer  bool
		claim   input.Claim
		err     error
		warmErr error
		want    func(t *testing.T, effs []input.Effect)
	}{
		{"no claimant: the default sink", false, claim, nil, nil, func(t *testing.T, effs []input.Effect) {
			assert.Equal(t, []input.DefaultSink{{Attempt: input.AttemptID{Session: "s1", Seq: 1}, Text: "/review 1"}}, ofInput[input.DefaultSink](effs))
		}},
		{"claimed: the claim's submit", true, claim, nil, nil, func(t *testing.T, effs []input.Effect) {
			got := ofInput[input.BeginSubmit](effs)
			require.Len(t, got, 1)
			assert.Equal(t, claim, got[0].Claim)
			assert.Empty(t, ofInput[input.DefaultSink](effs))
		}},
		{"a matcher error: nothing is sent", true, claim, errBoom, nil, func(t *testing.T, effs []input.Effect) {
			assertNothingSent(t, effs)
		}},
		{"a failed warm-up: nothing is sent", true, claim, nil, errBoom, func(t *testing.T, effs []input.Effect) {
			assertNothingSent(t, effs)
		}},
		{"a claim without a token: nothing is sent", true, input.Claim{}, nil, nil, func(t *testing.T, effs []input.Effect) {
			assertNothingSent(t, effs)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			e := &enterer{src: &src{trigger: '/', name: "cmd"}, claim: tt.claim, answer: tt.answer, err: tt.err, asked: &asked}
			m := input.New(input.Config{Session: "s1"})
			c, birth := newDriver([]Source{&warmEnterErr{enterer: e, err: tt.warmErr}}, machineRewrite(m), nil)
			m.Dispatch(input.DraftChanged{Draft: "/review 1"})
			adj := ofInput[input.Adjudicate](m.Dispatch(input.Submit{}))
			require.Len(t, adj, 1)
			effs := c.Dispatch(Adjudicate{Attempt: adj[0].Attempt, Draft: adj[0].Draft})
			assert.Empty(t, of[Adjudicated](effs), "the verdict waits for the warm-up")
			effs = append(birth, effs...) // the warm-up finishes while Enter waits
			var verdicts []Adjudicated
			for len(effs) > 0 {
				ev, ok := c.Perform(context.Background(), effs[0])
				verdicts = append(verdicts, of[Adjudicated](effs[:1])...)
				effs = effs[1:]
				if ok {
					effs = append(effs, c.Dispatch(ev)...)
				}
			}
			require.Len(t, verdicts, 1)
			tt.want(t, m.Dispatch(verdicts[0].Answer()))
		})
	}
}

// warmEnterErr is an Enter matcher with a warm-up that ends in err.
type warmEnterErr struct {
	*enterer
	err error
}

func (w *warmEnterErr) Warm(context.Context, Projection) error { return w.err }

func ofInput[T input.Effect](effs []input.Effect) []T {
	var out []T
	for _, e := range effs {
		if t, ok := e.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

func assertNothingSent(t *testing.T, effs []input.Effect) {
	t.Helper()
	assert.Empty(t, ofInput[input.DefaultSink](effs))
	assert.Empty(t, ofInput[input.BeginSubmit](effs))
	n := ofInput[input.Notice](effs)
	require.Len(t, n, 1)
	assert.Equal(t, input.AdjudicationFailedNotice, n[0].Kind)
}
