package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"parley/i18n"
	"parley/internal/testkit"
)

// TestReasonsInTheLocale: every reason a server is not ready, and every problem of a
// configuration file, is worded by a page in its locale from this English
// (i18n.Locale.MCPReason); an error inside stays as the system wrote it.
func TestReasonsInTheLocale(t *testing.T) {
	dir := testkit.Folder(t, map[string]string{
		"servers.json": `{"mcpServers": {" ": {"command": "x"}, "a": {}, "b": {"command": "x", "url": "http://h"}, "c": {"url": "ftp://h"}}}`,
		"bad.json":     "{",
		"other.json":   `{"servers": {}}`,
	})
	cfg := ServerConfig{Command: "mcp-srv", Args: []string{"--x"}}
	expired, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-expired.Done()
	reasons := []string{
		startFailure(errors.New("EOF"), expired, 30*time.Second, cfg),
		startFailure(exec.ErrNotFound, context.Background(), time.Second, cfg),
		startFailure(nil, context.Background(), time.Second, cfg),
		startFailure(errors.New("bad frame"), context.Background(), time.Second, cfg),
		crashReason(true, "exit status 1", errors.New("EOF")),
		crashReason(true, "exit status 1", nil),
		crashReason(true, "", errors.New("EOF")),
		crashReason(true, "", nil),
		crashReason(false, "", errors.New("EOF")),
		crashReason(false, "", context.Canceled),
		crashReason(true, "signal: terminated", errors.New("inbound JSON-RPC frame exceeded the configured maximum line length")),
		crashReason(true, "exit status 0", json.Unmarshal([]byte("hello"), new(any))),
	}
	_, leftOut := offered([]*sdk.Tool{{Name: "t"}, {Name: "t"}, {}, {Name: "a", InputSchema: map[string]any{"type": "array"}}, {Name: "s", InputSchema: "x"}})
	reasons = append(reasons, leftOut...)
	entries, err := readFile(filepath.Join(dir, "servers.json"))
	if err != nil || len(entries) != 4 {
		t.Fatalf("%v %v", entries, err)
	}
	for _, e := range entries {
		reasons = append(reasons, e.problem)
	}
	for _, name := range []string{"bad.json", "other.json"} {
		_, err := readFile(filepath.Join(dir, name))
		if err == nil {
			t.Fatalf("%s is read", name)
		}
		reasons = append(reasons, err.Error())
	}
	for _, r := range reasons {
		zh := i18n.Chinese.MCPReason(r)
		if zh == r || !strings.ContainsFunc(zh, func(c rune) bool { return c >= 0x4e00 && c <= 0x9fff }) {
			t.Errorf("%q is not worded in Chinese: %q", r, zh)
		}
		if en := i18n.English.MCPReason(r); en != r {
			t.Errorf("%q in English: %q", r, en)
		}
	}
	// A message larger than the SDK's frame limit is said in words, not the SDK's (QA round 23).
	if r := crashReason(true, "signal: terminated", errors.New("inbound JSON-RPC frame exceeded the configured maximum line length")); r != "the process was stopped (signal: terminated): it sent a message larger than 16 MiB, more than Parley reads in one" {
		t.Errorf("too large: %q", r)
	}
	if zh := i18n.Chinese.MCPReason(startFailure(exec.ErrNotFound, context.Background(), time.Second, cfg)); zh != `无法启动 "mcp-srv"：executable file not found in $PATH（它安装了吗？在 PATH 上吗？）` {
		t.Errorf("the command's error: %q", zh)
	}
}
