package protocol

import (
	"strings"
	"unicode/utf8"
)

// Untitled is the title of a session that nothing named yet: one created without a title (the
// hero's blank session), or whose first prompts were refused commands, which name nothing
// (docs/qa-round7.md #10), until a prompt that works names it.
const Untitled = "New session"

// maxTitleBytes keeps a derived title well inside the 200-byte limit of a session's title.
const maxTitleBytes = 120

// TitleFrom names a session after the first line of its first prompt, cut at a character
// boundary so that no script's text can push it over the limit. The browser titles a session
// it creates with it, and the server titles a blank session when its first prompt arrives.
// A slash command is named by what it is ("Example hello", "Help", "MCP"), and a script by
// what it runs: its code's first line (`/script send("hi")` is `send("hi")`, and a script
// that starts with a comment is named by it). Named "Script", every script session read the
// same in the list, the @ menu, /approvals and the history's filter.
func TitleFrom(text string) string {
	if cmd, ok := ResolveCommand(text); ok {
		switch cmd.Name {
		case "example":
			slug, _, _ := strings.Cut(strings.TrimSpace(cmd.Args), " ")
			return strings.TrimSpace("Example " + slug)
		case "mcp":
			return "MCP" // an acronym, in every language: not "Mcp"
		case "script":
			if line := titleLine(cmd.Args); line != "" {
				return line
			}
		}
		return strings.ToUpper(cmd.Name[:1]) + cmd.Name[1:]
	}
	return titleLine(text)
}

// titleLine is text's first line that holds more than spaces, trimmed, and cut at
// maxTitleBytes (with "…").
func titleLine(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	line = strings.TrimSpace(line)
	if len(line) <= maxTitleBytes {
		return line
	}
	cut := maxTitleBytes
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	return strings.TrimSpace(line[:cut]) + "…"
}
