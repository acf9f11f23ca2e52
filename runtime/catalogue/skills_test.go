package catalogue

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"parley/internal/testkit"
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
	testkit.WriteTree(t, dir, files)
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "leak.md")))

	got := Skills(root).Skills
	byName := map[string]protocol.Skill{}
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
		byName[s.Name] = s
	}
	require.Equal(t, []string{"Upper_Case", "big", "binary", "empty", "exactly-max", "leak", "long-one", "plain", "review"}, names, "sorted by name; bad names and commands left out")

	require.Equal(t, protocol.Skill{Name: "review", Description: "Review a change", Body: files["review.md"]}, byName["review"])
	require.Equal(t, "Summarise the thread", byName["plain"].Description)
	require.Equal(t, "", byName["empty"].Description)
	require.Empty(t, byName["empty"].Error)

	d := byName["long-one"].Description
	require.Equal(t, maxSkillDescription, len([]rune(d)))
	require.True(t, strings.HasSuffix(d, "…"), d)

	require.Contains(t, byName["big"].Error, "larger than 16 KiB")
	require.Empty(t, byName["big"].Body)
	require.Len(t, byName["exactly-max"].Body, protocol.MaxSkillBytes)
	require.Contains(t, byName["binary"].Error, "UTF-8")
	require.Contains(t, byName["leak"].Error, "cannot be read", "a link out of the workspace is not read")
	require.Empty(t, byName["leak"].Body)
}

func TestListSkillsWithoutTheFolder(t *testing.T) {
	require.Equal(t, protocol.SkillList{Skills: []protocol.Skill{}}, Skills(t.TempDir()))
}
