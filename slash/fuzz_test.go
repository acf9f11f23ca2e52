package slash

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"

	"parley/machine/input"
)

// runeBefore returns the code point before UTF-16 offset i of u, or -1 at the start.
func runeBefore(u []uint16, i int) rune {
	if i == 0 {
		return -1
	}
	if i >= 2 && utf16.IsSurrogate(rune(u[i-1])) {
		return utf16.DecodeRune(rune(u[i-2]), rune(u[i-1]))
	}
	return rune(u[i-1])
}

func FuzzDetect(f *testing.F) {
	for _, s := range []string{"/rev", "hi /rev", "x/name", "src/a/b", "1/2", "user@host", "https://x.y/z", "\u00a0@al", "中\u3000@al", "😀 /é", "/rev@x", "\uFFFC/a", "see @src/main.go", "@a/b/", "@/etc", "x@a/b", "@./src", "@.//a/b", "看看@", "看看@src/m", "看看me@x.com", "中/rev"} {
		for _, caret := range []int{0, 1, 3, len(s)} {
			f.Add(s, caret, uint8(0))
		}
	}
	f.Fuzz(func(t *testing.T, draft string, caret int, tierByte uint8) {
		tier := Tier(tierByte % 3)
		hit, ok := Detect(draft, caret, tier)
		if !ok {
			if want, wok := detectNaive(draft, caret, tier); wok {
				t.Fatalf("Detect(%q, %d, %v) found nothing, the specification says %+v", draft, caret, tier, want)
			}
			return
		}
		u := utf16.Encode([]rune(draft))
		s := hit.Span
		if s.Start < 0 || s.Start >= s.End || s.End > len(u) {
			t.Fatalf("span %+v outside a draft of %d units", s, len(u))
		}
		if rune(u[s.Start]) != hit.Trigger || (hit.Trigger != '/' && hit.Trigger != '@') {
			t.Fatalf("span %+v does not start at its trigger %q", s, hit.Trigger)
		}
		if b := runeBefore(u, s.Start); b != -1 && !unicode.IsSpace(b) && !(hit.Trigger == '@' && cjk(b)) {
			t.Fatalf("triggered after the non-boundary %q", b)
		}
		if tier == Frozen || (tier == Claimed && hit.Trigger == '/') {
			t.Fatalf("tier %v let %q fire", tier, hit.Trigger)
		}
		q := utf16.Encode([]rune(hit.Query))
		if s.Start+1+len(q) > s.End || !strings.Contains(string(utf16.Decode(u[s.Start+1:s.End])), string([]rune(hit.Query))) {
			t.Fatalf("query %q is not the text after the trigger", hit.Query)
		}
		if want, wok := detectNaive(draft, caret, tier); !wok || want != hit {
			t.Fatalf("Detect(%q, %d, %v) = %+v, the specification says %+v (%v)", draft, caret, tier, hit, want, wok)
		}
		// A letter glued before the trigger kills it.
		glued := string(utf16.Decode(u[:s.Start])) + "x" + string(utf16.Decode(u[s.Start:]))
		if _, ok := Detect(glued, s.End+1, tier); ok {
			t.Fatalf("%q triggers after a letter", glued)
		}
	})
}

// detectNaive is the specification of Detect, over code points: walk back from the caret
// over name characters to a trigger that tier allows and that follows a boundary; the
// name run must not go on into '/' or '@'. An `@` name is a path: the walk back and the run
// go over '/' too (never first: `@/etc` is no workspace path), and only '@' ends it badly.
func detectNaive(draft string, caret int, tier Tier) (Hit, bool) {
	if caret < 0 || tier == Frozen {
		return Hit{}, false
	}
	rs := []rune(draft)
	off := make([]int, len(rs)+1) // off[i] is the UTF-16 offset of rs[i]
	for i, c := range rs {
		off[i+1] = off[i] + len(utf16.Encode([]rune{c}))
	}
	k := 0 // the rune the caret sits before; inside a pair rounds down
	for k < len(rs) && off[k+1] <= caret {
		k++
	}
	// before rs[i]; an `@` also after CJK, written without spaces
	boundary := func(i int) bool { return i == 0 || unicode.IsSpace(rs[i-1]) || rs[i] == '@' && cjk(rs[i-1]) }
	j := k
	for j > 0 && IsNameRune(rs[j-1]) {
		j--
	}
	if j > 0 && rs[j-1] == '/' && boundary(j-1) {
		if tier == Claimed {
			return Hit{}, false
		}
		e := k
		for e < len(rs) && IsNameRune(rs[e]) {
			e++
		}
		if e < len(rs) && (rs[e] == '/' || rs[e] == '@') {
			return Hit{}, false
		}
		return Hit{Trigger: '/', Query: string(rs[j:k]), Span: input.Span{Start: off[j-1], End: off[e]}}, true
	}
	inPath := func(c rune) bool { return c == '/' || IsNameRune(c) }
	for j > 0 && inPath(rs[j-1]) {
		j--
	}
	if j == 0 || rs[j-1] != '@' || !boundary(j-1) || j < len(rs) && rs[j] == '/' {
		return Hit{}, false
	}
	e := k
	for e < len(rs) && inPath(rs[e]) {
		e++
	}
	if e < len(rs) && rs[e] == '@' {
		return Hit{}, false
	}
	q := string(rs[j:k])
	for strings.HasPrefix(q, "./") {
		q = strings.TrimLeft(q[2:], "/") // `@./src` asks for "src"
	}
	return Hit{Trigger: '@', Query: q, Span: input.Span{Start: off[j-1], End: off[e]}}, true
}

