package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"slices"

	"github.com/nats-io/nats.go/jetstream"
)

// A session's window index is kept in a bucket beside the log, so the first open of a long
// session after a runtime starts reads only what was stored since the index was last kept,
// not its whole history (docs/protocol.md, "Windows"). The index is a fold of the log up to
// its `scanned` offset and nothing else: any replica's copy of any age is a true prefix, so
// replicas write it without coordination, and one that cannot be read, or is of another
// version, is rebuilt from the log.

// windowsBucket holds the kept indexes, by session.
const windowsBucket = "PARLEY_WINDOWS"

// windowIndexVersion changes with what the index folds: an index kept by another version is
// not used.
const windowIndexVersion = 1

// keepEvery is how many events an index must have folded since it was last kept before it
// is kept again: a short session costs no write, a long one is kept as it grows.
const keepEvery = 64

// maxKeptBytes stays under JetStream's default 1 MB message: an index that outgrows it (a
// session of a few hundred thousand prompts) is rebuilt from the log instead.
const maxKeptBytes = 900 << 10

// keptIndex is a windowIndex as it is kept.
type keptIndex struct {
	Version   int         `json:"v"`
	Scanned   uint64      `json:"scanned"`
	Turns     int         `json:"turns,omitempty"`
	Waiting   []uint64    `json:"waiting,omitempty"`
	Shown     []uint64    `json:"shown,omitempty"`
	Edited    [][2]uint64 `json:"edited,omitempty"` // a waiting prompt and its last edit
	Decisions []string    `json:"decisions,omitempty"`
	Runs      []string    `json:"runs,omitempty"`
	Entries   int         `json:"entries"`
	Cuts      []keptCut   `json:"cuts"`
	Created   uint64      `json:"created,omitempty"`
	Controls  [3]uint64   `json:"controls"`
}

type keptCut struct {
	Offset   uint64    `json:"o"`
	Entries  int       `json:"e"`
	Queued   []uint64  `json:"q,omitempty"`
	Edits    []uint64  `json:"x,omitempty"`
	Controls [3]uint64 `json:"c"`
}

func (x *windowIndex) keep() keptIndex {
	k := keptIndex{
		Version: windowIndexVersion, Scanned: x.scanned, Turns: x.turns, Waiting: x.waiting,
		Shown: slices.Sorted(maps.Keys(x.shown)), Decisions: slices.Sorted(maps.Keys(x.decisions)),
		Runs: slices.Sorted(maps.Keys(x.runs)), Entries: x.entries, Created: x.created, Controls: x.controls,
		Cuts: make([]keptCut, len(x.cuts)),
	}
	for i, c := range x.cuts {
		k.Cuts[i] = keptCut{Offset: c.offset, Entries: c.entries, Queued: c.queued, Edits: c.edits, Controls: c.controls}
	}
	for _, p := range slices.Sorted(maps.Keys(x.edited)) {
		k.Edited = append(k.Edited, [2]uint64{p, x.edited[p]})
	}
	return k
}

func (k keptIndex) restore(x *windowIndex) {
	x.scanned, x.turns, x.waiting, x.entries, x.created, x.controls = k.Scanned, k.Turns, k.Waiting, k.Entries, k.Created, k.Controls
	x.shown, x.edited, x.decisions, x.runs = map[uint64]bool{}, map[uint64]uint64{}, map[string]bool{}, map[string]bool{}
	for _, pe := range k.Edited {
		x.edited[pe[0]] = pe[1]
	}
	for _, o := range k.Shown {
		x.shown[o] = true
	}
	for _, id := range k.Decisions {
		x.decisions[id] = true
	}
	for _, id := range k.Runs {
		x.runs[id] = true
	}
	x.cuts = make([]cut, len(k.Cuts))
	for i, c := range k.Cuts {
		x.cuts[i] = cut{offset: c.Offset, entries: c.Entries, queued: c.Queued, edits: c.Edits, controls: c.Controls}
	}
	x.kept = k.Scanned
}

// loadWindowIndex fills an index this process has not folded yet from the bucket, when a
// copy is there that the log can continue (not past its head). Any failure leaves the index
// empty, to be folded from the log.
func (r *Runtime) loadWindowIndex(ctx context.Context, session string, x *windowIndex, head uint64) {
	x.loaded = true
	if x.scanned != 0 || r.windowsKept == nil {
		return
	}
	k, _, err := r.windowsKept.Get(ctx, session)
	if err != nil {
		if !errors.Is(err, jetstream.ErrKeyNotFound) {
			slog.Warn("reading a kept window index; folding the log instead", "session", session, "err", err)
		}
		return
	}
	if k.Version != windowIndexVersion || k.Scanned > head || len(k.Cuts) == 0 {
		return
	}
	k.restore(x)
}

// keepWindowIndex writes the index to the bucket when it folded keepEvery events since it
// was last kept. A failed write costs the next process a longer first read, nothing more.
func (r *Runtime) keepWindowIndex(ctx context.Context, session string, x *windowIndex) {
	if r.windowsKept == nil || x.scanned < x.kept+keepEvery {
		return
	}
	k := x.keep()
	if b, err := json.Marshal(k); err != nil || len(b) > maxKeptBytes {
		return
	}
	if err := r.windowsKept.Put(ctx, session, k); err != nil {
		slog.Warn("keeping a window index", "session", session, "err", err)
		return
	}
	x.kept = x.scanned
}
