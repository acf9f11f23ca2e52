package protocol

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A request is asked again by whoever asked it: the agent (no run of its own) is prompted, a
// slash command's run is sent again, and a function run's is run again from its form only.
func TestRetryWayOf(t *testing.T) {
	tests := []struct {
		run  string
		want RetryWay
	}{
		{"", RetryAgent},
		{CommandRun(42), RetryCommand},
		{FunctionRunPrefix + "x1", RetryNone},
		{"test:retry", RetryAgent},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, RetryWayOf(tt.run), tt.run)
	}
}

func TestCommandRunPrompt(t *testing.T) {
	off, ok := CommandRunPrompt(CommandRun(42))
	assert.True(t, ok)
	assert.Equal(t, uint64(42), off)
	for _, run := range []string{"", "slash-command:", "slash-command:x", "function:42", "slash-command:-1"} {
		_, ok := CommandRunPrompt(run)
		assert.False(t, ok, run)
	}
}
