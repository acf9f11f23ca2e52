package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// WorkspaceFile is where a workspace lists its servers, relative to the workspace.
const WorkspaceFile = ".parley/mcp.json"

// ServerConfig is one entry of mcpServers: a command (stdio) or a URL (streamable HTTP).
type ServerConfig struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Type is accepted as other clients write it ("stdio", "http", "streamable-http") and
	// otherwise ignored: the fields say the transport.
	Type string `json:"type,omitempty"`
	// Disabled leaves the server out.
	Disabled bool `json:"disabled,omitempty"`
}

// file is the format Claude Desktop, Cursor and VS Code users already write.
type file struct {
	MCPServers map[string]ServerConfig `json:"mcpServers"`
}

// entry is a configured server and the file it came from.
type entry struct {
	name   string
	source string
	cfg    ServerConfig
	// problem, when set, is why the entry cannot be started (it is listed as failed).
	problem string
}

// readFile reads one configuration file. A missing file is no servers; anything else wrong
// is an error naming the file and what to fix.
func readFile(path string) ([]entry, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v): it should look like {\"mcpServers\": {\"name\": {\"command\": \"…\", \"args\": […]}}}", path, err)
	}
	if f.MCPServers == nil {
		return nil, fmt.Errorf("%s has no \"mcpServers\" object: it should look like {\"mcpServers\": {\"name\": {\"command\": \"…\"}}}", path)
	}
	names := make([]string, 0, len(f.MCPServers))
	for n := range f.MCPServers {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []entry
	for _, n := range names {
		c := f.MCPServers[n]
		if c.Disabled {
			continue
		}
		e := entry{name: n, source: path, cfg: c}
		switch {
		case strings.TrimSpace(n) == "":
			e.problem = "a server has an empty name"
		case c.Command == "" && c.URL == "":
			e.problem = "neither \"command\" (a program to start) nor \"url\" (a streamable HTTP endpoint) is set"
		case c.Command != "" && c.URL != "":
			e.problem = "both \"command\" and \"url\" are set: keep one"
		case c.URL != "" && !strings.HasPrefix(c.URL, "http://") && !strings.HasPrefix(c.URL, "https://"):
			e.problem = fmt.Sprintf("the url %q is not an http:// or https:// URL", c.URL)
		}
		out = append(out, e)
	}
	return out, nil
}

// load reads the user's file, then the workspace's: a workspace's entry replaces the user's
// entry of the same name. Broken files are problems; the rest still load.
func load(userFile, workspace string) ([]entry, []string) {
	var problems []string
	byName := map[string]entry{}
	var order []string
	for _, path := range []string{userFile, filepath.Join(workspace, WorkspaceFile)} {
		if path == "" {
			continue
		}
		entries, err := readFile(path)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, e := range entries {
			if _, seen := byName[e.name]; !seen {
				order = append(order, e.name)
			}
			byName[e.name] = e
		}
	}
	out := make([]entry, 0, len(order))
	for _, n := range order {
		out = append(out, byName[n])
	}
	return out, problems
}

// expand replaces ${NAME} in a header or env value with the server's environment, so a
// secret stays in the environment rather than in the file.
func expand(s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return os.Expand(s, func(name string) string {
		if name == "$" {
			return "$"
		}
		return os.Getenv(name)
	})
}

// target is a server's command line or URL, as text.
func (c ServerConfig) target() string {
	if c.URL != "" {
		return c.URL
	}
	return strings.Join(append([]string{c.Command}, c.Args...), " ")
}

// transport names the server's transport.
func (c ServerConfig) transport() string {
	if c.URL != "" {
		return "http"
	}
	return "stdio"
}
