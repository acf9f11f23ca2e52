package gate

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"parley/protocol"
	"parley/runtime/kv"
)

// grantsBucket records "always" answers, per workspace. The gate reads it on every check
// (there is no cache), so a revocation takes effect at once on every replica.
const grantsBucket = "PARLEY_GRANTS"

// ErrNoGrant is returned when revoking a grant that does not exist.
var ErrNoGrant = errors.New("no such grant")

// usesBucket holds when each grant last let a call through, apart from the grants: a use
// written after a revocation must never bring the grant back.
const usesBucket = "PARLEY_GRANT_USES"

// Grants is the store of "always" answers.
type Grants struct {
	kv   *kv.Bucket[protocol.Grant]
	uses jetstream.KeyValue
}

// OpenGrants creates or opens the bucket, kept in replicas copies on a cluster.
func OpenGrants(ctx context.Context, js jetstream.JetStream, replicas int) (*Grants, error) {
	b, err := kv.Open[protocol.Grant](ctx, js, grantsBucket, "Parley always-allow grants", replicas)
	if err != nil {
		return nil, fmt.Errorf("open grants: %w", err)
	}
	uses, err := kv.Bind(ctx, js, jetstream.KeyValueConfig{
		Bucket: usesBucket, Description: "When each Parley grant was last used", Storage: jetstream.FileStorage, Replicas: replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("open grant uses: %w", err)
	}
	return &Grants{kv: b, uses: uses}, nil
}

// Used records that a grant let a call through at t. A failure only costs the record.
func (s *Grants) Used(ctx context.Context, id string, t time.Time) {
	if !protocol.ValidSessionID(id) {
		return
	}
	if _, err := s.uses.Put(ctx, id, []byte(strconv.FormatInt(t.UnixMilli(), 10))); err != nil {
		slog.Warn("could not record a grant's use", "grant", id, "err", err)
	}
}

// LastUsed is when a grant last let a call through, unix milliseconds (0 for never).
func (s *Grants) LastUsed(ctx context.Context, id string) int64 {
	if !protocol.ValidSessionID(id) {
		return 0
	}
	e, err := s.uses.Get(ctx, id)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(string(e.Value()), 10, 64)
	return n
}

// workspaceKey is a key-safe name of a workspace path.
func workspaceKey(workspace string) string {
	sum := sha256.Sum256([]byte(workspace))
	return hex.EncodeToString(sum[:8])
}

// Put records a grant.
func (s *Grants) Put(ctx context.Context, g protocol.Grant) error {
	return s.kv.Create(ctx, workspaceKey(g.Workspace)+"."+g.ID, g)
}

// List lists a workspace's grants, oldest first.
func (s *Grants) List(ctx context.Context, workspace string) ([]protocol.Grant, error) {
	out, err := s.kv.List(ctx, workspaceKey(workspace)+".*")
	if err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	slices.SortFunc(out, func(a, b protocol.Grant) int {
		return cmp.Or(cmp.Compare(a.Created, b.Created), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// Revoke deletes a grant and returns it, or an error wrapping ErrNoGrant.
func (s *Grants) Revoke(ctx context.Context, workspace, id string) (protocol.Grant, error) {
	var g protocol.Grant
	if !protocol.ValidSessionID(id) {
		return g, fmt.Errorf("grant %q: %w", id, ErrNoGrant)
	}
	key := workspaceKey(workspace) + "." + id
	g, _, err := s.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return g, fmt.Errorf("grant %s: %w", id, ErrNoGrant)
	} else if err != nil && !errors.Is(err, kv.ErrCorrupt) {
		return g, err
	}
	_ = s.uses.Purge(ctx, id)
	return g, s.kv.Purge(ctx, key) // a record that does not decode is revoked all the same
}

// covers reports whether a grant's scope lets a call through. A prefix grant on a command
// covers only plain words after its prefix (names of files, packages, branches that stay in
// the workspace): an option, an assignment, a path out of the workspace or anything a shell
// or git would read as code asks again. A write prefix grant covers the files in its folder
// (write paths arrive resolved, so a symlink cannot lead out of it).
func covers(scope protocol.GrantScope, tool string, words []string, extra func(prefix []string, w string) bool) bool {
	if scope.Tool != tool {
		return false
	}
	switch scope.Kind {
	case protocol.GrantTool:
		return true
	case protocol.GrantExact:
		return slices.Equal(scope.Words, words)
	case protocol.GrantPrefix:
		if len(scope.Words) == 0 || len(words) < len(scope.Words) || !slices.Equal(scope.Words, words[:len(scope.Words)]) {
			return false
		}
		if tool != "run" {
			return true
		}
		for _, w := range words[len(scope.Words):] {
			if !extra(scope.Words, w) {
				return false
			}
		}
		return true
	}
	return false
}

// plainArgument reports whether a word can only be a name: no option, assignment, transport
// (ext::…), home, absolute or escaping path, glob or shell character.
func plainArgument(w string) bool {
	if w == "" || strings.HasPrefix(w, "-") || strings.HasPrefix(w, "/") ||
		strings.ContainsAny(w, "=:~$`;|&<>(){}*?[]!'\"\\ \t\n@^") {
		return false
	}
	for _, part := range strings.Split(w, "/") {
		if part == ".." {
			return false
		}
	}
	return true
}
