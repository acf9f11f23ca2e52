package slash

import (
	"fmt"
	"strings"
	"testing"

	"parley/machine/utf16x"
)

// benchDraft is about 100 KB of chat: prose, references (on and off the roster), paths,
// fractions, URLs, e-mail, and some CJK and emoji so the UTF-16 conversion is exercised.
func benchDraft() (string, *Roster) {
	var slash, at []string
	for i := range 250 {
		slash = append(slash, fmt.Sprintf("skill-%03d", i))
		at = append(at, fmt.Sprintf("agent%03d", i))
	}
	r := NewRoster(map[rune][]string{'/': slash, '@': at})
	lines := []string{
		"Please run /skill-%03d on src/app/main.go and ask @agent%03d to check it.",
		"The ratio is 1/2, see https://example.com/docs/%d or mail bob%d@example.com.",
		"中文也可以 /skill-%03d 😀 然后 @nobody%d 看一下。",
		"Nothing to see here, just some ordinary prose about build %d and its results.",
		"Try /unknown-%d or @agent%03d, then x/skill-001 and /skill-001/nested.",
	}
	var b strings.Builder
	for i := 0; b.Len() < 100*1024; i++ {
		fmt.Fprintf(&b, lines[i%len(lines)], i%300, i%260)
		b.WriteByte('\n')
	}
	return b.String(), r
}

func BenchmarkScanTextRefs(b *testing.B) {
	draft, r := benchDraft()
	b.SetBytes(int64(len(draft)))
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(ScanTextRefs(draft, r))
	}
	b.ReportMetric(float64(n), "refs")
}

func BenchmarkDetect(b *testing.B) {
	draft, _ := benchDraft()
	draft += " /skill-0"
	caret := utf16x.Len(draft)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Detect(draft, caret, Plain); !ok {
			b.Fatal("no hit")
		}
	}
}

// BenchmarkAppendTextRefs is the controller's way: one buffer reused across keystrokes.
func BenchmarkAppendTextRefs(b *testing.B) {
	draft, r := benchDraft()
	b.SetBytes(int64(len(draft)))
	b.ReportAllocs()
	var buf []TextRef
	for b.Loop() {
		buf = AppendTextRefs(buf[:0], draft, r)
	}
	b.ReportMetric(float64(len(buf)), "refs")
}

// BenchmarkKeystroke is what one typed character at the end of a 100 KB draft costs the
// controller: detection, the rescan, and the Decorate it answers with.
func BenchmarkKeystroke(b *testing.B) {
	draft, r := benchDraft()
	c, _ := newDriver([]Source{
		&lexer{src: &src{trigger: '/', name: "skills"}, names: r.Names('/'), warm: true},
		&lexer{src: &src{trigger: '@', name: "agents"}, names: r.Names('@'), warm: true},
	}, nil, nil)
	drafts := [2]string{draft + "x", draft + "xy"}
	b.ReportAllocs()
	var rev uint64
	for b.Loop() {
		rev++
		d := drafts[rev%2]
		n := utf16x.Len(d)
		c.Controller.Dispatch(DraftObserved{Draft: d, SelStart: n, SelEnd: n, Rev: rev, Tier: Plain})
	}
}
