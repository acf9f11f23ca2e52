package slash

import (
	"unicode"
	"unicode/utf8"
)

// The token grammar shared by trigger detection and ScanTextRefs, so that what the menu
// offers and what gets decorated never disagree.
//
//	trigger   = '/' | '@'
//	boundary  = start of draft | whitespace (unicode.IsSpace: includes U+00A0 and U+3000)
//	          | for '@' only, a CJK character (cjk: ideographs, kana, hangul, their punctuation)
//	name      = { letter | digit | mark | '_' | '-' | '.' | ':' | '+' }
//
// A trigger counts only right after a boundary, so `x/name`, `src/a/b`, `1/2`,
// `user@host` and URLs never trigger. Chinese and Japanese put no space between words, so
// `看看@` opens the `@` menu (QA round 17 #2), while `me@example.com` still does not; a `/`
// after CJK stays text (`是/否`, "yes/no"). A name directly followed by '/' or '@' is a path or
// an address, not a reference, so `/src/a` is not `/src`.
//
// The menu's `@` query is a path: name characters and '/' (`@src/main.go`, `@docs/`),
// since files are offered by their path from the workspace (Detect). The decoration keeps
// the plain grammar: no roster name holds a '/' (validName), so `@src/a` decorates nothing
// either way.

// nameByte marks the ASCII name characters.
var nameByte = func() (t [utf8.RuneSelf]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "_-.:+" {
		t[c] = true
	}
	return t
}()

// spaceByte marks the ASCII whitespace that unicode.IsSpace accepts.
var spaceByte = func() (t [utf8.RuneSelf]bool) {
	for _, c := range "\t\n\v\f\r " {
		t[c] = true
	}
	return t
}()

// IsNameRune reports whether r may appear in a name: the grammar above, one character.
func IsNameRune(r rune) bool {
	if r < utf8.RuneSelf {
		return nameByte[r]
	}
	if r == utf8.RuneError {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// isTrigger reports whether b is a trigger character.
func isTrigger(b byte) bool { return b == '/' || b == '@' }

// boundaryBefore reports whether a trigger at byte i of s follows a boundary.
func boundaryBefore(s string, i int) bool {
	if i == 0 {
		return true
	}
	if b := s[i-1]; b < utf8.RuneSelf {
		return spaceByte[b]
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsSpace(r) || s[i] == '@' && cjk(r)
}

// cjk reports whether r is of a script written without spaces between words: a CJK
// ideograph, kana, hangul, or their punctuation (the fullwidth forms but their Latin letters
// and digits).
func cjk(r rune) bool {
	if r >= 0xFF00 && r <= 0xFFEF {
		return r >= 0xFF66 || !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}
	return r >= 0x1100 && r <= 0x11FF || r >= 0x2E80 && r <= 0x9FFF || r >= 0xAC00 && r <= 0xD7AF ||
		r >= 0xF900 && r <= 0xFAFF || r >= 0x20000 && r <= 0x3FFFF
}

// decodeLast decodes the last rune of s.
func decodeLast(s string) (rune, int) { return utf8.DecodeLastRuneInString(s) }

// nameEnd returns the byte index where the run of name characters starting at i ends.
func nameEnd(s string, i int) int {
	for i < len(s) {
		b := s[i]
		if b < utf8.RuneSelf {
			if !nameByte[b] {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !IsNameRune(r) {
			return i
		}
		i += size
	}
	return i
}

// pathEnd returns the byte index where the run of name characters and '/' starting at i
// ends: an `@` query's path.
func pathEnd(s string, i int) int {
	for {
		i = nameEnd(s, i)
		if i == len(s) || s[i] != '/' {
			return i
		}
		i++
	}
}

// endsCleanly reports whether a name run ending at byte i is not continued by a path or
// an address.
func endsCleanly(s string, i int) bool {
	return i == len(s) || !isTrigger(s[i])
}

// trimName drops the sentence punctuation that a name run may end with ("see /review.")
// but that a name never ends with.
func trimName(name string) string {
	for len(name) > 0 {
		if c := name[len(name)-1]; c != '.' && c != ':' {
			break
		}
		name = name[:len(name)-1]
	}
	return name
}

// validName reports whether name can ever be matched: non-empty, only name characters,
// and unchanged by trimName.
func validName(name string) bool {
	return name != "" && nameEnd(name, 0) == len(name) && trimName(name) == name
}
