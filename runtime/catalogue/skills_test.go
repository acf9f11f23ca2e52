package catalogue

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"parley/protocol"
)

func TestListSkills(t *testing.T) {
	outside := tree(t, "secret.md")
	long := strings.Repeat("word ", 40)
	root := tree(t,
		".parley/skills/notes.txt", // not .md
		".parley/skills/folder.md/",
	)
	dir := filepath.Join(root, ".parley", "skills")
	files := map[string]string{
		"review.md":      "# Review a change\n\nRead the diff and list the risks.\n",
		"plain.md":       "\n\n  Summarise the thread  \nmore\n",
		"long-one.md":    "## " + long + "\n",
		"empty.md":       "",
		"big.md":         strings.Repeat("x", protocol.MaxSkillBytes+1),
		"binary.md":      "\xff\xfe",
		"bad name.md":    "# skipped: a space",
		"dots.v2.md":     "# skipped: a dot",
		"help.md":        "# skipped: /help is a command",
		"script.md":      "# skipped: /script is a command",
		"Upper_Case.md":  "# kept",
		"exactly-max.md": strings.Repeat("y", protocol.MaxSkillBytes),
	}
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "leak.md")))

	got := Skills(root).Skills
	byName := map[string]protocol.Skill{}
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
		byName[s.Name] = s
	}
	assert.Equal(t, []string{"Upper_Case", "big", "binary", "empty", "exactly-max", "leak", "long-one", "plain", "review"}, names, "sorted by name; bad names and commands left out")

	assert.Equal(t, protocol.Skill{Name: "review", Description: "Review a change", Body: files["review.md"]}, byName["review"])
	assert.Equal(t, "Summarise the thread", byName["plain"].Description)
	assert.Equal(t, "", byName["empty"].Description)
	assert.Empty(t, byName["empty"].Error)

	d := byName["long-one"].Description
	assert.Equal(t, maxSkillDescription, len([]rune(d)))
	assert.True(t, strings.HasSuffix(d, "…"), d)

	assert.Contains(t, byName["big"].Error, "larger than 16 KiB")
	assert.Empty(t, byName["big"].Body)
	assert.Len(t, byName["exactly-max"].Body, protocol.MaxSkillBytes)
	assert.Contains(t, byName["binary"].Error, "UTF-8")
	assert.Contains(t, byName["leak"].Error, "cannot be read", "a link out of the workspace is not read")
	assert.Empty(t, byName["leak"].Body)
}

func TestListSkillsWithoutTheFolder(t *testing.T) {
	assert.Equal(t, protocol.SkillList{Skills: []protocol.Skill{}}, Skills(t.TempDir()))
}
