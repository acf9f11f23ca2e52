package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
	"parley/runtime/gate"
)

// The permission modes, applied by the gate on the server: what each lets through without a
// decision, and that one session's mode never reaches another's calls.
func TestGateHonoursEachPermissionMode(t *testing.T) {
	rt := fresh(t)
	ctx := context.Background()

	read := gate.ToolCall{Tool: "read", Words: []string{"notes.md"}, Details: "read_file notes.md"}
	write := gate.ToolCall{Tool: "write", Words: []string{"notes.md"}, Details: "notes.md: 3 lines"}
	run := gate.ToolCall{Tool: "run", Words: []string{"make", "test"}, Details: "make test"}

	// passes reports whether the call went through without a decision; a decision it opened
	// is declined, so the gate returns.
	passes := func(t *testing.T, s string, c gate.ToolCall) bool {
		t.Helper()
		type result struct {
			v   gate.Verdict
			err error
		}
		done := make(chan result, 1)
		go func() {
			v, err := rt.Authorize(ctx, s, "test:mode", []gate.ToolCall{c})
			done <- result{v, err}
		}()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case r := <-done:
				require.NoError(t, r.err)
				require.True(t, r.v.Allowed, "a call that passed without a decision is allowed")
				return true
			case <-time.After(20 * time.Millisecond):
				list, err := rt.PendingDecisions(ctx, s)
				require.NoError(t, err)
				if len(list.Decisions) == 0 {
					continue
				}
				_, err = rt.Reply(ctx, s, list.Decisions[0].ID, protocol.ReplyRequest{Action: protocol.ActionDecline, Reason: "test"})
				require.NoError(t, err)
				r := <-done
				require.NoError(t, r.err)
				assert.False(t, r.v.Allowed)
				return false
			case <-deadline:
				t.Fatal("the gate neither passed the call nor asked")
			}
		}
	}

	cases := []struct {
		mode                   protocol.PermissionMode
		read, write, runPasses bool
	}{
		{"", true, false, false}, // never set: the default, allow reads
		{protocol.PermissionAsk, false, false, false},
		{protocol.PermissionReads, true, false, false},
		{protocol.PermissionEdits, true, true, false},
	}
	for _, c := range cases {
		t.Run(string(cmpMode(c.mode)), func(t *testing.T) {
			s := newSession(t, rt)
			if c.mode != "" {
				_, err := rt.SetPermissions(ctx, s, protocol.SetPermissionsRequest{Mode: c.mode})
				require.NoError(t, err)
			}
			got, err := rt.PermissionMode(ctx, s)
			require.NoError(t, err)
			assert.Equal(t, cmpMode(c.mode), got)
			assert.Equal(t, c.read, passes(t, s, read), "read")
			assert.Equal(t, c.write, passes(t, s, write), "write")
			assert.Equal(t, c.runPasses, passes(t, s, run), "a command asks in every mode")
		})
	}

	t.Run("one session's mode does not leak to another", func(t *testing.T) {
		edits, other := newSession(t, rt), newSession(t, rt)
		_, err := rt.SetPermissions(ctx, edits, protocol.SetPermissionsRequest{Mode: protocol.PermissionEdits})
		require.NoError(t, err)
		assert.True(t, passes(t, edits, write))
		assert.False(t, passes(t, other, write), "the other session still asks")
	})

	t.Run("the last mode set wins", func(t *testing.T) {
		s := newSession(t, rt)
		for _, m := range []protocol.PermissionMode{protocol.PermissionEdits, protocol.PermissionAsk} {
			_, err := rt.SetPermissions(ctx, s, protocol.SetPermissionsRequest{Mode: m})
			require.NoError(t, err)
		}
		assert.False(t, passes(t, s, read))
	})

	t.Run("a batch: the mode passes the writes, the command is asked alone", func(t *testing.T) {
		s := newSession(t, rt)
		_, err := rt.SetPermissions(ctx, s, protocol.SetPermissionsRequest{Mode: protocol.PermissionEdits})
		require.NoError(t, err)
		d, done := authorizeAsync(t, ctx, rt, s, "test:batch", []gate.ToolCall{read, write, run})
		assert.Equal(t, "Allow running make?", d.Request.Message, "one approval, for the command only")
		_, err = rt.Reply(ctx, s, d.ID, protocol.ReplyRequest{Action: protocol.ActionDecline})
		require.NoError(t, err)
		v := <-done
		assert.False(t, v.Allowed)
		assert.Equal(t, []bool{true, true, false}, v.Granted)
		assert.True(t, v.Allows(0) && v.Allows(1) && !v.Allows(2))
	})

	t.Run("a bad mode is refused with the modes there are", func(t *testing.T) {
		_, err := rt.SetPermissions(ctx, newSession(t, rt), protocol.SetPermissionsRequest{Mode: "yolo"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), `unknown mode "yolo"`)
	})
}

func cmpMode(m protocol.PermissionMode) protocol.PermissionMode {
	if m == "" {
		return protocol.DefaultPermissionMode
	}
	return m
}
