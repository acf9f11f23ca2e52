package markdown

import (
	"fmt"
	"strings"
	"testing"
)

func TestShapeTail(t *testing.T) {
	tests := []struct {
		name, tail string
		want       TailShape
	}{
		{"prose is all text", "I will **read** the", TailShape{End: 19}},
		{"a fence's first line still arriving shows no code yet", "```g", TailShape{Body: 4, End: 4, Code: true, Lang: "g"}},
		{"two backticks are not a fence yet", "``", TailShape{End: 2}},
		{"an opened fence: its lines go in the box", "```go\nfunc main", TailShape{Body: 6, End: 15, Code: true, Lang: "go"}},
		{"the words before it are settled", "Like this:\n```\nx := 1\n", TailShape{Settled: 11, Body: 15, End: 22, Code: true}},
		{"a line that may close it is held back", "```go\nx\n``", TailShape{Body: 6, End: 8, Code: true, Lang: "go"}},
		{"a line of spaces may still close it", "```\nx\n  ", TailShape{Body: 4, End: 6, Code: true}},
		{"a line of code that starts with a backtick shows once it is more", "```\n`x", TailShape{Body: 4, End: 6, Code: true}},
		{"a tilde fence is not closed by backticks", "~~~\n```\n", TailShape{Body: 4, End: 8, Code: true}},
		{"a closed fence is settled, the rest is text", "```go\nx\n```\nThen I", TailShape{Settled: 12, Body: 12, End: 18}},
		{"the closing line still arriving", "```go\nx\n```", TailShape{Body: 6, End: 8, Code: true, Lang: "go"}},
		{"a second fence", "```\na\n```\nand\n~~~~ sh\nls", TailShape{Settled: 14, Body: 22, End: 24, Code: true, Lang: "sh"}},
		{"a list's indented fence: lines", "- a\n  ```\n  x", TailShape{Settled: 10, Body: 10, End: 13}},
		{"a list: its whole lines are Markdown, the line arriving text", "- a\n- b", TailShape{Settled: 4, Body: 4, End: 7}},
		{"a list whose lines are all whole", "- a\n- b\n", TailShape{Settled: 8, Body: 8, End: 8}},
		{"a list past a blank line", "1. a\n\n2. b", TailShape{Settled: 6, Body: 6, End: 10}},
		{"a list's indented fence closed: lines", "- a\n  ```\n  x\n  ```\nb", TailShape{Settled: 20, Body: 20, End: 21}},
		{"a list's fence in column 0 is a code box", "- a\n```sh\nls", TailShape{Settled: 4, Body: 10, End: 12, Code: true, Lang: "sh"}},
		{"a table's row still arriving is held back", "| a | b |\n|---|---|\n| 1 | 2", TailShape{Settled: 20, Body: 20, End: 20}},
		{"a rule is no list", "---\nx", TailShape{End: 5}},
		{"a fence opening on a list's line still arriving", "- a\n```s", TailShape{Settled: 4, Body: 8, End: 8, Code: true, Lang: "s"}},
		{"a language that is no plain word is none", "```<b>\nx", TailShape{Body: 7, End: 8, Code: true}},
		{"backticks in a backtick fence's info make no fence", "``` a`b\nx", TailShape{End: 9}},
		{"a carriage return: all text", "```\r\nx", TailShape{End: 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShapeTail(tt.tail); got != tt.want {
				t.Errorf("ShapeTail(%q) = %+v, want %+v", tt.tail, got, tt.want)
			}
		})
	}
}

// checkShapeTail holds what the view relies on for any tail: the parts are in order; the
// settled part is whole lines, and whole blocks (it parses alone as it does within the tail)
// unless the tail is drawn line by line (a list or a table, whose last block grows a line at
// a time); and a code box shows a prefix of the code the finished block will hold, under its
// language.
func checkShapeTail(t *testing.T, tail string) {
	t.Helper()
	s := ShapeTail(tail)
	if s.Settled < 0 || s.Settled > s.Body || s.Body > s.End || s.End > len(tail) {
		t.Fatalf("ShapeTail(%q) = %+v: not in order", tail, s)
	}
	if !s.Code && s.Body != s.Settled {
		t.Fatalf("ShapeTail(%q) = %+v: text that is neither settled nor shown", tail, s)
	}
	if s.Settled > 0 && tail[s.Settled-1] != '\n' {
		t.Fatalf("ShapeTail(%q) = %+v: settles part of a line", tail, s)
	}
	if s.Settled > 0 && !linewise(tail) {
		settled := Parse(tail[:s.Settled])
		if got, want := fmt.Sprintf("%+v", Parse(tail)[:min(len(settled), len(Parse(tail)))]), fmt.Sprintf("%+v", settled); got != want {
			t.Fatalf("ShapeTail(%q) settles %q, not whole blocks: %s within the tail, %s alone", tail, tail[:s.Settled], got, want)
		}
	}
	if s.Code {
		rest := Parse(tail[s.Settled:])
		if len(rest) == 0 || rest[0].Kind != KindCodeBlock {
			t.Fatalf("ShapeTail(%q) = %+v: the box is no code block: %+v", tail, s, rest)
		}
		if rest[0].Info != s.Lang {
			t.Fatalf("ShapeTail(%q) says language %q, the block %q", tail, s.Lang, rest[0].Info)
		}
		if shown := strings.TrimSuffix(tail[s.Body:s.End], "\n"); !strings.HasPrefix(rest[0].Text, shown) {
			t.Fatalf("ShapeTail(%q) shows %q, not the start of the block's code %q", tail, shown, rest[0].Text)
		}
	}
}

func TestShapeTailAsTextGrows(t *testing.T) {
	for _, msg := range []string{streamed, "Run:\n```sh\nmake run\n```\nthen\n~~~\n```\n~~~\n\nok", long} {
		for i := 0; i <= len(msg); i++ {
			grown := msg[:i]
			checkShapeTail(t, grown[StreamCut(grown):])
		}
	}
}

func FuzzShapeTail(f *testing.F) {
	for _, s := range []string{streamed, "```go\nx\n``", "a\n```\nb\n```\nc", "- a\n```\nb", "> q\n~~~\n", "```\r\nx\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tail string) { checkShapeTail(t, tail) })
}

// BenchmarkShapeTail is what a token costs paintStream on top of its cut while a 10 KB code
// block streams: the whole tail is the open fence.
func BenchmarkShapeTail(b *testing.B) {
	var code strings.Builder
	code.WriteString("```go\n")
	for code.Len() < 10_000 {
		code.WriteString("\tfmt.Println(\"a line of code in a long block\")\n")
	}
	tail := code.String()
	b.ReportAllocs()
	for b.Loop() {
		ShapeTail(tail)
	}
}
