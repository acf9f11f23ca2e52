package catalogue

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
)

// TestALinkOutOfTheWorkspaceIsNotRead: a function or an example that is a link out of the
// workspace is listed with why it cannot be read, never read, run or quoted (QA round 26:
// its load error showed the outside file, "undefined: sk_live_…").
func TestALinkOutOfTheWorkspaceIsNotRead(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.env")
	require.NoError(t, os.WriteFile(secret, []byte("API_KEY = sk_live_abcdef123456\n"), 0o600))
	ws := t.TempDir()
	testkit.WriteTree(t, ws, map[string]string{
		".parley/functions/shout.star": "TITLE = \"Shout\"\nPARAMS = {\"type\": \"object\"}\n\ndef main(args):\n    send(\"HI\")\n",
		".parley/examples/own.star":    "# Its own\nsend(\"own\")\n",
	})
	for _, kind := range []string{"functions", "examples"} {
		require.NoError(t, os.Symlink(secret, filepath.Join(ws, ".parley", kind, "env.star")))
	}

	fns := FunctionList(ws).Functions
	var env, shout string
	for _, f := range fns {
		switch f.Name {
		case "env":
			env = f.Error
		case "shout":
			shout = f.Error
		}
	}
	assert.Equal(t, "the file cannot be read: it may be a link that leaves the workspace", env)
	assert.Empty(t, shout, "a file of its own loads")

	ex := Examples(ws)
	assert.Empty(t, ex["env"].Source, "never read")
	assert.NotEmpty(t, ex["env"].Problem)
	assert.Equal(t, "# Its own\nsend(\"own\")\n", ex["own"].Source)
	for _, c := range Commands(ws).Examples {
		assert.NotEqual(t, "env", c.Name, "not offered")
		assert.NotContains(t, c.Description, "sk_live")
	}
}
