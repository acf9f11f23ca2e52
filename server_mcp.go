//go:build !wasm

package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// addMCPFlags declares -mcp-config (the user's MCP servers, in the Claude Desktop format) and
// returns what reads it after parsing: an absolute path, or "" for none. A file named but
// missing is refused at start: it is a typo more often than not. A file that exists but does
// not parse is shown on /mcp instead, so the rest of Parley starts.
func addMCPFlags(fs *flag.FlagSet, getenv func(string) string) func() (string, error) {
	var path string
	fs.StringVar(&path, "mcp-config", getenv("PARLEY_MCP_CONFIG"),
		`a JSON file of MCP servers every workspace connects to, as Claude Desktop writes it: {"mcpServers": {"name": {"command": …, "args": […], "env": {…}} or {"url": …, "headers": {…}}}}; a workspace adds its own in .parley/mcp.json (PARLEY_MCP_CONFIG)`)
	return func() (string, error) {
		if path == "" {
			return "", nil
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", fmt.Errorf("-mcp-config %q: %w", path, err)
		}
		if fi, err := os.Stat(abs); err != nil || fi.IsDir() {
			return "", fmt.Errorf("-mcp-config %q: no such file; give the path of a JSON file like {\"mcpServers\": {}}", path)
		}
		return abs, nil
	}
}
