package input

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// bigText is n units of prose with a U+FFFC every n/chips units, and a few non-ASCII
// letters so the UTF-8/UTF-16 mapping is exercised.
func bigText(n, chips int) string {
	const words = "lorem ipsum dolor sit amet, consectetur adipiscing elit; café über naïve "
	us := make([]uint16, 0, n)
	w := utf16.Encode([]rune(words))
	every := n / max(chips, 1)
	for i := 0; len(us) < n; i++ {
		if chips > 0 && i%every == every/2 {
			us = append(us, placeholderUnit)
			continue
		}
		us = append(us, w[i%len(w)])
	}
	return string(utf16.Decode(us))
}

// bigDraft returns a machine holding bigText(n, chips), each U+FFFC a chip, with a clean
// log.
func bigDraft(tb testing.TB, n, chips int) *Machine {
	tb.Helper()
	text := bigText(n, chips)
	var comps []Component
	for i, u := range utf16.Encode([]rune(text)) {
		if u == placeholderUnit {
			comps = append(comps, Component{Range: Range{i, i + 1}, Reference: ref(fmt.Sprintf("f%d.go", i))})
		}
	}
	m := New(Config{Session: "bench"})
	m.Dispatch(PasteBegin{Text: text, Components: comps})
	m.log = m.newHistory()
	m.paste = nil
	if len(m.Occurrences()) != chips || m.Len() != n {
		tb.Fatalf("big draft: %d units, %d chips", m.Len(), len(m.Occurrences()))
	}
	return m
}

// spliceAt inserts text at unit offset p of s (BMP-only s around p).
func spliceAt(s string, p int, text string) string {
	us := utf16.Encode([]rune(s))
	return string(utf16.Decode(us[:p])) + text + string(utf16.Decode(us[p:]))
}

// BenchmarkKeystroke is a single-character edit in a 100 KB draft holding 1,000 chips,
// in each form of draft-changed. Ops alternate inserting a character and deleting it
// (so the draft stays 100 KB); each is its own undo record (no merging), the worst case.
func BenchmarkKeystroke(b *testing.B) {
	const n, chips, p = 100_000, 1000, 50_001
	s0 := bigText(n, chips)
	s1 := spliceAt(s0, p, "x")
	forms := []struct {
		name string
		ev   [2]func(at time.Time) Event
	}{
		{"delta", [2]func(time.Time) Event{
			func(t time.Time) Event { return Edit{Start: p, End: p, Text: "x", At: t} },
			func(t time.Time) Event { return Edit{Start: p, End: p + 1, At: t} }}},
		{"editRange", [2]func(time.Time) Event{
			func(t time.Time) Event { return DraftChanged{Draft: s1, Hint: &EditRange{p, p, p + 1}, At: t} },
			func(t time.Time) Event { return DraftChanged{Draft: s0, Hint: &EditRange{p, p + 1, p}, At: t} }}},
		{"scan", [2]func(time.Time) Event{
			func(t time.Time) Event { return DraftChanged{Draft: s1, At: t} },
			func(t time.Time) Event { return DraftChanged{Draft: s0, At: t} }}},
	}
	for _, f := range forms {
		b.Run(f.name, func(b *testing.B) {
			m := bigDraft(b, n, chips)
			m.Dispatch(DraftChanged{Draft: s0}) // the full forms start from a cached string
			evs := [2][]Event{make([]Event, 64), make([]Event, 64)}
			for i := range 64 {
				evs[0][i], evs[1][i] = f.ev[0](at(10_000*2*i)), f.ev[1](at(10_000*(2*i+1)))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.Dispatch(evs[i&1][(i>>1)&63])
			}
			b.StopTimer()
			if m.Len() != n && m.Len() != n+1 || len(m.Occurrences()) != chips {
				b.Fatalf("draft drifted: %d units, %d chips", m.Len(), len(m.Occurrences()))
			}
		})
	}
}

// BenchmarkTyping is typing at a moving caret in a 100 KB draft (delta form): consecutive
// keystrokes within the merge window, so they share one undo record.
func BenchmarkTyping(b *testing.B) {
	m := bigDraft(b, 100_000, 1000)
	p := 50_001
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Dispatch(Edit{Start: p + i, End: p + i, Text: "x", At: at(i)})
	}
}

