// Package outbox is the page's queue of prompts the server has not stored yet (docs/pwa.md,
// "Sending while the server is away"). A prompt joins it when the person presses Enter; it
// is sent with its attempt id, one request at a time and in the order the prompts were
// written; a send that finds no server waits until the server is reachable (the socket is
// live again, "Retry now", or a backoff timer) and goes again with the same attempt id, so
// the server stores it once; a prompt leaves once its session's log shows it. The shell
// keeps the entries in localStorage, so a reload loses none.
//
// It is a pure machine: events in, effects out, time given as durations; the shell runs
// the requests and the timers.
package outbox

import "time"

// State is where an entry stands.
type State int

const (
	// Waiting: not sent yet; it goes when the server is reachable.
	Waiting State = iota
	// Sending: a request for it is under way.
	Sending
	// Stored: the server stored it; it leaves when the session's log shows it.
	Stored
	// Refused: the server answered no (the session is gone, …); it is never sent again by
	// itself, and the person can take its text back.
	Refused
)

// Entry is one prompt.
type Entry struct {
	ID      string `json:"id"` // the attempt id: the server stores one prompt per id
	Session string `json:"session"`
	Text    string `json:"text"`
	Steer   bool   `json:"steer,omitempty"`
	State   State  `json:"state"`
	Err     string `json:"err,omitempty"` // why it was refused
	// Direct: the composer waits for this entry's first answer before it lets its draft go
	// (Accepted) or takes it back (Bounced). Not kept across a reload.
	Direct bool `json:"-"`
}

// Result is how one request went.
type Result int

const (
	// Done: the server stored the prompt (now or on an earlier try).
	Done Result = iota
	// Unreachable: no answer, or an answer that says to try later (5xx, 429).
	Unreachable
	// Rejected: the server refused it; trying again would not help.
	Rejected
)

// Events.
type (
	// Add puts a prompt at the end of the outbox.
	Add struct{ Entry Entry }
	// Loaded restores the entries a previous page kept, before anything else is added.
	Loaded struct{ Entries []Entry }
	// Settled answers Send.
	Settled struct {
		ID     string
		Result Result
		// Known: the server had stored it before (a retry of a stored attempt). The thread may
		// never show it again (it may be older than the thread's window), so it leaves now.
		Known bool
		Err   string
	}
	// Reach says whether the server answers: the socket went live (true) or lost the server
	// (false). Reachable wakes the outbox.
	Reach struct{ Online bool }
	// Wake tries again now: "Retry now".
	Wake struct{}
	// Fired is the timer Arm asked for.
	Fired struct{ Gen int }
	// Seen says the session's log holds the prompt with this attempt id.
	Seen struct{ ID string }
	// Cancel takes a waiting or refused prompt out; its text goes back to the composer.
	Cancel struct{ ID string }
)

// Effects.
type (
	// Send asks the shell to send the entry's prompt; answer with Settled.
	Send struct{ Entry Entry }
	// Changed says the entries changed: save them, draw them.
	Changed struct{}
	// Accepted lets the composer's attempt for ID go: the outbox holds the prompt now.
	Accepted struct{ ID string }
	// Bounced gives the composer's attempt for ID back with the server's refusal: the draft
	// returns to the box, as when any send is refused.
	Bounced struct {
		ID  string
		Err string
	}
	// Restore puts a cancelled prompt's text back in its session's composer.
	Restore struct{ Session, Text string }
	// Arm asks for Fired{Gen} after After.
	Arm struct {
		After time.Duration
		Gen   int
	}
)

// Event is an input of Dispatch; Effect an output.
type (
	Event  interface{ event() }
	Effect interface{ effect() }
)

func (Add) event()     {}
func (Loaded) event()  {}
func (Settled) event() {}
func (Reach) event()   {}
func (Wake) event()    {}
func (Fired) event()   {}
func (Seen) event()    {}
func (Cancel) event()  {}

func (Send) effect()     {}
func (Changed) effect()  {}
func (Accepted) effect() {}
func (Bounced) effect()  {}
func (Restore) effect()  {}
func (Arm) effect()      {}

// Backoff is the wait before the next try after n failed tries in a row: 1 s doubling to
// at most 30 s.
func Backoff(n int) time.Duration {
	d := time.Second
	for i := 1; i < n && d < 30*time.Second; i++ {
		d *= 2
	}
	return min(d, 30*time.Second)
}

// Machine is the outbox.
type Machine struct {
	entries  []Entry
	inflight string // the id of the request under way; "" for none
	offline  bool   // the last try found no server: new prompts wait without a try
	fails    int    // tries in a row that found no server
	gen      int    // the current timer's; an older Fired does nothing
	armed    bool
}

// New returns an empty outbox.
func New() *Machine { return &Machine{} }

// Entries are the prompts in the order they were written.
func (m *Machine) Entries() []Entry { return append([]Entry(nil), m.entries...) }

