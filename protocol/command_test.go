package protocol

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestResolveCommand(t *testing.T) {
	cases := []struct {
		text string
		want Command
		ok   bool
	}{
		{"/help", Command{Name: "help"}, true},
		{"  /help  ", Command{Name: "help", Args: " "}, true},
		{"/example hello", Command{Name: "example", Args: "hello"}, true},
		{"/example hello {\"name\":\"Ada\"}", Command{Name: "example", Args: "hello {\"name\":\"Ada\"}"}, true},
		{"/script send('hi')", Command{Name: "script", Args: "send('hi')"}, true},
		{"/script\nfor i in range(2):\n    send(str(i))", Command{Name: "script", Args: "for i in range(2):\n    send(str(i))"}, true},
		{"/script\r\nsend('x')", Command{Name: "script", Args: "send('x')"}, true},
		{"/script", Command{Name: "script"}, true},
		// Fall through to the agent: unknown words, paths, fractions, prefixes of commands.
		{"/helpful", Command{}, false},
		{"/usr/bin/env", Command{}, false},
		{"/scripts are fun", Command{}, false},
		{"1/2 of it", Command{}, false},
		{"please /help", Command{}, false},
		{"/", Command{}, false},
		{"/Help", Command{}, false},
		{"", Command{}, false},
	}
	for _, c := range cases {
		got, ok := ResolveCommand(c.text)
		assert.Equal(t, c.ok, ok, "%q", c.text)
		assert.Equal(t, c.want, got, "%q", c.text)
	}
}

// FuzzResolveCommand: a resolved command is always a known name at the message's start, and
// its argument is a suffix of the message.
func FuzzResolveCommand(f *testing.F) {
	for _, s := range []string{"/help", "/script x", "/example a {}", "/a/b", " /script\n\tx"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		cmd, ok := ResolveCommand(text)
		if !ok {
			return
		}
		known := false
		for _, c := range Commands {
			known = known || c.Name == cmd.Name
		}
		if !known {
			t.Fatalf("resolved unknown %q", cmd.Name)
		}
		if len(cmd.Args) > len(text) || text[len(text)-len(cmd.Args):] != cmd.Args {
			t.Fatalf("args %q not a suffix of %q", cmd.Args, text)
		}
	})
}