// BenchmarkPaste50KB pastes 50 KB holding 500 synchronously matched references into the
// middle of a 100 KB draft with 1,000 chips.
func BenchmarkPaste50KB(b *testing.B) {
	m := bigDraft(b, 100_000, 1000)
	text := bigText(50_000, 500)
	var comps []Component
	for i, u := range utf16.Encode([]rune(text)) {
		if u == placeholderUnit {
			comps = append(comps, Component{Range: Range{i, i + 1}, Reference: ref("p.go")})
		}
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Dispatch(PasteBegin{Text: text, Selection: Range{50_001, 50_001}, Components: comps, At: at(i)})
		b.StopTimer()
		m.Dispatch(Undo{})
		b.StartTimer()
	}
}

// BenchmarkUndoRing walks a full ring of 100 records, scattered over a 100 KB draft with
// 1,000 chips, down with Undo and back up with Redo; one op is one step. It also
// reports the heap the full ring holds (ring-B).
func BenchmarkUndoRing(b *testing.B) {
	m := bigDraft(b, 100_000, 1000)
	// The draft's own gap buffer may double while the ring fills; that is not the log.
	before := heapInUse() - 2*int64(cap(m.buf.b))
	for i := range 100 {
		p := 1 + (i*7919)%(m.Len()-2)
		m.Dispatch(Edit{Start: p, End: p + 1, Text: "yz", At: at(10_000 * i)})
	}
	ring := heapInUse() - 2*int64(cap(m.buf.b)) - before
	b.ReportAllocs()
	b.ResetTimer()
	down := true
	for i := 0; i < b.N; i++ {
		if down && !m.CanUndo() || !down && !m.CanRedo() {
			down = !down
		}
		if down {
			m.Dispatch(Undo{})
		} else {
			m.Dispatch(Redo{})
		}
	}
	b.ReportMetric(float64(ring), "ring-B")
}

func heapInUse() int64 {
	runtime.GC()
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	return int64(s.HeapAlloc)
}

// BenchmarkDraft is materializing the 100 KB draft as a string, the cost Draft() pays
// once after delta edits (for comparison).
func BenchmarkDraft(b *testing.B) {
	m := bigDraft(b, 100_000, 1000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m.cached = false
		if !strings.HasPrefix(m.Draft(), "lorem") {
			b.Fatal("draft")
		}
	}
}

// pasteOfRefs is n lines that each name a file ("see @src/p3/main41.go and "), and the
// matcher's upgrade of each reference: what the asynchronous match answers for a paste of
// references the hot snapshot did not know.
func pasteOfRefs(n int) (string, []Component) {
	var b strings.Builder
	ups := make([]Component, 0, n)
	for i := range n {
		path := fmt.Sprintf("src/p%d/main%d.go", i%37, i)
		at := b.Len() + len("see ") // ASCII: bytes are units
		fmt.Fprintf(&b, "see @%s and ", path)
		ups = append(ups, Component{Range: Range{at, at + 1 + len(path)}, Reference: ref(path)})
	}
	return b.String(), ups
}

// BenchmarkPasteUpgrades pastes n references that the matcher then upgrades into chips, as
// the shell does it: one-by-one is a transaction per reference, each read back for the view
// (the shell wrote each chip's glyph after every transaction: Occurrences), as before;
// batch is the one PasteUpgrades of them all that the shell now sends. Both end with the one draft and backdrop the view draws.
// One-by-one grows as n² (QA: 2,000 references froze the tab for minutes).
//
//	go test -run '^$' -bench PasteUpgrades ./machine/input/
func BenchmarkPasteUpgrades(b *testing.B) {
	for _, n := range []int{200, 1000, 2000} {
		text, ups := pasteOfRefs(n)
		for _, batch := range []bool{false, true} {
			name := fmt.Sprintf("n=%d/one-by-one", n)
			if batch {
				name = fmt.Sprintf("n=%d/batch", n)
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					m := New(Config{})
					m.Dispatch(PasteBegin{Text: text})
					if batch {
						m.Dispatch(PasteUpgrades{Paste: 1, Upgrades: ups})
						_ = m.Occurrences()
					} else {
						for _, u := range ups {
							m.Dispatch(PasteUpgrades{Paste: 1, Upgrades: []Component{u}})
							_ = m.Occurrences()
						}
					}
					if len(m.Draft()) == 0 || len(m.Backdrop()) != 2*n+1 {
						b.Fatalf("%d chips", len(m.Occurrences()))
					}
				}
			})
		}
	}
}