// Of are the entries of one session.
func (m *Machine) Of(session string) []Entry {
	var out []Entry
	for _, e := range m.entries {
		if e.Session == session {
			out = append(out, e)
		}
	}
	return out
}

// Inflight is the id of the request under way ("" for none).
func (m *Machine) Inflight() string { return m.inflight }

func (m *Machine) index(id string) int {
	for i, e := range m.entries {
		if e.ID == id {
			return i
		}
	}
	return -1
}

// Dispatch applies one event.
func (m *Machine) Dispatch(ev Event) []Effect {
	switch x := ev.(type) {
	case Add:
		if x.Entry.ID == "" || m.index(x.Entry.ID) >= 0 {
			return nil
		}
		e := x.Entry
		e.State, e.Err = Waiting, ""
		m.entries = append(m.entries, e)
		effs := []Effect{Changed{}}
		if m.offline && e.Direct {
			// The server was not there a moment ago: the prompt waits at once, shown as not
			// sent, instead of the composer waiting for a try that will fail.
			m.entries[len(m.entries)-1].Direct = false
			effs = append(effs, Accepted{ID: e.ID})
		}
		return m.next(effs)
	case Loaded:
		if len(m.entries) > 0 {
			return nil
		}
		for _, e := range x.Entries {
			if e.ID == "" || m.index(e.ID) >= 0 {
				continue
			}
			if e.State != Refused {
				e.State = Waiting // a try under way, or stored and not seen: ask again, same id
			}
			e.Direct = false
			m.entries = append(m.entries, e)
		}
		if len(m.entries) == 0 {
			return nil
		}
		return m.next([]Effect{Changed{}})
	case Settled:
		return m.settled(x)
	case Reach:
		if !x.Online {
			m.offline = true
			return nil
		}
		return m.wake()
	case Wake:
		return m.wake()
	case Fired:
		if x.Gen != m.gen || !m.armed {
			return nil
		}
		m.armed = false
		m.offline = false // a try: a failure marks it offline again, with a longer wait
		return m.next(nil)
	case Seen:
		i := m.index(x.ID)
		if i < 0 {
			return nil
		}
		var effs []Effect
		if m.entries[i].Direct {
			effs = append(effs, Accepted{ID: x.ID})
		}
		m.entries = append(m.entries[:i:i], m.entries[i+1:]...)
		return append(effs, Changed{})
	case Cancel:
		i := m.index(x.ID)
		if i < 0 || (m.entries[i].State != Waiting && m.entries[i].State != Refused) {
			return nil
		}
		e := m.entries[i]
		m.entries = append(m.entries[:i:i], m.entries[i+1:]...)
		return []Effect{Changed{}, Restore{Session: e.Session, Text: e.Text}}
	}
	return nil
}

// wake forgets the failures and tries at once.
func (m *Machine) wake() []Effect {
	m.offline, m.fails = false, 0
	m.gen++
	m.armed = false
	return m.next(nil)
}

// next sends the first waiting entry, unless a request is under way or the server was not
// there at the last try (then the timer, the socket or Retry now wakes it).
func (m *Machine) next(effs []Effect) []Effect {
	if m.inflight != "" || m.offline {
		return effs
	}
	for i := range m.entries {
		if m.entries[i].State == Waiting {
			m.entries[i].State = Sending
			m.inflight = m.entries[i].ID
			return append(effs, Send{Entry: m.entries[i]})
		}
	}
	return effs
}

func (m *Machine) settled(x Settled) []Effect {
	if x.ID != m.inflight {
		return nil
	}
	m.inflight = ""
	i := m.index(x.ID)
	var effs []Effect
	switch x.Result {
	case Done:
		m.offline, m.fails = false, 0
		if i >= 0 {
			if m.entries[i].Direct {
				effs = append(effs, Accepted{ID: x.ID})
				m.entries[i].Direct = false
			}
			if x.Known {
				m.entries = append(m.entries[:i:i], m.entries[i+1:]...)
			} else {
				m.entries[i].State = Stored
			}
			effs = append(effs, Changed{})
		}
	case Unreachable:
		m.offline = true
		m.fails++
		if i >= 0 {
			m.entries[i].State = Waiting
			if m.entries[i].Direct {
				effs = append(effs, Accepted{ID: x.ID})
				m.entries[i].Direct = false
			}
			effs = append(effs, Changed{})
		}
		m.gen++
		m.armed = true
		effs = append(effs, Arm{After: Backoff(m.fails), Gen: m.gen})
	case Rejected:
		if i >= 0 {
			if m.entries[i].Direct {
				// The composer takes it back, as any refused send: it leaves the outbox.
				effs = append(effs, Bounced{ID: x.ID, Err: x.Err})
				m.entries = append(m.entries[:i:i], m.entries[i+1:]...)
			} else {
				m.entries[i].State, m.entries[i].Err = Refused, x.Err
			}
			effs = append(effs, Changed{})
		}
	}
	return m.next(effs)
}
