package runtime

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/nats-io/nats.go/jetstream"

	"parley/protocol"
	"parley/runtime/eventlog"
)

// sessionsBucket is the KV bucket that indexes sessions for listing. The log stays the
// source of truth; the index only spares a scan of every stream subject.
const sessionsBucket = "PARLEY_SESSIONS"

// ErrNoSession is returned for a session id that does not exist.
var ErrNoSession = errors.New("no such session")

type sessionIndex struct {
	kv jetstream.KeyValue
}

func openSessionIndex(ctx context.Context, js jetstream.JetStream) (*sessionIndex, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      sessionsBucket,
		Description: "Parley sessions",
		Storage:     jetstream.FileStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("open session index: %w", err)
	}
	return &sessionIndex{kv: kv}, nil
}

func (x *sessionIndex) put(ctx context.Context, info protocol.SessionInfo) error {
	raw, err := json.Marshal(info)
	if err != nil {
		return err
	}
	if _, err := x.kv.Create(ctx, info.ID, raw); err != nil {
		return fmt.Errorf("index session %s: %w", info.ID, eventlog.AsUnavailable(err))
	}
	return nil
}

func (x *sessionIndex) get(ctx context.Context, id string) (protocol.SessionInfo, error) {
	entry, err := x.kv.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return protocol.SessionInfo{}, fmt.Errorf("session %s: %w", id, ErrNoSession)
	}
	if err != nil {
		return protocol.SessionInfo{}, fmt.Errorf("session %s: %w", id, eventlog.AsUnavailable(err))
	}
	var info protocol.SessionInfo
	if err := json.Unmarshal(entry.Value(), &info); err != nil {
		return protocol.SessionInfo{}, fmt.Errorf("session %s: %w", id, err)
	}
	return info, nil
}

// untitled is the title of a session created without one (the hero's blank session) until
// its first prompt names it.
const untitled = "New session"

// markUsed records that a session holds a prompt: it is no longer blank. An untitled session
// (a blank one picked from the hero) takes title, derived from its first prompt, even when an
// earlier writer that could not read the prompt already marked it used.
func (x *sessionIndex) markUsed(ctx context.Context, id, title string) error {
	for range 5 {
		entry, err := x.kv.Get(ctx, id)
		if err != nil {
			return fmt.Errorf("mark session %s used: %w", id, err)
		}
		var info protocol.SessionInfo
		if err := json.Unmarshal(entry.Value(), &info); err != nil {
			return fmt.Errorf("mark session %s used: %w", id, err)
		}
		retitle := (info.Title == "" || info.Title == untitled) && title != ""
		if !info.Blank && !retitle {
			return nil
		}
		info.Blank = false
		if retitle {
			info.Title = title
		}
		raw, err := json.Marshal(info)
		if err != nil {
			return err
		}
		_, err = x.kv.Update(ctx, id, raw, entry.Revision())
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			if err != nil {
				return fmt.Errorf("mark session %s used: %w", id, err)
			}
			return nil
		}
		// Another writer got there first: read again.
	}
	return fmt.Errorf("mark session %s used: too many concurrent updates", id)
}

func (x *sessionIndex) list(ctx context.Context) ([]protocol.SessionInfo, error) {
	lister, err := x.kv.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", eventlog.AsUnavailable(err))
	}
	defer lister.Stop()
	var out []protocol.SessionInfo
	for key := range lister.Keys() {
		info, err := x.get(ctx, key)
		if errors.Is(err, ErrNoSession) {
			continue // deleted between list and get
		}
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	// Newest first; the id breaks ties so the order is stable.
	slices.SortFunc(out, func(a, b protocol.SessionInfo) int {
		return cmp.Or(cmp.Compare(b.Created, a.Created), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}
