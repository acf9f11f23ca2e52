package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"parley/protocol"
)

// Windows of a session's log: where a page can start showing a session without folding all
// that came before (docs/protocol.md, "Windows"). A window starts at a cut: an event before
// which nothing was open (no turn, no decision, no run), and every prompt still waiting was
// queued behind another (none shown yet), at most maxCutQueue of them. The fold of a page
// (app/store.Thread) started at a cut, after the cut's prelude (the waiting prompts, the
// session's created event, its last model and permissions), is the fold of the whole log
// from that point on; and a page of older events from one cut to the next, folded alone,
// shows exactly the entries between them.
//
// Each session's cuts are indexed once per process as its log is read, and the index grows
// with what is appended: opening a session reads only what was stored since the last open.

// maxCutQueue bounds the prompts a cut may have waiting: each cut keeps their offsets.
const maxCutQueue = 64

// cutSpacing is the fewest entries between two cuts the index keeps: a window may hold up to
// that many entries more than asked, and the index (kept in a bucket, see window_kept.go)
// stays a fraction of the session's length.
const cutSpacing = 8

// cut is a place a window can start.
type cut struct {
	offset  uint64   // the first event of the window
	entries int      // the thread entries before it
	queued  []uint64 // prompts waiting at the cut, in log order
	// edits are the last prompt.edited of each queued prompt edited before the cut: the
	// page folds them with the prompts, so a queued prompt shows its new text.
	edits []uint64
	// controls are the last session.model, session.permissions and turn.usage events before
	// the cut (0: none): the newest window's prelude, for the controls row.
	controls [3]uint64
}

// windowIndex folds a session's log into its cuts.
type windowIndex struct {
	mu      sync.Mutex
	scanned uint64 // the last offset folded
	turns   int
	// waiting are the prompts no turn has started, in log order; shown is true for one that
	// the thread showed at once (it arrived with nothing running or waiting).
	waiting   []uint64
	shown     map[uint64]bool
	edited    map[uint64]uint64 // waiting prompt → its last prompt.edited
	decisions map[string]bool
	runs      map[string]bool
	entries   int
	cuts      []cut
	created   uint64
	controls  [3]uint64 // the last session.model, session.permissions and turn.usage so far
	// kept is the last offset the index was kept at in the bucket (window_kept.go); loaded
	// says the bucket was asked already.
	kept   uint64
	loaded bool
	// read counts the events folded by this process: what opening the session cost.
	read int
}

// The controls' slots.
const (
	controlModel = iota
	controlPermissions
	controlUsage
)

func newWindowIndex() *windowIndex {
	return &windowIndex{shown: map[uint64]bool{}, edited: map[uint64]uint64{}, decisions: map[string]bool{}, runs: map[string]bool{}}
}

func (x *windowIndex) apply(ev protocol.Event) {
	if c, ok := x.cutAt(ev); ok && (len(x.cuts) == 0 || c.entries-x.cuts[len(x.cuts)-1].entries >= cutSpacing) {
		x.cuts = append(x.cuts, c)
	}
	x.read++
	switch ev.Type {
	case protocol.EventSessionCreated:
		x.created = ev.Offset
	case protocol.EventSessionModel:
		x.controls[controlModel] = ev.Offset
	case protocol.EventSessionPermissions:
		x.controls[controlPermissions] = ev.Offset
	case protocol.EventTurnUsage:
		x.controls[controlUsage] = ev.Offset
	case protocol.EventUserMessage:
		if x.turns == 0 && len(x.waiting) == 0 {
			x.shown[ev.Offset] = true
		}
		x.waiting = append(x.waiting, ev.Offset)
	case protocol.EventAgentMessage:
		if x.turns == 0 {
			x.waiting = nil // as the thread does for logs from before turns were recorded
		}
	case protocol.EventTurnStarted:
		x.turns++
	case protocol.EventPromptEdited:
		if pe, err := protocol.DecodeEventData[protocol.PromptEdited](ev); err == nil && slices.Contains(x.waiting, pe.Prompt) {
			x.edited[pe.Prompt] = ev.Offset
		}
	case protocol.EventTurnEnded:
		x.turns = max(0, x.turns-1)
	case protocol.EventQuestionAsked:
		if qa, err := ev.DecodeQuestionAsked(); err == nil {
			x.decisions[qa.ID] = true
		}
	case protocol.EventQuestionReplied, protocol.EventQuestionRejected:
		if id, ok := ev.EndedDecision(); ok {
			delete(x.decisions, id)
		}
	case protocol.EventRunStarted:
		if rs, err := protocol.DecodeEventData[protocol.RunStarted](ev); err == nil {
			x.runs[rs.ID] = true
		}
	case protocol.EventRunSettled:
		if rs, err := protocol.DecodeEventData[protocol.RunSettled](ev); err == nil {
			delete(x.runs, rs.Run)
		}
	}
	// A prompt run, steered into a turn or taken back no longer waits: no later window may
	// show it waiting.
	if p, ok := ev.TakenPrompt(); ok {
		x.take(p)
	}
	switch ev.Type {
	case protocol.EventUserMessage, protocol.EventAgentMessage, protocol.EventRunStarted, protocol.EventQuestionAsked, protocol.EventToolCalled:
		x.entries++
	}
	x.scanned = ev.Offset
}

func (x *windowIndex) take(prompt uint64) {
	x.waiting = slices.DeleteFunc(x.waiting, func(o uint64) bool { return o == prompt })
	delete(x.shown, prompt)
	delete(x.edited, prompt)
}

