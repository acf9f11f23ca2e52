package slash

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
func (s *safeSource) Candidates(_ context.Context, q Query) ([]Item, error) {
	// Yield a varying number of times so answers overtake each other.
	for range len(q.Query) % 4 {
		runtime.Gosched()
	}
	var out []Item
	for _, it := range s.items {
		if strings.HasPrefix(it, q.Query) {
			out = append(out, Item{ID: it})
		}
	}
	return out, nil
}
func (s *safeSource) Pick(it Item, _ Query) PickOutcome {
	return InsertText(string(s.trigger) + it.ID + " ")
}
func (s *safeSource) Warm(context.Context, Projection) error {
	s.mu.Lock()
	s.warm = true
	s.mu.Unlock()
	s.notify()
	return nil
}
func (s *safeSource) Lexicon(Projection) ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.roster...), s.warm
}
func (s *safeSource) SubscribeLexicon(_ Projection, changed func()) func() {
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
	events  chan Event
	pending atomic.Int64 // events sent or being produced, not yet dispatched
	c       *Controller
	ask     chan func()
}

func (l *loop) post(ev Event) {
	l.pending.Add(1)
	go func() { l.events <- ev }()
}

func (l *loop) run(effs []Effect) {
	for _, e := range effs {
		switch e.(type) {
		case FetchCandidates, RunEnterMatch, Warm:
			l.pending.Add(1)
			go func() {
				ev, ok := l.c.Perform(context.Background(), e)
				if !ok {
					panic(fmt.Sprintf("not performed: %#v", e))
				}
				l.events <- ev
			}()
		}
	}
}

// TestConcurrentShell runs the controller as the shell does, with Perform on goroutines,
// lexicon notifications and a registration from other goroutines, under -race. The
// controller's state is touched only on the loop; what must hold at the end is that the
// latest generation won and the late source was folded in.
func TestConcurrentShell(t *testing.T) {
	svc := NewService()
	cmd := &safeSource{trigger: '/', name: "cmd", items: []string{"review", "rename", "refactor", "deploy"}}
	people := &safeSource{trigger: '@', name: "people", items: []string{"alice", "bob"}, roster: []string{"alice"}}
	require.NoError(t, svc.Register(cmd))
	require.NoError(t, svc.Register(people))

	l := &loop{events: make(chan Event), ask: make(chan func())}
	var birth []Effect
	l.c, birth = NewController(svc, Config{Session: Projection{SessionID: "s1"}, Bail: &bail{accept: true}, Post: l.post})
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
				l.run(l.c.Dispatch(ev))
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
	wg.Go(func() { assert.NoError(t, svc.Register(late)) })
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
		l.events <- DraftObserved{Draft: draft, SelStart: n, SelEnd: n, Rev: uint64(i + 1), Tier: Plain}
	}
	wg.Wait()
	for l.pending.Load() > 0 {
		runtime.Gosched()
	}

	var m Menu
	var refs []TextRef
	var names []string
	onLoop(func() { m, refs, names = l.c.Menu(), l.c.TextRefs(), l.c.Roster().Names('/') })
	assert.Equal(t, "review", m.Query)
	assert.Equal(t, []Option{{cmd.key(), Item{ID: "review"}}, {late.key(), Item{ID: "review-deep"}}}, m.Options,
		"the last query's answers, both groups in registration order")
	assert.False(t, m.Loading)
	assert.Equal(t, []string{"review"}, names, "the late source's roster is folded in")
	assert.Equal(t, []TextRef{{3, 7, '@', "bob"}, {8, 15, '/', "review"}}, refs)
	onLoop(l.c.Close)
	close(l.events)
	<-done
}

func (s *safeSource) key() SourceKey { return SourceKey{Trigger: s.trigger, Name: s.name} }
