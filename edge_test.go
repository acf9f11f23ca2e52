//go:build !wasm

package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUpstreamToken: an edge reads the runtime's token from a file or the environment,
// never from a flag's value, and does not start without one.
func TestUpstreamToken(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	_, err := parseConfig([]string{"-upstream", "http://127.0.0.1:9"}, getenv, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "PARLEY_UPSTREAM_TOKEN")

	env["PARLEY_UPSTREAM_TOKEN"] = " from-env\n"
	c, err := parseConfig([]string{"-upstream", "http://127.0.0.1:9"}, getenv, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "from-env", c.UpstreamToken)

	file := filepath.Join(t.TempDir(), "upstream-token")
	require.NoError(t, os.WriteFile(file, []byte("from-file\n"), 0o600))
	c, err = parseConfig([]string{"-upstream", "https://runtime.internal:8443", "-upstream-token-file", file}, getenv, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "from-file", c.UpstreamToken, "a file named by the flag beats the environment")

	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err = parseConfig([]string{"-upstream", "http://127.0.0.1:9", "-upstream-token-file", file}, getenv, io.Discard)
	assert.ErrorContains(t, err, "is empty")

	for _, bad := range []string{"127.0.0.1:9", "ftp://h:1", "http://h:1/?token=x", "http://user:pw@h:1"} {
		_, err = parseConfig([]string{"-upstream", bad}, getenv, io.Discard)
		assert.Error(t, err, bad)
	}
	_, err = parseConfig([]string{"-upstream-token-file", file}, getenv, io.Discard)
	assert.ErrorContains(t, err, "give -upstream too")

	c, err = parseConfig(nil, getenv, io.Discard)
	require.NoError(t, err)
	assert.Empty(t, c.UpstreamToken, "no edge, no upstream token read")
	_, err = parseConfig([]string{"-upstream-token", "x"}, getenv, io.Discard)
	assert.Error(t, err, "there is no flag that takes the token's value")
}
