package slashhost

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/machine/utf16x"
	"parley/slash"
)

// safeSource is a source written the way Source asks: its state behind a lock, because
// Candidates and Warm run off the loop while Lexicon runs on it.
type safeSource struct {
	trigger rune
	name    string
	items   []string

	mu        sync.Mutex
	roster    []string
	warm      bool
	listeners []func()
}

func (s *safeSource) Trigger() rune { return s.trigger }
func (s *safeSource) Name() string  { return s.name }
func (s *safeSource) Candidates(_ context.Context, q slash.Query) ([]slash.Item, error) {
	// Yield a varying number of times so answers overtake each other.
	for range len(q.Query) % 4 {
		runtime.Gosched()
	}
	var out []slash.Item
	for _, it := range s.items {
		if strings.HasPrefix(it, q.Query) {
			out = append(out, slash.Item{ID: it})
		}
	}
	return out, nil
}
func (s *safeSource) Pick(it slash.Item, _ slash.Query) slash.PickOutcome {
	return slash.InsertText(string(s.trigger) + it.ID + " ")
}
func (s *safeSource) Warm(context.Context, slash.Projection) error {
	s.mu.Lock()
	s.warm = true
	s.mu.Unlock()
	s.notify()
	return nil
}
func (s *safeSource) Lexicon(slash.Projection) ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.roster...), s.warm
}
func (s *safeSource) SubscribeLexicon(_ slash.Projection, changed func()) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listeners = append(s.listeners, changed)
	return func() {}
}
func (s *safeSource) setRoster(names ...string) {
	s.mu.Lock()
	s.roster = names
	s.mu.Unlock()
	s.notify()
}
func (s *safeSource) notify() {
	s.mu.Lock()
	ls := append([]func(){}, s.listeners...)
	s.mu.Unlock()
	for _, l := range ls {
		l()
	}
}

// loop is the browser shell's event loop in miniature: one goroutine dispatches, and
// asynchronous effects are performed on goroutines of their own.
type loop struct {
	events  chan slash.Event
	pending atomic.Int64 // events sent or being produced, not yet dispatched
	s       *Session
	ask     chan func()
}

func (l *loop) post(ev slash.Event) {
	l.pending.Add(1)
	go func() { l.events <- ev }()
}

func (l *loop) run(effs []slash.Effect) {
	for _, e := range effs {
		switch e.(type) {
		case slash.FetchCandidates, slash.RunEnterMatch, slash.Warm:
			l.pending.Add(1)
			go func() {
				ev, ok := l.s.Perform(context.Background(), e)
				if !ok {
					panic(fmt.Sprintf("not performed: %#v", e))
				}
				l.events <- ev
			}()
		}
	}
}

// TestConcurrentShell runs a session as the shell does, with Perform on goroutines,
// lexicon notifications and a registration from other goroutines, under -race. The
// controller's state is touched only on the loop; what must hold at the end is that the
// latest generation won and the late source was folded in.
func TestConcurrentShell(t *testing.T) {
	reg := NewRegistry()
	cmd := &safeSource{trigger: '/', name: "cmd", items: []string{"review", "rename", "refactor", "deploy"}}
	people := &safeSource{trigger: '@', name: "people", items: []string{"alice", "bob"}, roster: []string{"alice"}}
	require.NoError(t, reg.Register(cmd))
	require.NoError(t, reg.Register(people))

	l := &loop{events: make(chan slash.Event), ask: make(chan func())}
	var birth []slash.Effect
	l.s, birth = Open(reg, Config{Session: slash.Projection{SessionID: "s1"}, Post: l.post})
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.run(birth)
		for {
			select {
			case ev, ok := <-l.events:
				if !ok {
					return
				}
				l.run(l.s.Dispatch(ev))
				l.pending.Add(-1)
			case f := <-l.ask:
				f()
			}
		}
	}()
	onLoop := func(f func()) {
		ran := make(chan struct{})
		l.ask <- func() { f(); close(ran) }
		<-ran
	}

	late := &safeSource{trigger: '/', name: "skills", items: []string{"review-deep"}, roster: []string{"review"}}
	var wg sync.WaitGroup
	wg.Go(func() { assert.NoError(t, reg.Register(late)) })
	wg.Go(func() {
		for range 20 {
			people.setRoster("alice", "bob")
		}
	})
	draft := ""
	for i, c := range "hi @bob /review" {
		draft += string(c)
		n := utf16x.Len(draft)
		// Typing is ordered: sent from here, one keystroke at a time.
		l.pending.Add(1)
		l.events <- slash.DraftObserved{Draft: draft, SelStart: n, SelEnd: n, Rev: uint64(i + 1), Tier: slash.Plain}
	}
	wg.Wait()
	for l.pending.Load() > 0 {
		runtime.Gosched()
	}

	var m slash.Menu
	var refs []slash.TextRef
	var names []string
	onLoop(func() { c := l.s.Controller(); m, refs, names = c.Menu(), c.TextRefs(), c.Roster().Names('/') })
	assert.Equal(t, "review", m.Query)
	assert.Equal(t, []slash.Option{{Source: cmd.key(), Item: slash.Item{ID: "review"}}, {Source: late.key(), Item: slash.Item{ID: "review-deep"}}}, m.Options,
		"the last query's answers, both groups in registration order")
	assert.False(t, m.Loading)
	assert.Equal(t, []string{"review"}, names, "the late source's roster is folded in")
	assert.Equal(t, []slash.TextRef{{Start: 3, End: 7, Trigger: '@', Name: "bob"}, {Start: 8, End: 15, Trigger: '/', Name: "review"}}, refs)
	onLoop(l.s.Close)
	close(l.events)
	<-done
}

func (s *safeSource) key() slash.SourceKey { return slash.SourceKey{Trigger: s.trigger, Name: s.name} }
