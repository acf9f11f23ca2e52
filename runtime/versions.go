package runtime

import (
	"context"
	"time"

	"parley/protocol"
)

// Versions are the session index's version and the approvals queue's (the versions GET
// /api/sessions and GET /api/approvals answer with), once either differs from seen, or at the
// end of ctx or of hold: at once when one differs already, or with no hold. A page's socket
// carries them ("versions" frames, server/socket.go), so its live list and count hold no
// HTTP request; a wait costs two channels and reads nothing.
func (r *Runtime) Versions(ctx context.Context, seen protocol.Versions, hold time.Duration) protocol.Versions {
	sessions, listMoved := r.sessions.changes.Next()
	approvals, queueMoved := r.approvals.version.Next()
	now := protocol.Versions{Sessions: sessions, Approvals: approvals}
	if now != seen || hold <= 0 || listMoved == nil || queueMoved == nil {
		return now
	}
	t := time.NewTimer(hold)
	defer t.Stop()
	select {
	case <-listMoved:
	case <-queueMoved:
	case <-t.C:
	case <-ctx.Done():
	}
	return protocol.Versions{Sessions: r.sessions.changes.Version(), Approvals: r.approvals.version.Value()}
}
