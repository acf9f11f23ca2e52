package protocol

import (
	"strings"
	"unicode"
)

// Command is a server-side slash command found at the start of a user message.
type Command struct {
	Name string // without the slash: "help", "example", "script"
	Args string // the rest of the message after the name and its separating space
}

// Commands are the slash commands the server intercepts, in the order /help lists them.
var Commands = []CommandInfo{
	{Name: "help", Usage: "/help", Description: "List the commands and the examples."},
	{Name: "example", Usage: "/example <slug> [json-vars]", Description: "Run an example from the catalogue, with optional JSON variables."},
	{Name: "script", Usage: "/script <code>", Description: "Run Starlark code in the workspace's sandbox."},
	{Name: "mcp", Usage: "/mcp [reconnect [server]]", Description: "List the workspace's MCP servers with their status and tools, or start one again."},
}

// ResolveCommand reports whether a user message is a server-side command, and which. It is
// the one answer to "is this a command?": the inbound door that runs commands and the
// decision whether a message starts an agent turn both call it, so they cannot disagree.
//
// Only an exact known name followed by whitespace or the end counts: "/helpful", "/usr/bin"
// and "1/2" are ordinary prompts for the agent, because people type paths and fractions.
func ResolveCommand(text string) (Command, bool) {
	t := strings.TrimLeftFunc(text, unicode.IsSpace)
	if !strings.HasPrefix(t, "/") {
		return Command{}, false
	}
	t = t[1:]
	end := strings.IndexFunc(t, unicode.IsSpace)
	name, rest := t, ""
	if end >= 0 {
		name, rest = t[:end], t[end:]
	}
	for _, c := range Commands {
		if c.Name == name {
			// One separator goes; the rest is the argument as typed (a script keeps its
			// indentation and newlines).
			if strings.HasPrefix(rest, "\r\n") {
				rest = rest[2:]
			} else if rest != "" {
				rest = rest[1:]
			}
			return Command{Name: name, Args: rest}, true
		}
	}
	return Command{}, false
}
