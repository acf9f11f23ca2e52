package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"parley/protocol"
)

func TestWhatEachPermissionModeLetsThrough(t *testing.T) {
	read := ToolCall{Tool: "read", Words: []string{"a.md"}}
	write := ToolCall{Tool: "write", Words: []string{"a.md"}}
	run := ToolCall{Tool: "run", Words: []string{"ls"}}
	cases := []struct {
		mode             protocol.PermissionMode
		read, write, run bool
	}{
		{protocol.PermissionAsk, false, false, false},
		{protocol.PermissionReads, true, false, false},
		{protocol.PermissionEdits, true, true, false},
		{"unknown", false, false, false},
	}
	for _, c := range cases {
		t.Run(string(c.mode), func(t *testing.T) {
			assert.Equal(t, c.read, Passes(c.mode, read), "read")
			assert.Equal(t, c.write, Passes(c.mode, write), "write")
			assert.Equal(t, c.run, Passes(c.mode, run), "a command never passes by mode")
		})
	}
}

func TestAReadIsAskedLikeAWrite(t *testing.T) {
	req := ApprovalRequest([]ToolCall{{Tool: "read", Words: []string{"docs", "a.md"}, Details: "read_file docs/a.md"}}, "/ws")
	assert.Equal(t, "Allow reading docs/a.md?", req.Message)
	var labels []string
	for _, o := range req.Options {
		labels = append(labels, o.Label)
	}
	assert.Equal(t, []string{"Approve", "Approve, and always for reads in docs/", "Reject"}, labels)
	assert.Equal(t, "reads in docs/", describeScope(protocol.GrantScope{Kind: protocol.GrantPrefix, Tool: "read", Words: []string{"docs"}}))
}

// TestProtected: the paths whose writes ask in every mode (QA round 26).
func TestProtected(t *testing.T) {
	for path, want := range map[string]bool{
		".git/config": true, ".git/hooks/pre-commit": true, "vendor/lib/.git/config": true, ".GIT/config": true,
		".parley/mcp.json": true, ".parley/functions/deploy.star": true, ".husky/pre-commit": true,
		"docs/.parley/notes.md": false, "docs/.husky": false, ".gitignore": false, ".github/workflows/ci.yml": false,
		"src/main.go": false, "a.git/x": false,
	} {
		assert.Equal(t, want, Protected(path), path)
	}
	edits := protocol.PermissionEdits
	assert.False(t, Passes(edits, ToolCall{Tool: "write", Words: []string{".git/config"}}), "Allow edits does not let it through")
	assert.True(t, Passes(edits, ToolCall{Tool: "read", Words: []string{".git/config"}}), "reading it changes nothing")
}
