package slash

import (
	"math"
	"math/bits"
	"unicode"
	"unicode/utf8"
)

// The token grammar shared by trigger detection and ScanTextRefs, so that what the menu
// offers and what gets decorated never disagree.
//
//	trigger   = '/' | '@'
//	boundary  = start of draft | whitespace (unicode.IsSpace: includes U+00A0 and U+3000)
//	name      = { letter | digit | mark | '_' | '-' | '.' | ':' | '+' }
//
// A trigger counts only right after a boundary, so `x/name`, `src/a/b`, `1/2`,
// `user@host` and URLs never trigger. A name directly followed by '/' or '@' is a path or
// an address, not a reference, so `/src/a` is not `/src`.

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

// isNameRune reports whether r may appear in a name.
func isNameRune(r rune) bool {
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
	return unicode.IsSpace(r)
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
		if !isNameRune(r) {
			return i
		}
		i += size
	}
	return i
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

// utf16Len returns the length of s in UTF-16 code units, with invalid bytes counting as
// U+FFFD (one unit), which is what the browser would hold.
// ascii8 reports whether the eight bytes of s from i are all ASCII, tested as one word.
func ascii8(s string, i int) bool {
	w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
	return w&0x8080808080808080 == 0
}

// utf16Len is the length of s in UTF-16 code units: byteIndex walked to the end.
func utf16Len(s string) int {
	_, n := byteIndex(s, math.MaxInt)
	return n
}

// byteIndex maps the UTF-16 offset u of s to a byte index. An offset past the end clamps
// to len(s); one inside a surrogate pair rounds down to the start of its rune. It returns
// the byte index and the UTF-16 offset it stands for.
func byteIndex(s string, u int) (int, int) {
	n, i := 0, 0
	for i < len(s) && n < u {
		if i+8 <= len(s) && n+8 <= u && ascii8(s, i) {
			n += 8
			i += 8
			continue
		}
		if s[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if n+w > u {
			break
		}
		n += w
		i += size
	}
	return i, n
}

// utf16LenValid is utf16Len for valid UTF-8: every byte that is not a continuation byte
// starts a rune, and the 4-byte ones take a surrogate pair. It counts eight bytes a time.
func utf16LenValid(s string) int {
	const hi = 0x8080808080808080
	n, i := len(s), 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&hi == 0 {
			continue
		}
		// Bit 7 of each byte, tested against bits 6, 5, 4 of the same byte.
		cont := w &^ (w << 1) & hi
		quad := w & (w << 1) & (w << 2) & (w << 3) & hi
		n += bits.OnesCount64(quad) - bits.OnesCount64(cont)
	}
	for ; i < len(s); i++ {
		switch b := s[i]; {
		case b&0xC0 == 0x80:
			n--
		case b >= 0xF0:
			n++
		}
	}
	return n
}