// scanNaive is the specification of ScanTextRefs, over code points.
func scanNaive(draft string, r *Roster) []TextRef {
	rs := []rune(draft)
	var out []TextRef
	pos := 0 // UTF-16 offset of rs[i]
	width := func(c rune) int { return len(utf16.Encode([]rune{c})) }
	for i := 0; i < len(rs); pos, i = pos+width(rs[i]), i+1 {
		c := rs[i]
		if c != '/' && c != '@' {
			continue
		}
		if i > 0 && !unicode.IsSpace(rs[i-1]) && !(c == '@' && cjk(rs[i-1])) {
			continue
		}
		j := i + 1
		for j < len(rs) && IsNameRune(rs[j]) {
			j++
		}
		if j < len(rs) && (rs[j] == '/' || rs[j] == '@') {
			continue
		}
		name := strings.TrimRight(string(rs[i+1:j]), ".:")
		if name == "" || !r.Has(c, name) {
			continue
		}
		out = append(out, TextRef{Start: pos, End: pos + 1 + len(utf16.Encode([]rune(name))), Trigger: c, Name: name})
	}
	return out
}

func FuzzScanTextRefs(f *testing.F) {
	f.Add("please /review this, @alice's /v1.2. x/review /review/x @bob@host", "review alice v1.2 bob")
	f.Add("😀 @李雷\u3000/deploy\n\u00a0@bob", "李雷 deploy bob")
	f.Add("看看@bob 中/deploy ｂ@bob", "deploy bob")
	f.Add("/a/b @a@b 1/2 https://a/b", "a b")
	f.Add("\xff/x \xe4/x /x\xff", "x")
	f.Fuzz(func(t *testing.T, draft, names string) {
		list := map[rune][]string{}
		for i, n := range strings.Fields(names) {
			t := '/'
			if i%2 == 1 {
				t = '@'
			}
			list[t] = append(list[t], n, strings.TrimLeft(n, "/@"))
		}
		r := NewRoster(list)
		got := ScanTextRefs(draft, r)
		u := utf16.Encode([]rune(draft))
		end := 0
		for _, ref := range got {
			if ref.Start < end || ref.Start >= ref.End || ref.End > len(u) {
				t.Fatalf("range %+v overlaps, is empty or leaves a draft of %d units (previous end %d)", ref, len(u), end)
			}
			end = ref.End
			if rune(u[ref.Start]) != ref.Trigger {
				t.Fatalf("range %+v does not start at its trigger", ref)
			}
			if b := runeBefore(u, ref.Start); b != -1 && !unicode.IsSpace(b) && !(ref.Trigger == '@' && cjk(b)) {
				t.Fatalf("range %+v follows the non-boundary %q", ref, b)
			}
			if string(utf16.Decode(u[ref.Start+1:ref.End])) != string([]rune(ref.Name)) || !r.Has(ref.Trigger, ref.Name) {
				t.Fatalf("range %+v is not a roster name", ref)
			}
		}
		want := scanNaive(draft, r)
		if len(want) != len(got) {
			t.Fatalf("got %+v, want %+v", got, want)
		}
		for i := range want {
			if want[i] != got[i] {
				t.Fatalf("got %+v, want %+v", got, want)
			}
		}
	})
}