// cutAt says whether a window can start at ev, given what is open before it.
func (x *windowIndex) cutAt(ev protocol.Event) (cut, bool) {
	if x.turns > 0 || len(x.decisions) > 0 || len(x.runs) > 0 || len(x.waiting) > maxCutQueue {
		return cut{}, false
	}
	if len(x.waiting) > 0 {
		// Prompts wait: only where the first of them starts, and only if the thread did not
		// show it already (a prompt sent with nothing running is shown at once, so the page
		// before the cut holds it).
		if ev.Type != protocol.EventTurnStarted || x.shown[x.waiting[0]] {
			return cut{}, false
		}
		ts, err := protocol.DecodeEventData[protocol.TurnStarted](ev)
		if err != nil || ts.Prompt != x.waiting[0] {
			return cut{}, false
		}
	}
	var edits []uint64
	for _, p := range x.waiting {
		if e, ok := x.edited[p]; ok {
			edits = append(edits, e)
		}
	}
	return cut{offset: ev.Offset, entries: x.entries, queued: slices.Clone(x.waiting), edits: edits, controls: x.controls}, true
}

// window picks the cut of a window ending before `before` (0: the end of the log) that holds
// at least size entries, the latest such; the first cut when none holds that many.
func (x *windowIndex) window(before uint64, size int) (cut, bool, error) {
	if len(x.cuts) == 0 {
		return cut{}, false, nil
	}
	end := x.entries
	if before != 0 {
		i, found := slices.BinarySearchFunc(x.cuts, before, func(c cut, off uint64) int { return cmpUint(c.offset, off) })
		if !found {
			return cut{}, false, fmt.Errorf("%w: offset %d starts no window of this session; ask before the from of a window it gave", ErrBadWindow, before)
		}
		end = x.cuts[i].entries
	}
	// The cuts' entries only grow: the last cut with entries <= end-size.
	i := sort.Search(len(x.cuts), func(i int) bool { return x.cuts[i].entries > end-size }) - 1
	if i < 0 {
		i = 0
	}
	if before != 0 && x.cuts[i].offset >= before {
		return cut{}, false, nil
	}
	return x.cuts[i], true, nil
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ErrBadWindow is a page asked before an offset that starts no window.
var ErrBadWindow = errors.New("not the start of a window")

// windowCache holds the sessions' indexes. It keeps at most maxIndexed sessions; past that
// one is dropped, and rebuilt if it is opened again.
type windowCache struct {
	mu       sync.Mutex
	sessions map[string]*windowIndex
}

const maxIndexed = 64

func (w *windowCache) index(session string) *windowIndex {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sessions == nil {
		w.sessions = map[string]*windowIndex{}
	}
	x := w.sessions[session]
	if x == nil {
		if len(w.sessions) >= maxIndexed {
			for k := range w.sessions {
				delete(w.sessions, k)
				break
			}
		}
		x = newWindowIndex()
		w.sessions[session] = x
	}
	return x
}

// Window finds where a page can start showing a session: the newest window holding at least
// size entries that ends before `before` (0: the newest window of all, which ends at the
// head). It answers the window's start and the prelude the page folds first: the prompts
// waiting at the start, and, for the newest window, the session's created event and its last
// model, permission and usage events before it (the controls row's). From is 0 when the window is the whole log.
func (r *Runtime) Window(ctx context.Context, session string, before uint64, size int) (protocol.Window, []protocol.Event, error) {
	size = min(max(size, 1), protocol.MaxTail)
	if _, err := r.Session(ctx, session); err != nil {
		return protocol.Window{}, nil, err
	}
	head, err := r.Head(ctx, session)
	if err != nil {
		return protocol.Window{}, nil, err
	}
	x := r.windows.index(session)
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.loaded {
		r.loadWindowIndex(ctx, session, x, head)
	}
	if x.scanned < head {
		if err := r.scanInto(ctx, session, x, head); err != nil {
			return protocol.Window{}, nil, err
		}
		r.keepWindowIndex(ctx, session, x)
	}
	c, ok, err := x.window(before, size)
	if err != nil || !ok {
		return protocol.Window{}, nil, err
	}
	if c.offset == x.cuts[0].offset {
		if before == 0 {
			return protocol.Window{}, nil, nil // the whole log: nothing to fold before it
		}
		pre := append(slices.Clone(c.queued), c.edits...)
		slices.Sort(pre)
		evs, err := r.events(ctx, session, pre)
		return protocol.Window{From: c.offset}, evs, err
	}
	pre := append(slices.Clone(c.queued), c.edits...)
	if before == 0 {
		if x.created != 0 && x.created < c.offset {
			pre = append(pre, x.created)
		}
		for _, off := range c.controls {
			if off != 0 {
				pre = append(pre, off)
			}
		}
	}
	slices.Sort(pre)
	evs, err := r.events(ctx, session, pre)
	return protocol.Window{From: c.offset, Older: true}, evs, err
}

// events reads a session's events by offset: from what the replays keep of it (replay.go),
// else one read of the log each.
func (r *Runtime) events(ctx context.Context, session string, offsets []uint64) ([]protocol.Event, error) {
	x := r.replays.run(session)
	out := make([]protocol.Event, 0, len(offsets))
	for _, off := range offsets {
		ev, ok := x.get(off)
		if !ok {
			var err error
			if ev, err = r.log.Get(ctx, off); err != nil {
				return nil, err
			}
		}
		out = append(out, ev)
	}
	return out, nil
}

// scanInto folds the session's events after x.scanned, up to head, into x. They are read as
// a socket's replay reads them (replay.go): the newest of them are then kept, so the socket
// or the page that asked for the window replays it from memory.
func (r *Runtime) scanInto(ctx context.Context, session string, x *windowIndex, head uint64) error {
	return r.Replay(ctx, session, x.scanned, head, func(evs []protocol.Event) error {
		for _, ev := range evs {
			x.apply(ev)
		}
		return nil
	})
}
