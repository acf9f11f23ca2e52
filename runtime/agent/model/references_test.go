package model_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"parley/protocol"
)

func TestAFileChipReachesTheModelAsTheFilesText(t *testing.T) {
	srv := newFakeServer(t, text("Read it."), text("Again."))
	e := newEnv(t, srv)
	require.NoError(t, os.WriteFile(filepath.Join(e.ws, "notes.txt"), []byte("the secret word is teal\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(e.ws, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(e.ws, "src", "a.go"), []byte("package a\n"), 0o644))
	big := strings.Repeat("x", 40<<10)
	require.NoError(t, os.WriteFile(filepath.Join(e.ws, "big.txt"), []byte(big), 0o644))

	e.prompt("what does @notes.txt say? Also see @src, @big.txt and me@example.com, @missing.md.")
	reqs := srv.requestsSoFar()
	require.Len(t, reqs, 1)
	user := reqs[0].Messages[1].Content
	require.True(t, strings.HasPrefix(user, "what does @notes.txt say?"), "the prompt comes first, as typed")
	require.Contains(t, user, "<file path=\"notes.txt\">\nthe secret word is teal\n\n</file>")
	require.Contains(t, user, "<folder path=\"src\">\na.go\n</folder>")
	require.Contains(t, user, "[cut: 8192 more bytes; read the rest with the read tool]")
	require.NotContains(t, user, "missing.md\">", "a word that names no file adds nothing")
	require.NotContains(t, user, "example.com\">", "an e-mail address is not a reference")

	// The next turn reads the same prompt with its file again: the history is rebuilt from the log.
	e.prompt("and again")
	reqs = srv.requestsSoFar()
	require.Contains(t, reqs[1].Messages[1].Content, "the secret word is teal")
}

func TestAFileChipCannotReachOutsideTheWorkspace(t *testing.T) {
	srv := newFakeServer(t, text("No."))
	e := newEnv(t, srv)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	require.NoError(t, os.WriteFile(outside, []byte("do not leak"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(e.ws, "link.txt")))

	e.prompt("read @" + outside + " and @link.txt and @../secret.txt")
	user := srv.requestsSoFar()[0].Messages[1].Content
	require.NotContains(t, user, "do not leak")
}

func TestASessionChipReachesTheModelAsATranscript(t *testing.T) {
	srv := newFakeServer(t, text("First answer."), text("Summarised."))
	e := newEnv(t, srv)
	e.prompt("remember the colour teal")
	other, err := e.rt.CreateSession(context.Background(), protocol.CreateSessionRequest{})
	require.NoError(t, err)
	first := e.session
	e.session = other.ID
	e.prompt("what did we say in @session:" + first + "?")

	user := srv.requestsSoFar()[1].Messages[1].Content
	require.Contains(t, user, "<session id=\""+first+"\"")
	require.Contains(t, user, "user: remember the colour teal\nagent: First answer.")
}

func TestASkillAtTheStartOfAPromptIsExpandedFromItsFile(t *testing.T) {
	srv := newFakeServer(t, text("Reviewed."), text("Plain."))
	e := newEnv(t, srv)
	require.NoError(t, os.MkdirAll(filepath.Join(e.ws, ".parley", "skills"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(e.ws, ".parley", "skills", "review.md"),
		[]byte("# Review\nLook for bugs first, then style.\n"), 0o644))

	e.prompt("/review the parser please")
	user := srv.requestsSoFar()[0].Messages[1].Content
	require.Equal(t, "<skill name=\"review\">\n# Review\nLook for bugs first, then style.\n</skill>\n\nthe parser please", user)

	e.prompt("/nosuchskill stays as typed")
	require.Equal(t, "/nosuchskill stays as typed", srv.requestsSoFar()[1].Messages[3].Content)
}
